#!/usr/bin/env bash
# make-barcode-passes.sh: signed sample passes whose barcodes test encodings and symbologies.
#
# The real corpus (../shared/corpus/pkpass-real) is all ASCII, so it cannot catch an encoding bug:
# these passes carry non-ASCII Latin-1, binary payloads (NUL and high bytes in iso-8859-1), UTF-8,
# windows-1252 and Shift_JIS (iconv), long Code 128 messages, messages too long for their symbology,
# characters their encoding cannot hold, unsupported formats before a supported one, iOS 27's Code 39,
# Codabar, EAN-13 and ITF (and each of their rules broken once), and garbage.
#
# Writes barcode-passes/ beside this script: the .pkpass files, expected.tsv (what a renderer must
# draw for each: the chosen format and the message BYTES in hex, computed here by Python's codecs,
# or the error code when nothing can be drawn) and README.md. Signed with the test CA in ca/
# (make-passes.sh makes it; the "generic" leaf, pass.org.passconduit.generic) under a frozen clock,
# so a re-run rewrites the same bytes. Needs openssl, python3 and faketime.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
ca="$here/ca"
out="$here/barcode-passes"

for tool in openssl python3 faketime; do
  command -v "$tool" >/dev/null || { echo "make-barcode-passes.sh: $tool is required" >&2; exit 69; }
done
[[ -f "$ca/generic.pem" && -f "$ca/generic.key" ]] || { echo "make-barcode-passes.sh: run make-passes.sh first (no ca/generic.pem)" >&2; exit 66; }

export TZ=UTC
rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

CA="$ca" OUT="$out" WORK="$work" python3 - <<'PY'
import hashlib, json, os, struct, subprocess, zipfile, zlib

CA, OUT, WORK = os.environ["CA"], os.environ["OUT"], os.environ["WORK"]
SIGN_TIME = "2026-03-01 10:00:00"
ZIP_TIME = (2026, 3, 1, 10, 0, 0)

