#!/usr/bin/env python3
"""Make Samples/messages/charsets.mbox and charsets.json: one message per charset mail uses, each
carrying the signed sample pass generic.pkpass under a file name in that charset, with the subject
in that charset too.

The bytes come from Python's own codecs (an implementation independent of glibc iconv, which
passconduit uses), so the expected text in charsets.json is what the sender meant. Subjects are RFC
2047 B or Q words, split into several words (each word whole characters, as RFC 2047 §5 asks; each
ISO-2022 word ends in ASCII) over folded lines; file names are RFC 2047 words in a quoted name=
(B or Q) or RFC 2231 `filename*=charset''%XX` continuations.

    python3 Samples/make-charset-messages.py [--passes DIR] [--out DIR]

Expected text is NFC: glibc composes Windows-1258's combining tone marks, Python's codec keeps
them decomposed (the same text by Unicode canonical equivalence).

The output is committed; rerun it when Samples/passes/generic.pkpass changes.
"""
import argparse, base64, json, os, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
DATE = "Sat, 21 Nov 2026 09:30:00 +0000"

# (charset label as mailed, Python codec, subject, file name stem)
CASES = [
    ("GB2312", "gb2312", "您的登机牌：北京－上海 航班", "登机牌"),
    ("GBK", "gbk", "朱镕基 登机牌 航班确认", "镕登机牌"),
    ("GB18030", "gb18030", "登机牌 𠀀 欧元€ 行程单", "行程单𠀀"),
    ("Big5", "big5", "您的登機證：台北—高雄", "登機證"),
    ("Big5-HKSCS", "big5hkscs", "香港登機證 嘅 航班", "嘅登機證"),
    ("EUC-KR", "euc_kr", "탑승권 안내: 서울 - 부산", "탑승권"),
    ("ks_c_5601-1987", "cp949", "모바일 탑승권 도착", "모바일탑승권"),
    ("ISO-2022-KR", "iso2022_kr", "탑승권 안내 서울 부산", "탑승권"),
    ("EUC-JP", "euc_jp", "搭乗券のご案内（東京・大阪）", "搭乗券"),
    ("ISO-2022-JP", "iso2022_jp", "搭乗券のご案内 東京 大阪", "搭乗券"),
    ("Shift_JIS", "shift_jis", "ｅチケット 搭乗券のご案内", "搭乗券ｅチケット"),
    ("KOI8-R", "koi8_r", "Ваш посадочный талон: Москва - Казань", "Посадочный талон"),
    ("KOI8-U", "koi8_u", "Ваш посадковий талон: Київ - Львів, ґанок", "Посадковий талон"),
    ("windows-1251", "cp1251", "Ваш билет: София — Варна", "Билет"),
    ("TIS-620", "tis_620", "บัตรขึ้นเครื่อง กรุงเทพฯ", "บัตรขึ้นเครื่อง"),
    ("windows-1258", "cp1258", "Vé máy bay của bạn: Đà Nẵng", "Vé máy bay"),
    ("ISO-8859-1", "iso8859_1", "Votre carte d'embarquement – Zürich à Genève".replace("–", "-"), "Carte d'embarquement Zürich"),
    ("ISO-8859-2", "iso8859_2", "Karta pokładowa: Łódź — Kraków".replace("—", "-"), "Karta pokładowa Łódź"),
    ("ISO-8859-3", "iso8859_3", "Biljett għall-imbark: Ħamrun", "Ħamrun biljett"),
    ("ISO-8859-4", "iso8859_4", "Iekāpšanas karte: Rīga — Liepāja".replace("—", "-"), "Iekāpšanas karte"),
    ("ISO-8859-5", "iso8859_5", "Посадочный талон: Москва", "Талон"),
    ("ISO-8859-6", "iso8859_6", "بطاقة الصعود: دبي", "بطاقة"),
    ("ISO-8859-7", "iso8859_7", "Κάρτα επιβίβασης: Αθήνα", "Κάρτα επιβίβασης"),
    ("ISO-8859-8", "iso8859_8", "כרטיס עלייה למטוס: תל אביב", "כרטיס"),
    ("ISO-8859-9", "iso8859_9", "Biniş kartınız: İstanbul — Iğdır".replace("—", "-"), "Biniş kartı"),
    ("ISO-8859-10", "iso8859_10", "Brottfararspjald: Þórshöfn", "Þórður spjald"),
    ("ISO-8859-11", "iso8859_11", "บัตรขึ้นเครื่อง ภูเก็ต", "บัตร"),
    ("ISO-8859-13", "iso8859_13", "Įlaipinimo kortelė: Vilnius — Šiauliai".replace("—", "-"), "Įlaipinimo kortelė"),
    ("ISO-8859-14", "iso8859_14", "Tocyn byrddio: Caerdydd ŵ ŷ", "Tocyn ŵ"),
    ("ISO-8859-15", "iso8859_15", "Carte d'embarquement 120 € Œuvre", "Billet 120 €"),
    ("ISO-8859-16", "iso8859_16", "Tichet de îmbarcare: București", "Tichet București"),
]


