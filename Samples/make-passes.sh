#!/usr/bin/env bash
# make-passes.sh: a test CA shaped like Apple's and sample .pkpass files signed by it.
#
# Writes (relative to this script's folder):
#   ca/        test root, a WWDR-like intermediate, pass-type leaf certificates and their keys
#   ca/trust/  the anchors to hand to passconduit as `--trust Samples/ca/trust` (root + intermediate,
#              the way Config/trust ships Apple's roots beside the WWDR intermediates)
#   passes/    one pass per style, a localized pass, an update (v2), lenient and unusual-but-valid
#              variants, one hostile variant per PassError code, a .pkpasses bundle; README.md lists
#              every file with the verdict passconduit must give it.
#
# Deterministic: keys are made once and kept (pass --fresh to make new ones); certificates and
# signatures are made under a frozen clock (faketime), so the signing time is part of the sample
# (openssl cms has no signing-time option: it stamps the current time) and a re-run with the same
# keys rewrites the same bytes. Needs openssl, python3 and faketime (apt-get install faketime).
#
# The CA is for tests only. Its private keys are committed on purpose; never trust it outside tests.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
ca="$here/ca"
out="$here/passes"
fresh=0
[[ "${1:-}" == "--fresh" ]] && fresh=1

for tool in openssl python3 faketime; do
  command -v "$tool" >/dev/null || { echo "make-passes.sh: $tool is required" >&2; exit 69; }
done

export TZ=UTC
# at TIME CMD...: run CMD with the clock frozen at TIME (UTC).
at() { local t="$1"; shift; faketime -f "$t" "$@"; }

if [[ $fresh == 1 ]]; then rm -rf "$ca" "$out"; fi
mkdir -p "$ca/trust" "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------------------------------------
# Certificates
# ---------------------------------------------------------------------------------------------
TEAM="PCTEAM0001"

key() { # key NAME: make ca/NAME.key once
  [[ -f "$ca/$1.key" ]] || openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$ca/$1.key" 2>/dev/null
}

cat >"$work/req.cnf" <<'EOF'
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = unused
EOF

cat >"$work/ca.ext" <<'EOF'
[ root ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ wwdr ]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
# Apple marks its WWDR intermediates with 1.2.840.113635.100.6.2.1 (NULL).
1.2.840.113635.100.6.2.1 = ASN1:NULL
EOF

selfsigned() { # selfsigned NAME SUBJECT NOTBEFORE DAYS SERIAL
  key "$1"
  cat "$work/req.cnf" "$work/ca.ext" >"$work/root.cnf"
  at "$3" openssl req -new -x509 -config "$work/root.cnf" -key "$ca/$1.key" -subj "$2" \
    -days "$4" -set_serial "$5" -sha256 -extensions root -out "$ca/$1.pem"
}

issue() { # issue NAME SUBJECT ISSUER NOTBEFORE DAYS SERIAL EXTFILE SECTION
  key "$1"
  openssl req -new -config "$work/req.cnf" -key "$ca/$1.key" -subj "$2" -out "$work/$1.csr"
  at "$4" openssl x509 -req -in "$work/$1.csr" -CA "$ca/$3.pem" -CAkey "$ca/$3.key" -set_serial "$6" \
    -days "$5" -sha256 -extfile "$7" -extensions "$8" -out "$ca/$1.pem" 2>/dev/null
}

leaf() { # leaf NAME PASSTYPEID NOTBEFORE DAYS SERIAL [ISSUER] [plain]
  local name="$1" ptid="$2" issuer="${6:-wwdr}" kind="${7:-apple}"
  {
    echo "[ leaf ]"
    echo "basicConstraints = critical, CA:FALSE"
    echo "keyUsage = critical, digitalSignature"
    echo "subjectKeyIdentifier = hash"
    echo "authorityKeyIdentifier = keyid"
    if [[ $kind == apple ]]; then
      # Apple's Pass Type ID certificates: EKU clientAuth + Passbook signing, the card-issuer
      # marker holding the pass type identifier as a UTF8String, the APNs production marker.
      echo "extendedKeyUsage = clientAuth, 1.2.840.113635.100.4.14"
      echo "1.2.840.113635.100.6.1.16 = ASN1:UTF8String:$ptid"
      echo "1.2.840.113635.100.6.3.2 = ASN1:NULL"
    else
      echo "extendedKeyUsage = clientAuth"
    fi
  } >"$work/$name.ext"
  issue "$name" "/UID=$ptid/CN=Pass Type ID: $ptid/OU=$TEAM/O=Passconduit Samples/C=US" \
    "$issuer" "$3" "$4" "$5" "$work/$name.ext" leaf
}

echo "make-passes.sh: certificates" >&2
selfsigned root "/CN=Passconduit Test Root CA/OU=Passconduit Test Certification Authority/O=Passconduit Samples/C=US" \
  "2020-01-01 00:00:00" 9131 1
issue wwdr "/CN=Passconduit Test Worldwide Developer Relations CA/OU=G4/O=Passconduit Samples/C=US" \
  root "2020-01-01 00:00:00" 7305 2 "$work/ca.ext" wwdr