def png(size, seed):
    """A small opaque RGBA PNG (a gradient): the icon every pass needs."""
    rows = bytearray()
    for y in range(size):
        rows.append(0)
        for x in range(size):
            rows += bytes(((x * 255 // size + seed * 40) & 0xFF, (y * 255 // size) & 0xFF, (seed * 90) & 0xFF, 255))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")

ICON, ICON2 = png(29, 5), png(58, 5)

def sign(manifest):
    src, sig = os.path.join(WORK, "manifest.json"), os.path.join(WORK, "signature")
    with open(src, "wb") as f:
        f.write(manifest)
    subprocess.run(["faketime", "-f", SIGN_TIME, "openssl", "cms", "-sign", "-binary", "-in", src, "-outform", "DER",
                    "-out", sig, "-signer", os.path.join(CA, "generic.pem"), "-inkey", os.path.join(CA, "generic.key"),
                    "-certfile", os.path.join(CA, "wwdr.pem")], check=True)
    with open(sig, "rb") as f:
        return f.read()

def write_pass(fname, pass_json):
    # ensure_ascii: every non-ASCII character (and NUL) is a \u escape, so pass.json itself is
    # plain ASCII and the message reaches passconduit exactly as written here.
    files = {"pass.json": (json.dumps(pass_json, indent=2, ensure_ascii=True) + "\n").encode("ascii"),
             "icon.png": ICON, "icon@2x.png": ICON2}
    manifest = (json.dumps({n: hashlib.sha1(b).hexdigest() for n, b in sorted(files.items())}, indent=2) + "\n").encode()
    entries = list(files.items()) + [("manifest.json", manifest), ("signature", sign(manifest))]
    with zipfile.ZipFile(os.path.join(OUT, fname), "w") as z:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data)

def pass_json(serial, description, barcodes=None, barcode=None):
    d = {"formatVersion": 1, "passTypeIdentifier": "pass.org.passconduit.generic", "serialNumber": serial,
         "teamIdentifier": "PCTEAM0001", "organizationName": "Passconduit Barcodes", "description": description,
         "generic": {"primaryFields": [{"key": "what", "label": "BARCODE TEST", "value": description}]},
         "backgroundColor": "rgb(240, 240, 240)", "foregroundColor": "rgb(20, 20, 20)"}
    if barcodes is not None:
        d["barcodes"] = barcodes
    if barcode is not None:
        d["barcode"] = barcode
    return d

def bc(fmt, message, encoding="iso-8859-1", alt=None):
    d = {"format": "PKBarcodeFormat" + fmt if not fmt.startswith("PK") and fmt.isalnum() else fmt,
         "message": message}
    if encoding is not None:
        d["messageEncoding"] = encoding
    if alt is not None:
        d["altText"] = alt
    return d

PY_CODEC = {"iso-8859-1": "latin-1", "utf-8": "utf-8", "windows-1252": "cp1252", "shift_jis": "shift_jis", None: "latin-1"}
rows = []  # file, chosen format or "-", expected hex or error code, what it is

def sample(fname, what, chosen=None, message=None, encoding="iso-8859-1", error=None, **kw):
    write_pass(fname, pass_json("BC-" + fname.replace(".pkpass", ""), what, **kw))
    if error:
        rows.append((fname, chosen or "-", "error:" + error, what))
    elif chosen is None:
        rows.append((fname, "-", "none", what))
    else:
        rows.append((fname, chosen, message.encode(PY_CODEC[encoding]).hex(), what))

LATIN1 = "Z\u00fcrich Hbf \u00b7 M\u00fcnchen \u00c6r\u00f8 \u00bd \u00bf\u00a1 \u00ff\u00e9"   # Zürich Hbf · München Ærø ½ ¿¡ ÿé
# A VDV/Deutschlandticket-like binary payload in iso-8859-1 (Catima#2932 is this shape: 5 NULs and
# bytes >= 0x80): every byte value once, then NULs, then the high half again.
BINARY = "".join(chr(b) for b in range(256)) + "\x00" * 5 + "".join(chr(b) for b in range(0x80, 0x100, 3))
BINARY_SHORT = "\x00\x01\x02\x7f\x80\x81\xa0\xfe\xffEND\x00"
UTF8 = "Gr\u00fc\u00dfe aus K\u00f6ln \u2013 \u6771\u4eac \u2713 \U0001F3AB"         # Grüße aus Köln – 東京 ✓ 🎫
CP1252 = "Preis 5 \u20ac \u2013 Caf\u00e9 \u201equot\u201c"                          # Preis 5 € – Café „quot“
SJIS = "\u6771\u4eac\u99c5 \u30c1\u30b1\u30c3\u30c8 12"                              # 東京駅 チケット 12
# zint 2.11 allows 60 Code 128 symbol characters: 60 mixed characters, or 120 digits in code set C.
CODE128_LONG = "".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-./ "[(i * 7) % 40] for i in range(60))
CODE128_DIGITS = "".join(str((i * 3) % 10) for i in range(120))
CODE128_LATIN1 = "\u00c4\u00d6\u00dc1234567890\u00c4\u00d6\u00dc"                   # ÄÖÜ1234567890ÄÖÜ

for fmt in ["QR", "Aztec", "PDF417", "Code128"]:
    f = fmt.lower()
    sample(f"latin1-{f}.pkpass", f"Latin-1 text in {fmt}", fmt, LATIN1, barcodes=[bc(fmt, LATIN1, alt="Z\u00fcrich")])
for fmt in ["QR", "Aztec", "PDF417"]:
    f = fmt.lower()
    sample(f"binary-{f}.pkpass", f"{len(BINARY)} binary bytes (iso-8859-1, NULs, every byte value) in {fmt}",
           fmt, BINARY, barcodes=[bc(fmt, BINARY)])
    sample(f"utf8-{f}.pkpass", f"UTF-8 text in {fmt}", fmt, UTF8, "utf-8", barcodes=[bc(fmt, UTF8, "utf-8")])
sample("binary-code128.pkpass", "NUL, DEL and high bytes in Code 128", "Code128", BINARY_SHORT,
       barcodes=[bc("Code128", BINARY_SHORT)])
sample("latin1-code128-edges.pkpass", "Code 128 with Latin-1 letters at both ends", "Code128", CODE128_LATIN1,
       barcodes=[bc("Code128", CODE128_LATIN1)])
sample("code128-long.pkpass", "60-character Code 128 (the most zint fits)", "Code128", CODE128_LONG, barcodes=[bc("Code128", CODE128_LONG)])
sample("code128-digits.pkpass", "120 digits in Code 128 (code set C)", "Code128", CODE128_DIGITS,
       barcodes=[bc("Code128", CODE128_DIGITS)])
sample("windows-1252-qr.pkpass", "windows-1252 (euro sign, quotes) in QR", "QR", CP1252, "windows-1252",
       barcodes=[bc("QR", CP1252, "windows-1252")])
sample("shift-jis-aztec.pkpass", "Shift_JIS in Aztec", "Aztec", SJIS, "shift_jis", barcodes=[bc("Aztec", SJIS, "shift_jis")])
sample("no-encoding-legacy-aztec.pkpass", "legacy barcode without messageEncoding (ISO-8859-1 by default)", "Aztec",
       "LEGACY-\u00c5", None, barcode=bc("Aztec", "LEGACY-\u00c5", None))
# A format Wallet has never drawn (Data Matrix, which some generators write) is passed over.
sample("unsupported-first.pkpass", "barcodes: Data Matrix first, then QR: the QR is drawn", "QR", "FALLBACK-QR-1",
       barcodes=[bc("DataMatrix", "A123456B"), bc("QR", "FALLBACK-QR-1", alt="fallback")])
sample("unsupported-then-legacy.pkpass", "barcodes holds only Data Matrix: the legacy PDF417 is drawn", "PDF417",
       "LEGACY-PDF417-2", barcodes=[bc("DataMatrix", "4006381333931")], barcode=bc("PDF417", "LEGACY-PDF417-2"))
sample("unsupported-only.pkpass", "only a Data Matrix barcode: nothing is drawn, the text is shown",
       error="unsupported-barcode-format", barcodes=[bc("DataMatrix", "A123456B")])
# iOS 27's four linear formats (WWDC26 session 209). Wallet draws the first of `barcodes` it can:
# [Codabar, QR] is Apple's own example (message "123456789", no start/stop characters) and
# draws the Codabar, which passconduit gives the start and stop characters A...A; scanners read
# the characters between them.
sample("codabar-then-qr.pkpass", "barcodes: Codabar then QR (Apple's example): the Codabar is drawn, A...A added",
       "Codabar", "123456789", barcodes=[bc("Codabar", "123456789"), bc("QR", "123456789")])
sample("codabar-start-stop.pkpass", "Codabar with its own start and stop characters A...B: a scanner reads what lies between",
       "Codabar", "14527000123456", barcodes=[bc("Codabar", "A14527000123456B", alt="Library card 1452 7000 1234 56")])
sample("code39.pkpass", "Code 39 with every kind of character it holds", "Code39", "PC-2026/0042 $+%.",
       barcodes=[bc("Code39", "PC-2026/0042 $+%."), bc("QR", "PC-2026/0042 $+%.")])
sample("ean13.pkpass", "EAN-13 with its check digit", "EAN13", "5901234123457",
       barcodes=[bc("EAN13", "5901234123457", alt="5 901234 123457")])
sample("ean13-twelve-digits.pkpass", "EAN-13 of 12 digits: the check digit 1 is added", "EAN13", "4006381333931",
       barcodes=[bc("EAN13", "400638133393")])
sample("ean13-then-legacy.pkpass", "barcodes holds only EAN-13, the legacy barcode is PDF417: the EAN-13 is drawn", "EAN13",
       "4006381333931", barcodes=[bc("EAN13", "4006381333931")], barcode=bc("PDF417", "LEGACY-PDF417-2"))
sample("itf14.pkpass", "ITF (Interleaved 2 of 5) of 14 digits, as on a carton", "I2of5", "15400141288763",
       barcodes=[bc("I2of5", "15400141288763")])
# Each rule of the four broken once: the message is shown as text with the reason.
sample("ean13-wrong-check.pkpass", "EAN-13 whose check digit is wrong (2, not 1)", "EAN13",
       error="barcode-message-invalid", barcodes=[bc("EAN13", "4006381333932"), bc("QR", "4006381333932")])
sample("ean13-eight-digits.pkpass", "EAN-13 of 8 digits: refused, never drawn as an EAN-8", "EAN13",
       error="barcode-message-invalid", barcodes=[bc("EAN13", "96385074")])
sample("code39-lower-case.pkpass", "Code 39 with lower-case letters, which it has not", "Code39",
       error="barcode-message-invalid", barcodes=[bc("Code39", "Pc-2026")])
sample("codabar-start-only.pkpass", "Codabar with a start character and no stop character", "Codabar",
       error="barcode-message-invalid", barcodes=[bc("Codabar", "A123456")])
sample("itf-odd.pkpass", "ITF with an odd number of digits", "I2of5",
       error="barcode-message-invalid", barcodes=[bc("I2of5", "12345")])
sample("code39-too-long.pkpass", "86 characters in Code 39: one more than zint draws", "Code39",
       error="barcode-message-too-long", barcodes=[bc("Code39", "A" * 86)])
sample("codabar-too-long.pkpass", "59 digits in Codabar: 61 with A...A, one more than zint draws", "Codabar",
       error="barcode-message-too-long", barcodes=[bc("Codabar", "1" * 59)])
sample("itf-too-long.pkpass", "92 digits in ITF: more than zint draws", "I2of5",
       error="barcode-message-too-long", barcodes=[bc("I2of5", "12" * 46)])
sample("qr-too-long.pkpass", "3000 Latin-1 characters in QR: too long", "QR",
       error="barcode-message-too-long", barcodes=[bc("QR", "\u00e9" * 3000)])
sample("code128-too-long.pkpass", "200 characters in Code 128: too long", "Code128",
       error="barcode-message-too-long", barcodes=[bc("Code128", "A" * 200)])
sample("aztec-large-binary.pkpass", "1900 binary bytes in Aztec (near its 1914-byte maximum)", "Aztec",
       (BINARY * 8)[:1900], barcodes=[bc("Aztec", (BINARY * 8)[:1900])])
sample("code128-61.pkpass", "61 characters in Code 128: one more than zint fits", "Code128",
       error="barcode-message-too-long", barcodes=[bc("Code128", CODE128_LONG + "X")])
sample("pdf417-too-long-binary.pkpass", "1200 binary bytes in PDF417: too long for its byte compaction", "PDF417",
       error="barcode-message-too-long", barcodes=[bc("PDF417", (BINARY * 8)[:1200])])
sample("unrepresentable-latin1.pkpass", "a euro sign in iso-8859-1: cannot be encoded", "QR",
       error="barcode-message-unrepresentable", barcodes=[bc("QR", "Price 5 \u20ac")])
sample("hostile-10000.pkpass", "a 10 000-character message in QR", "QR",
       error="barcode-message-too-long", barcodes=[bc("QR", "X" * 10000)])
sample("hostile-format.pkpass", "garbage formats only", error="unsupported-barcode-format",
       barcodes=[bc("PKBarcodeFormat\u0000QR", "A"), bc("<script>alert(1)</script>", "B"), bc("", "C")])
sample("hostile-encoding.pkpass", "messageEncoding smuggling an iconv option", "QR",
       error="unknown-barcode-encoding", barcodes=[bc("QR", "ABC", "latin1//TRANSLIT")])

with open(os.path.join(OUT, "expected.tsv"), "w") as f:
    f.write("# file\tformat\texpected (hex of the message bytes; none; or error:CODE)\twhat\n")
    for r in rows:
        f.write("\t".join(r) + "\n")
with open(os.path.join(OUT, "README.md"), "w") as f:
    f.write("# Barcode sample passes (made by ../make-barcode-passes.sh; signed by the test CA)\n\n"
            "Each pass is valid under `--trust Samples/ca/trust`. `expected.tsv` says what must be drawn:\n"
            "the format chosen by Apple's rule and the message bytes in hex (Python's codecs), or the\n"
            "error code when nothing can be drawn (the text is shown instead).\n\n"
            "| file | format | expected | what |\n|---|---|---|---|\n")
    for fname, fmt, exp, what in rows:
        shown = exp if exp.startswith("error:") or exp == "none" else f"{len(exp) // 2} bytes"
        f.write(f"| {fname} | {fmt} | {shown} | {what} |\n")
print(f"make-barcode-passes.sh: {len(rows)} passes in {OUT}")
PY