def b64(data):
    text = base64.b64encode(data).decode("ascii")
    return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))


def chunks(text, n):
    """`text` cut into `n` pieces of whole characters."""
    size = max(1, -(-len(text) // n))
    return [text[i:i + size] for i in range(0, len(text), size)]


def q_encode(data):
    out = ""
    for b in data:
        if b == 0x20:
            out += "_"
        elif 0x30 <= b <= 0x39 or 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A:
            out += chr(b)
        else:
            out += "=%02X" % b
    return out


def encode(text, codec):
    """`text` in `codec`; a character the charset lacks as one code (Vietnamese tone marks in
    Windows-1258) is written decomposed, base letter plus combining mark, as Vietnamese mail does."""
    out = b""
    for ch in text:
        try:
            out += ch.encode(codec)
        except UnicodeEncodeError:
            # "ẵ" -> "ă" (0xE3) + combining tilde (0xDE): the base keeps the marks the charset has.
            nfd = unicodedata.normalize("NFD", ch)
            out += unicodedata.normalize("NFC", nfd[:-1]).encode(codec) + nfd[-1].encode(codec)
    return out


def words(label, codec, text, kind, pieces):
    """RFC 2047 words for `text`, one per piece, each piece encoded on its own."""
    out = []
    for piece in chunks(text, pieces):
        data = encode(piece, codec)
        if kind == "B":
            out.append("=?%s?B?%s?=" % (label, base64.b64encode(data).decode("ascii")))
        else:
            out.append("=?%s?Q?%s?=" % (label, q_encode(data)))
    return out


def rfc2231(label, codec, text, sections):
    """RFC 2231 `filename*N*=` sections, each whole characters (Python's email decodes every
    section on its own, so a character cut between sections would differ for a reason that is
    not about charsets)."""
    lines = []
    for k, piece in enumerate(chunks(text, sections)):
        data = encode(piece, codec)
        enc = "".join(chr(b) if (0x30 <= b <= 0x39 or 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A or b in b".-_")
                      else "%%%02X" % b for b in data)
        prefix = "%s''" % label if k == 0 else ""
        lines.append(" filename*%d*=%s%s" % (k, prefix, enc))
    return ";\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", default=os.path.join(HERE, "passes"))
    ap.add_argument("--out", default=os.path.join(HERE, "messages"))
    args = ap.parse_args()
    with open(os.path.join(args.passes, "generic.pkpass"), "rb") as f:
        pkpass = f.read()

    mbox, expected = [], []
    n = 0
    for label, codec, subject, stem in CASES:
        for variant in ("B", "Q"):
            n += 1
            kind = variant
            filename = stem + ".pkpass"
            subject_words = words(label, codec, subject, kind, 3)
            # Plain text before the words, the words over folded lines (CRLF-free mbox: LF).
            subject_line = "Subject: [%s] " % label + "\n ".join(subject_words)
            msgid = "charset-%d-%s@passconduit.example" % (n, label.lower())
            if variant == "B":
                # RFC 2047 words (two of them, folded) inside quoted filename= and name= values.
                fw = "\n ".join(words(label, codec, filename, "B", 2))
                disposition = 'attachment;\n filename="%s"' % fw
                ctype = 'application/vnd.apple.pkpass;\n name="%s"' % fw
            else:
                # RFC 2231 continuations in the charset (Q-style percent escapes).
                disposition = "attachment;\n" + rfc2231(label, codec, filename, 3)
                ctype = "application/vnd.apple.pkpass"
            lines = [
                "From MAILER-DAEMON Sat Nov 21 09:30:00 2026",
                "From: Passconduit Air <checkin@air.example.org>",
                "To: Ana Lima <ana@example.net>",
                subject_line,
                "Date: " + DATE,
                "Message-ID: <%s>" % msgid,
                "MIME-Version: 1.0",
                'Content-Type: multipart/mixed; boundary="=_cs_%d"' % n,
                "",
                "--=_cs_%d" % n,
                "Content-Type: text/plain; charset=%s" % label,
                "Content-Transfer-Encoding: base64",
                "",
                b64(encode("%s\n" % subject, codec)),
                "",
                "--=_cs_%d" % n,
                "Content-Type: " + ctype,
                "Content-Disposition: " + disposition,
                "Content-Transfer-Encoding: base64",
                "",
                b64(pkpass),
                "",
                "--=_cs_%d--" % n,
                "",
            ]
            mbox.append("\n".join(lines))
            expected.append({"charset": label, "variant": variant, "messageID": msgid,
                             "subject": unicodedata.normalize("NFC", "[%s] %s" % (label, subject)),
                             "filename": unicodedata.normalize("NFC", filename)})
    with open(os.path.join(args.out, "charsets.mbox"), "w", encoding="ascii") as f:
        f.write("\n".join(mbox))
    with open(os.path.join(args.out, "charsets.json"), "w", encoding="utf-8") as f:
        json.dump({"about": "Expected subject and file name of each message of charsets.mbox "
                            "(made by Samples/make-charset-messages.py from Python's codecs).",
                   "messages": expected}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print("wrote %d messages" % len(expected))


if __name__ == "__main__":
    main()