# A second, unrelated root that is never handed out as an anchor: its passes are intact but untrusted.
selfsigned other-root "/CN=Unknown Issuer Root CA/O=Not Trusted Anywhere/C=US" "2020-01-01 00:00:00" 9131 3

# The leaves outlive the sample passes' dates (2037) and end before the intermediate (2040):
# Tests/EndToEndTests/SampleFreshnessTests fails a year before any of them expires.
leaf event      pass.org.passconduit.event      "2026-01-01 00:00:00" 5110 101
leaf boarding   pass.org.passconduit.boarding   "2026-01-01 00:00:00" 5110 102
leaf coupon     pass.org.passconduit.coupon     "2026-01-01 00:00:00" 5110 103
leaf storecard  pass.org.passconduit.storecard  "2026-01-01 00:00:00" 5110 104
leaf generic    pass.org.passconduit.generic    "2026-01-01 00:00:00" 5110 105
# Valid 2025-01-01 .. 2025-06-30: passes signed 2025-03-01 are fine (expired since, a note).
leaf expiring   pass.org.passconduit.expiring   "2025-01-01 00:00:00" 180 106
# Valid 2024-01-01 .. 2024-06-29: passes signed 2025-03-01 were signed with an expired certificate.
leaf expired    pass.org.passconduit.expired    "2024-01-01 00:00:00" 180 107
# No Apple extensions (no 1.2.840.113635.100.6.1.16, no Passbook EKU): fine under a user anchor,
# refused when the anchor is an Apple root.
leaf plain      pass.org.passconduit.plain      "2026-01-01 00:00:00" 5110 108 wwdr plain
leaf stranger   pass.org.passconduit.generic    "2026-01-01 00:00:00" 5110 109 other-root

cp "$ca/root.pem" "$ca/trust/passconduit-test-root.pem"
cp "$ca/wwdr.pem" "$ca/trust/passconduit-test-wwdr.pem"

cat >"$ca/README.md" <<EOF
# Test CA for passconduit (made by ../make-passes.sh; for tests only)

Shaped like Apple's pass-signing PKI: a root, a WWDR-like intermediate (OU=G4, marker
1.2.840.113635.100.6.2.1), and one Pass Type ID leaf per pass type identifier with subject
\`UID=<passTypeIdentifier>, CN=Pass Type ID: <passTypeIdentifier>, OU=$TEAM\`, EKU clientAuth +
1.2.840.113635.100.4.14 and extension 1.2.840.113635.100.6.1.16 = UTF8String(passTypeIdentifier).
The private keys are committed on purpose. Never add this CA to a real trust store.

| file | what | valid |
|---|---|---|
| root.pem / root.key | Passconduit Test Root CA (self-signed) | 2020-01-01 .. 2045 |
| wwdr.pem / wwdr.key | Passconduit Test Worldwide Developer Relations CA, issued by root | 2020-01-01 .. 2040 |
| other-root.pem / .key | Unknown Issuer Root CA: never an anchor (untrusted passes) | 2020-01-01 .. 2045 |
| event, boarding, coupon, storecard, generic (.pem/.key) | leaves for pass.org.passconduit.<name> | 2026-01-01 .. 2039-12-28 |
| expiring.pem / .key | leaf for pass.org.passconduit.expiring | 2025-01-01 .. 2025-06-30 |
| expired.pem / .key | leaf for pass.org.passconduit.expired | 2024-01-01 .. 2024-06-29 |
| plain.pem / .key | leaf for pass.org.passconduit.plain WITHOUT the Apple extensions/EKU | 2026-01-01 .. 2039-12-28 |
| stranger.pem / .key | leaf for pass.org.passconduit.generic issued by other-root | 2026-01-01 .. 2039-12-28 |

\`trust/\` holds root.pem and wwdr.pem: pass it as \`--trust Samples/ca/trust\`.
EOF

# ---------------------------------------------------------------------------------------------
# Passes
# ---------------------------------------------------------------------------------------------
echo "make-passes.sh: passes" >&2
CA="$ca" OUT="$out" WORK="$work" TEAM="$TEAM" python3 - <<'PY'
import hashlib, json, os, struct, subprocess, zipfile, zlib

CA, OUT, WORK, TEAM = os.environ["CA"], os.environ["OUT"], os.environ["WORK"], os.environ["TEAM"]
V1_TIME = "2026-03-01 10:00:00"   # signing time of the ordinary samples
V2_TIME = "2026-04-01 10:00:00"   # signing time of event-ticket-v2 (an update: same id, signed later)
OLD_TIME = "2025-03-01 10:00:00"  # signing time of the expiring/expired-certificate samples
ZIP_TIME = (2026, 3, 1, 10, 0, 0)
expected = []  # (file, status, error code or "", what it shows)

# ---- images -------------------------------------------------------------------------------
def png(width, height, seed, noise=0):
    """An RGBA PNG: a diagonal gradient, plus deterministic noise when asked (makes it bigger)."""
    state = seed * 2654435761 & 0xFFFFFFFF
    rows = bytearray()
    for y in range(height):
        rows.append(1)
        prev = b"\0\0\0\0"
        for x in range(width):
            r = (x * 255 // max(width - 1, 1) + seed * 40) & 0xFF
            g = (y * 255 // max(height - 1, 1)) & 0xFF
            b = ((x + y) * 3 + seed * 90) & 0xFF
            if noise:
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                r = (r + (state >> 16) % noise) & 0xFF
                g = (g + (state >> 8) % noise) & 0xFF
            px = bytes((r, g, b, 255))
            rows += bytes((px[i] - prev[i]) & 0xFF for i in range(4))  # filter 1 (Sub): gradients compress well
            prev = px
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")

def icons(seed):
    return {"icon.png": png(29, 29, seed), "icon@2x.png": png(58, 58, seed), "icon@3x.png": png(87, 87, seed)}

# ---- pass.json ----------------------------------------------------------------------------
def pass_json(ptid, serial, org, description, style, fields, **extra):
    d = {"formatVersion": 1, "passTypeIdentifier": ptid, "serialNumber": serial, "teamIdentifier": TEAM,
         "organizationName": org, "description": description}
    d.update(extra)
    d[style] = fields
    return d

def dump(d):
    return (json.dumps(d, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

# The event and the flight are in 2037, a year with 2026's calendar (the 12th of June a Friday,
# the 1st of July a Wednesday), so the samples stay current for years; SampleFreshnessTests fails a
# year before they expire. The coupon stays expired (and voided) on purpose.
def event(seat="Row 12, Seat 7", gate="Gate B"):
    return pass_json(
        "pass.org.passconduit.event", "EVT-2026-0001", "Passconduit Arena", "Concert ticket for The Linux Philharmonic",
        "eventTicket", {
            "headerFields": [{"key": "date", "label": "DATE", "value": "2037-06-12T20:00+02:00",
                              "dateStyle": "PKDateStyleMedium", "timeStyle": "PKDateStyleShort"}],
            "primaryFields": [{"key": "event", "label": "EVENT", "value": "The Linux Philharmonic"}],
            "secondaryFields": [{"key": "location", "label": "LOCATION", "value": "Main Hall"},
                                {"key": "entrance", "label": "ENTRANCE", "value": gate,
                                 "changeMessage": "Please use %@."}],
            "auxiliaryFields": [{"key": "seat", "label": "SEAT", "value": seat,
                                 "changeMessage": "Your seat is now %@."},
                                {"key": "price", "label": "PRICE", "value": 49.5, "currencyCode": "EUR"}],
            "backFields": [{"key": "terms", "label": "TERMS AND CONDITIONS",
                            "value": "Admits one. No re-entry. https://passes.example.org/terms",
                            "dataDetectorTypes": ["PKDataDetectorTypeLink"]}],
        },
        relevantDate="2037-06-12T19:00+02:00", expirationDate="2037-06-13T02:00+02:00",
        barcodes=[{"format": "PKBarcodeFormatQR", "message": "EVT-2026-0001|SEAT", "messageEncoding": "iso-8859-1",
                   "altText": "EVT-2026-0001"}],
        backgroundColor="rgb(60, 65, 76)", foregroundColor="rgb(255, 255, 255)", labelColor="rgb(200, 200, 200)",
        logoText="Passconduit Arena",
        webServiceURL="https://passes.example.org/passconduit", authenticationToken="vxwxd7J8AlNNFPS8k0a0FfUFtq0ewzFdc",
        locations=[{"latitude": 52.52, "longitude": 13.405, "relevantText": "Doors open at 19:00."}],
        semantics={"eventName": "The Linux Philharmonic", "venueName": "Passconduit Arena"})

def boarding():
    return pass_json(
        "pass.org.passconduit.boarding", "BP-PC1234-20260701-12A", "Passconduit Air", "Boarding pass PC 1234 Frankfurt to Lisbon",
        "boardingPass", {
            "transitType": "PKTransitTypeAir",
            "headerFields": [{"key": "gate", "label": "GATE", "value": "A26", "changeMessage": "Gate changed to %@."}],
            "primaryFields": [{"key": "origin", "label": "Frankfurt", "value": "FRA"},
                              {"key": "destination", "label": "Lisbon", "value": "LIS"}],
            "secondaryFields": [{"key": "passenger", "label": "PASSENGER", "value": "Ada Lovelace"}],
            "auxiliaryFields": [{"key": "boarding", "label": "BOARDING", "value": "2037-07-01T09:20+02:00",
                                 "timeStyle": "PKDateStyleShort", "row": 0},
                                {"key": "seat", "label": "SEAT", "value": "12A", "row": 1}],
            "backFields": [{"key": "baggage", "label": "BAGGAGE", "value": "1 x 23 kg"}],
        },
        relevantDates=[{"startDate": "2037-07-01T07:00+02:00", "endDate": "2037-07-01T12:00+02:00"}],
        expirationDate="2037-07-02T00:00+02:00",
        barcodes=[{"format": "PKBarcodeFormatPDF417", "message": "M1LOVELACE/ADA       EPC1234 FRALISPC 1234 182Y012A0001 100",
                   "messageEncoding": "iso-8859-1"},
                  {"format": "PKBarcodeFormatQR", "message": "M1LOVELACE/ADA EPC1234", "messageEncoding": "utf-8"}],
        backgroundColor="rgb(0, 51, 102)", foregroundColor="rgb(255, 255, 255)", labelColor="rgb(153, 204, 255)",
        groupingIdentifier="PC1234-20260701",
        semantics={"airlineCode": "PC", "flightNumber": 1234, "departureAirportCode": "FRA",
                   "destinationAirportCode": "LIS"})

def coupon(expires="2026-05-31T23:59+02:00"):
    return pass_json(
        "pass.org.passconduit.coupon", "CPN-SPRING-42", "Passconduit Bakery", "20% off one cake",
        "coupon", {
            "primaryFields": [{"key": "offer", "label": "Any cake", "value": "20% off"}],
            "auxiliaryFields": [{"key": "expires", "label": "EXPIRES", "value": expires,
                                 "dateStyle": "PKDateStyleShort", "isRelative": True}],
            "backFields": [{"key": "fine", "label": "Fine print", "value": "One coupon per visit."}],
        },
        expirationDate=expires, voided=True,
        barcodes=[{"format": "PKBarcodeFormatCode128", "message": "SPRING42", "messageEncoding": "iso-8859-1",
                   "altText": "SPRING42"}],
        backgroundColor="#b45309", foregroundColor="#ffffff")

def storecard():
    return pass_json(
        "pass.org.passconduit.storecard", "CARD-0099-1234", "Passconduit Coffee", "Coffee club card",
        "storeCard", {
            "headerFields": [{"key": "points", "label": "POINTS", "value": 1250, "numberStyle": "PKNumberStyleDecimal"}],
            "primaryFields": [{"key": "balance", "label": "BALANCE", "value": 21.75, "currencyCode": "EUR",
                               "changeMessage": "Your balance is now %@."}],
            "secondaryFields": [{"key": "member", "label": "MEMBER", "value": "Grace Hopper"}],
            "backFields": [{"key": "phone", "label": "CALL US", "value": "+49 30 1234567",
                            "dataDetectorTypes": ["PKDataDetectorTypePhoneNumber"]}],
        },
        barcodes=[{"format": "PKBarcodeFormatAztec", "message": "CARD-0099-1234", "messageEncoding": "iso-8859-1"}],
        backgroundColor="#1e3a8a", foregroundColor="#f8fafc", labelColor="#93c5fd",
        associatedStoreIdentifiers=[123456789], appLaunchURL="passconduit-coffee://card/0099-1234",
        userInfo={"tier": "gold"})

def generic(serial="GEN-0001", **over):
    d = pass_json(
        "pass.org.passconduit.generic", serial, "Passconduit Library", "Library membership card",
        "generic", {
            "primaryFields": [{"key": "member", "label": "MEMBER", "value": "Alan Turing"}],
            "secondaryFields": [{"key": "since", "label": "MEMBER SINCE", "value": "2019-09-01T00:00Z",
                                 "dateStyle": "PKDateStyleLong", "ignoresTimeZone": True}],
            "backFields": [{"key": "hours", "label": "OPENING HOURS", "value": "Mon-Fri 9-18"}],
        },
        barcodes=[{"format": "PKBarcodeFormatQR", "message": serial, "messageEncoding": "iso-8859-1"}],
        backgroundColor="rgb(240, 240, 240)", foregroundColor="rgb(20, 20, 20)")
    d.update(over)
    return d

def localized():
    return pass_json(
        "pass.org.passconduit.generic", "LOC-0001", "ORG_NAME", "PASS_DESCRIPTION", "generic", {
            "headerFields": [{"key": "level", "label": "LABEL_LEVEL", "value": "VALUE_GOLD",
                              "changeMessage": "CHANGE_LEVEL"}],
            "primaryFields": [{"key": "member", "label": "LABEL_MEMBER", "value": "Marie Curie"}],
            "backFields": [{"key": "note", "label": "LABEL_NOTE", "value": "VALUE_NOTE"}],
        },
        logoText="LOGO_TEXT",
        barcodes=[{"format": "PKBarcodeFormatQR", "message": "LOC-0001", "messageEncoding": "iso-8859-1",
                   "altText": "ALT_TEXT"}])

def strings_text(entries, comment):
    lines = ["/* " + comment + " */", "// generated by make-passes.sh"]
    for k, v in entries:
        lines.append('"%s" = "%s";' % (k, v))
    return "\n".join(lines) + "\n"

EN = [("ORG_NAME", "Passconduit Library"), ("PASS_DESCRIPTION", "Library membership card"),
      ("LOGO_TEXT", "Library"), ("LABEL_LEVEL", "LEVEL"), ("VALUE_GOLD", "Gold"),
      ("CHANGE_LEVEL", "Your level is now %@."), ("LABEL_MEMBER", "MEMBER"),
      ("LABEL_NOTE", "NOTE"), ("VALUE_NOTE", 'Say \\"hello\\"\\nat the desk.'), ("ALT_TEXT", "Member LOC-0001")]
DE = [("ORG_NAME", "Passconduit Bibliothek"), ("PASS_DESCRIPTION", "Bibliotheksausweis"),
      ("LOGO_TEXT", "Bibliothek"), ("LABEL_LEVEL", "STUFE"), ("VALUE_GOLD", "Gold"),
      ("CHANGE_LEVEL", "Deine Stufe ist jetzt %@."), ("LABEL_MEMBER", "MITGLIED"),
      ("LABEL_NOTE", "HINWEIS"), ("VALUE_NOTE", "Bitte an der Theke gr\\U00fc\\U00dfen \\UD83D\\UDCDA"),
      ("ALT_TEXT", "Mitglied LOC-0001")]
FR = [("ORG_NAME", "Biblioth\u00e8que Passconduit"), ("PASS_DESCRIPTION", "Carte de membre de la biblioth\u00e8que"),
      ("LOGO_TEXT", "Biblioth\u00e8que"), ("LABEL_LEVEL", "NIVEAU"), ("VALUE_GOLD", "Or"),
      ("CHANGE_LEVEL", "Votre niveau est maintenant %@."), ("LABEL_MEMBER", "MEMBRE"),
      ("LABEL_NOTE", "NOTE"), ("VALUE_NOTE", "Dites bonjour \\U00e0 l'accueil."), ("ALT_TEXT", "Membre LOC-0001")]

# ---- manifest, signature, zip -------------------------------------------------------------
def manifest_for(files, algo="sha1", upper=False, skip=()):
    m = {}
    for name in sorted(files):
        if name in skip:
            continue
        h = hashlib.new(algo, files[name]).hexdigest()
        m[name] = h.upper() if upper else h
    return (json.dumps(m, indent=2) + "\n").encode()

def sign(manifest, signer, when=V1_TIME, chain=True, extra=()):
    """CMS SignedData over the manifest bytes, made by openssl under a frozen clock."""
    src, sig = os.path.join(WORK, "manifest.json"), os.path.join(WORK, "signature")
    with open(src, "wb") as f:
        f.write(manifest)
    cmd = ["faketime", "-f", when, "openssl", "cms", "-sign", "-binary", "-in", src, "-outform", "DER", "-out", sig,
           "-signer", os.path.join(CA, signer + ".pem"), "-inkey", os.path.join(CA, signer + ".key")]
    if chain:
        issuer = "other-root" if signer == "stranger" else "wwdr"
        cmd += ["-certfile", os.path.join(CA, issuer + ".pem")]
    cmd += list(extra)
    subprocess.run(cmd, check=True)
    with open(sig, "rb") as f:
        return f.read()

def info(name, compress=zipfile.ZIP_DEFLATED, mode=0o644):
    zi = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    zi.compress_type = compress
    zi.create_system = 3
    zi.external_attr = mode << 16
    return zi

def write_zip(path, entries, stored=()):
    """entries: list of (name, bytes[, ZipInfo]) written in order (duplicates allowed)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(path, "w") as z:
            for e in entries:
                name, data = e[0], e[1]
                zi = e[2] if len(e) > 2 else info(name, zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED)
                z.writestr(zi, data)

def build(fname, files, signer, status, code="", shows="", when=V1_TIME, chain=True, sign_extra=(),
          algo="sha1", upper=False, manifest=None, signature=None, order=None, stored=(), extra_entries=(),
          drop=(), after=None):
    """Make one pass: manifest over `files`, a CMS signature, then a zip of files + manifest + signature."""
    files = dict(files)
    m = manifest if manifest is not None else manifest_for(files, algo, upper)
    s = signature if signature is not None else sign(m, signer, when, chain, sign_extra)
    if after:
        files, m, s = after(files, m, s)
    entries = [(n, files[n]) for n in (order or files)]
    entries += [("manifest.json", m), ("signature", s)]
    entries = [e for e in entries if e[0] not in drop] + list(extra_entries)
    write_zip(os.path.join(OUT, fname), entries, stored)
    expected.append((fname, status, code, shows))

def with_icons(pj, seed, **more):
    f = {"pass.json": dump(pj) if isinstance(pj, dict) else pj}
    f.update(icons(seed))
    f.update(more)
    return f

# ---- the good ones --------------------------------------------------------------------------
strip = png(320, 84, 7, noise=4)        # ~25 KB: makes event-ticket a typical ~30 KB pass
build("event-ticket.pkpass", with_icons(event(), 1, **{"logo.png": png(160, 50, 2), "strip@2x.png": strip}),
      "event", "valid", shows="eventTicket; icon icon@3x.png 87x87; a typical ~30 KB pass (the benchmark pass)")
build("event-ticket-v2.pkpass",
      with_icons(event(seat="Row 3, Seat 1", gate="Gate D"), 1, **{"logo.png": png(160, 50, 2), "strip@2x.png": strip}),
      "event", "valid", when=V2_TIME,
      shows="same passTypeIdentifier/serialNumber as event-ticket, seat and entrance changed, signed a month later (an update)")
build("boarding-pass.pkpass", with_icons(boarding(), 3, **{"logo@2x.png": png(320, 100, 4)}), "boarding", "valid",
      shows="boardingPass PKTransitTypeAir, relevantDates, two barcodes; mixed stored/deflated entries",
      stored=("icon.png", "icon@2x.png"))
build("coupon.pkpass", with_icons(coupon(), 5), "coupon", "valid", upper=True, sign_extra=("-md", "sha1"),
      shows="coupon, voided, expired 2026-05-31; manifest digests in UPPER-case hex; CMS digest SHA-1")
build("store-card.pkpass", with_icons(storecard(), 6, **{"logo.png": png(160, 50, 6)}), "storecard", "valid",
      shows="storeCard, hex colours, numbers with currency/number styles")
build("generic.pkpass", with_icons(generic(), 8), "generic", "valid", shows="generic")

loc_files = with_icons(localized(), 9)
loc_files["en.lproj/pass.strings"] = strings_text(EN, "English").encode("utf-8")
loc_files["de.lproj/pass.strings"] = b"\xfe\xff" + strings_text(DE, "Deutsch, UTF-16BE with BOM").encode("utf-16-be")
loc_files["fr.lproj/pass.strings"] = b"\xff\xfe" + strings_text(FR, "Fran\u00e7ais, UTF-16LE with BOM").encode("utf-16-le")
loc_files["de.lproj/icon@2x.png"] = png(58, 58, 10)
build("localized.pkpass", loc_files, "generic", "valid",
      shows="en (UTF-8, no BOM), de (UTF-16BE+BOM, \\U escapes incl. a surrogate pair, localized icon@2x), "
            "fr (UTF-16LE+BOM); every displayed string is a key")

lenient = b"\xef\xbb\xbf" + b"""{
  "formatVersion": 1,
  "passTypeIdentifier": "pass.org.passconduit.generic",
  "serialNumber": "LEN-0001",
  "teamIdentifier": "%s",
  "organizationName": "Passconduit Lenient",
  "description": "A pass Wallet accepts although it is not strict JSON",
  "someFutureKey": {"nested": [1, 2, 3,],},
  "backgroundColor": "rgba(10, 20, 30, 0.5)",
  "foregroundColor": "#FFF",
  "labelColor": "rgb( 200 , 100 , 50 )",
  "barcode": {"format": "PKBarcodeFormatPDF417", "message": "LEN-0001", "messageEncoding": "iso-8859-1",},
  "generic": {
    "primaryFields": [
      {"key": "name", "label": "NAME", "value": "Trailing Comma",},
    ],
  },
}
""" % TEAM.encode()
build("lenient.pkpass", with_icons(lenient, 11), "generic", "valid",
      shows="UTF-8 BOM, trailing commas, unknown keys, rgba()/#rgb colours, only the legacy `barcode`")

build("expired-after-signing.pkpass",
      with_icons(generic(serial="EXP-AFTER", passTypeIdentifier="pass.org.passconduit.expiring"), 12), "expiring",
      "valid", when=OLD_TIME,
      shows="signed 2025-03-01 with a certificate that expired 2025-06-30: valid, with a note")
build("generic-keyid.pkpass", with_icons(generic(serial="GEN-KEYID"), 13), "generic", "valid",
      sign_extra=("-keyid",), shows="signer identified by subject key identifier (CMS v3)")
# Not voided, so current: it expires on 31 May 2037.
build("coupon-embedded.pkpass", with_icons(dict(coupon(expires="2037-05-31T23:59+02:00"), serialNumber="CPN-EMBEDDED", voided=False), 14), "coupon",
      "valid", sign_extra=("-nodetach",), shows="manifest embedded in the signature (eContent), equal to manifest.json")
build("store-card-leaf-only.pkpass", with_icons(dict(storecard(), serialNumber="CARD-LEAF-ONLY"), 15), "storecard",
      "valid", chain=False, shows="signature carries only the leaf; the intermediate comes from the trust store")
build("generic-sha256-manifest.pkpass", with_icons(generic(serial="GEN-SHA256"), 16), "generic", "valid",
      algo="sha256", shows="manifest digests are 64-hex SHA-256")
build("leaf-without-apple-extensions.pkpass",
      with_icons(generic(serial="PLAIN-0001", passTypeIdentifier="pass.org.passconduit.plain"), 17), "plain", "valid",
      shows="leaf lacks 1.2.840.113635.100.6.1.16 and the Passbook EKU: valid under a user anchor; "
            "certificate-mismatch when the anchor gets Apple's rules")
build("with-ds-store.pkpass", with_icons(generic(serial="GEN-DSSTORE"), 18, **{".DS_Store": b"\x00\x00\x00\x01Bud1" + bytes(60)}),
      "generic", "valid", shows=".DS_Store listed in the manifest (common in real passes)")

# ---- one hostile variant per error code ------------------------------------------------------
g = lambda serial, **o: with_icons(generic(serial=serial, **o), 20)

with open(os.path.join(OUT, "bad-not-a-zip.pkpass"), "wb") as f:
    f.write(b"This is not a pass, just text with a .pkpass name.\n")
expected.append(("bad-not-a-zip.pkpass", "invalid", "not-a-zip", "plain text"))

big = g("BAD-TOO-LARGE")
big["strip@2x.png"] = bytes(17 * 1024 * 1024)
build("bad-too-large.pkpass", big, "generic", "invalid", "too-large",
      "strip@2x.png declares 17 MiB (limit 16 MiB per entry); 17 KB on disk")

def move(old, new):
    def f(files, m, s):
        files = dict(files)
        files[new] = files.pop(old)
        return files, manifest_for(files), s
    return f

def unsafe(fname, entry_name, shows, **kw):
    files = g("BAD-UNSAFE")
    files[entry_name] = png(10, 10, 21)
    build(fname, files, "generic", "invalid", "unsafe-archive", shows, **kw)

unsafe("bad-unsafe-archive.pkpass", "../escape.png", "entry named ../escape.png (path traversal)")
unsafe("bad-absolute-path.pkpass", "/etc/escape.png", "entry with an absolute name")
unsafe("bad-backslash-name.pkpass", "..\\escape.png", "entry name with a backslash")
unsafe("bad-nested-folder.pkpass", "images/logo.png", "a file outside the root and *.lproj/ folders")

files = g("BAD-SYMLINK")
build("bad-symlink.pkpass", files, "generic", "invalid", "unsafe-archive", "logo.png is a symbolic link to /etc/passwd",
      extra_entries=[("logo.png", b"/etc/passwd", info("logo.png", zipfile.ZIP_STORED, 0o120777))])
files = g("BAD-DUPLICATE")
build("bad-duplicate-name.pkpass", files, "generic", "invalid", "unsafe-archive", "icon.png twice (second one differs)",
      extra_entries=[("icon.png", png(29, 29, 99))])
files = g("BAD-CASEFOLD")
build("bad-duplicate-casefold.pkpass", files, "generic", "invalid", "unsafe-archive",
      "icon.png and ICON.PNG (same name on a case-insensitive file system)",
      extra_entries=[("ICON.PNG", png(29, 29, 98))])

# Encrypted entry: the general-purpose flag bit 0 (traditional PKWARE encryption) set on pass.json.
build("bad-encrypted.pkpass", g("BAD-ENCRYPTED"), "generic", "invalid", "unsafe-archive",
      "pass.json flagged as encrypted (general purpose bit 0)")
p = os.path.join(OUT, "bad-encrypted.pkpass")
data = bytearray(open(p, "rb").read())
i = 0
while True:  # patch the flag in the local header (PK\3\4) and the central directory (PK\1\2) of pass.json
    i = data.find(b"PK", i)
    if i < 0:
        break
    sig = bytes(data[i:i + 4])
    if sig == b"PK\x03\x04" and data[i + 30:i + 39] == b"pass.json":
        data[i + 6] |= 1
    if sig == b"PK\x01\x02" and data[i + 46:i + 55] == b"pass.json":
        data[i + 8] |= 1
    i += 2
open(p, "wb").write(bytes(data))

build("bad-missing-pass-json.pkpass", {k: v for k, v in g("X").items() if k != "pass.json"}, "generic", "invalid",
      "missing-pass-json", "no pass.json")
build("bad-missing-manifest.pkpass", g("BAD-NO-MANIFEST"), "generic", "invalid", "missing-manifest", "no manifest.json",
      drop=("manifest.json",))
build("bad-missing-signature.pkpass", g("BAD-NO-SIGNATURE"), "generic", "invalid", "missing-signature",
      "no signature file", drop=("signature",))
build("bad-json.pkpass", with_icons(b'{"formatVersion": 1, "description": "cut off here', 20), "generic", "invalid",
      "bad-json", "pass.json is not JSON (truncated)")
no_serial = generic(serial="X")
del no_serial["serialNumber"]
build("bad-missing-required-key.pkpass", with_icons(no_serial, 20), "generic", "invalid", "missing-required-key",
      "pass.json has no serialNumber")
no_style = generic(serial="BAD-NO-STYLE")
del no_style["generic"]
build("bad-no-style.pkpass", with_icons(no_style, 20), "generic", "invalid", "missing-required-key",
      "pass.json has no style key")
no_transit = boarding()
del no_transit["boardingPass"]["transitType"]
no_transit["serialNumber"] = "BAD-NO-TRANSIT"
build("bad-boarding-no-transit-type.pkpass", with_icons(no_transit, 20), "boarding", "invalid", "missing-required-key",
      "boardingPass without transitType")
build("bad-unsupported-format-version.pkpass", g("BAD-FORMAT-2", formatVersion=2), "generic", "invalid",
      "unsupported-format-version", "formatVersion 2")

def edit_pass_json(files, m, s):
    files = dict(files)
    files["pass.json"] = files["pass.json"].replace(b"Alan Turing", b"Mallory Evil")
    return files, m, s
build("bad-manifest-mismatch.pkpass", g("BAD-MISMATCH"), "generic", "invalid", "manifest-mismatch",
      "pass.json edited after signing (SHA-1 differs from the manifest)", after=edit_pass_json)
build("bad-manifest-lists-missing-file.pkpass", g("BAD-LISTED-MISSING"), "generic", "invalid", "manifest-mismatch",
      "manifest lists icon@3x.png, the archive lacks it", drop=("icon@3x.png",))
files = g("BAD-UNLISTED")
build("bad-unlisted-file.pkpass", files, "generic", "invalid", "unlisted-file", "logo.png is not in the manifest",
      extra_entries=[("logo.png", png(160, 50, 22))])
build("bad-macosx-unlisted.pkpass", g("BAD-MACOSX"), "generic", "invalid", "unlisted-file",
      "__MACOSX/._icon.png resource fork not in the manifest",
      extra_entries=[("__MACOSX/._icon.png", b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(40))])

def reformat_manifest(files, m, s):
    return files, m.replace(b"\n", b"\r\n"), s
build("bad-signature-invalid.pkpass", g("BAD-SIGNATURE"), "generic", "invalid", "signature-invalid",
      "manifest.json re-saved with CRLF after signing (hashes still match, signature does not)",
      after=reformat_manifest)
build("bad-signature-garbage.pkpass", g("BAD-SIG-GARBAGE"), "generic", "invalid", "signature-invalid",
      "signature file is not CMS", signature=b"-----BEGIN NOT A SIGNATURE-----\n" + bytes(range(64)))
build("bad-no-signing-time.pkpass", g("BAD-NO-SIGNING-TIME"), "generic", "invalid", "signature-invalid",
      "CMS without signed attributes, so without a signing time (Wallet: 'Signature must contain a signing date')",
      sign_extra=("-noattr",))
other = g("BAD-ECONTENT")
other_manifest = manifest_for(g("SOMETHING-ELSE"))
build("bad-embedded-content-mismatch.pkpass", other, "generic", "invalid", "signature-invalid",
      "signature embeds a different manifest than manifest.json",
      signature=sign(other_manifest, "generic", extra=("-nodetach",)))
build("bad-untrusted-signer.pkpass", g("BAD-UNTRUSTED"), "stranger", "untrusted", "untrusted-signer",
      "intact, signed by a CA nobody trusts (other-root)")
build("bad-certificate-mismatch.pkpass", g("BAD-CERT-MISMATCH"), "coupon", "invalid", "certificate-mismatch",
      "pass.org.passconduit.generic signed with the certificate of pass.org.passconduit.coupon")
build("bad-team-mismatch.pkpass", g("BAD-TEAM", teamIdentifier="OTHERTEAM1"), "generic", "invalid",
      "certificate-mismatch", "teamIdentifier OTHERTEAM1, certificate OU " + TEAM)
build("bad-certificate-expired.pkpass", g("BAD-EXPIRED", passTypeIdentifier="pass.org.passconduit.expired"), "expired",
      "invalid", "certificate-expired", "signed 2025-03-01, certificate expired 2024-06-29", when=OLD_TIME)
build("bad-missing-icon.pkpass", {"pass.json": dump(generic(serial="BAD-NO-ICON")), "logo.png": png(160, 50, 23)},
      "generic", "invalid", "missing-icon", "no icon.png or icon@2x/@3x.png")

build("bad-icon-not-png.pkpass", {"pass.json": dump(generic(serial="BAD-ICON-NOT-PNG")),
                                  "icon.png": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(40)},
      "generic", "invalid", "missing-icon", "icon.png holds JPEG bytes, not a PNG")

# ---- a .pkpasses bundle ----------------------------------------------------------------------
members = ["event-ticket.pkpass", "boarding-pass.pkpass", "coupon.pkpass"]
write_zip(os.path.join(OUT, "bundle.pkpasses"),
          [(m, open(os.path.join(OUT, m), "rb").read(), info(m, zipfile.ZIP_STORED)) for m in members])
expected.append(("bundle.pkpasses", "valid", "", "bundle of " + ", ".join(members) + " (each verified on its own)"))

# ---- README ----------------------------------------------------------------------------------
with open(os.path.join(OUT, "README.md"), "w") as f:
    f.write("# Sample passes (made by ../make-passes.sh; do not edit by hand)\n\n"
            "Signed by the test CA in ../ca (open them with `--trust Samples/ca/trust`). Signing times: "
            "%s UTC (ordinary), %s UTC (event-ticket-v2), %s UTC (expiring/expired certificates).\n"
            "Team identifier of every test certificate: %s.\n\n"
            "| file | status | error code | what it shows |\n|---|---|---|---|\n" % (V1_TIME, V2_TIME, OLD_TIME, TEAM))
    for name, status, code, shows in expected:
        f.write("| %s | %s | %s | %s |\n" % (name, status, code or "-", shows))
print("make-passes.sh: %d files in %s" % (len(expected), OUT))
PY
