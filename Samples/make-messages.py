#!/usr/bin/env python3
"""Make Samples/messages/ from Samples/passes/ (made by make-passes.sh).

Every message shape passconduit must handle, with deterministic bytes (fixed dates, boundaries
and Message-IDs) so tests can compare results field by field. Run from anywhere:

    python3 Samples/make-messages.py [--passes DIR] [--out DIR]

The output is committed; rerun this whenever Samples/passes/ changes. What each file shows is
written to messages/README.md by this script.
"""
import argparse
import base64
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATE = "Sat, 21 Nov 2026 09:30:00 +0000"


def b64(data):
    text = base64.b64encode(data).decode("ascii")
    return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))


def qp(text):
    """Quoted-printable (RFC 2045 6.7) of UTF-8 text, soft line breaks at 76."""
    out_lines = []
    for line in text.split("\n"):
        enc = ""
        for byte in line.encode("utf-8"):
            ch = chr(byte)
            if byte == 0x3D or byte > 0x7E or (byte < 0x20 and byte != 0x09):
                enc += "=%02X" % byte
            else:
                enc += ch
        if enc.endswith(" ") or enc.endswith("\t"):
            enc = enc[:-1] + "=%02X" % ord(enc[-1])
        while len(enc) > 75:
            cut = 75
            # never split an =XX escape
            if enc[cut - 1] == "=":
                cut -= 1
            elif enc[cut - 2] == "=":
                cut -= 2
            out_lines.append(enc[:cut] + "=")
            enc = enc[cut:]
        out_lines.append(enc)
    return "\n".join(out_lines)


def headers(subject, msgid, extra=(), sender="Passconduit Arena <tickets@arena.example.org>",
            to="Ana Lima <ana@example.net>", date=DATE):
    lines = [
        "From: " + sender,
        "To: " + to,
        "Subject: " + subject,
        "Date: " + date,
        "Message-ID: <" + msgid + "@passconduit.example>",
        "MIME-Version: 1.0",
    ]
    lines.extend(extra)
    return "\n".join(lines)


def text_part(text):
    return "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 7bit\n\n" + text + "\n"


def attachment(data, content_type, disposition=None, encoding="base64"):
    head = "Content-Type: " + content_type + "\n"
    if disposition:
        head += "Content-Disposition: " + disposition + "\n"
    head += "Content-Transfer-Encoding: " + encoding + "\n\n"
    return head + b64(data) + "\n"


def multipart(boundary, parts, subtype="mixed", preamble="This is a multi-part message in MIME format.\n"):
    body = "Content-Type: multipart/" + subtype + "; boundary=\"" + boundary + "\"\n\n" + preamble
    for part in parts:
        body += "\n--" + boundary + "\n" + part
    body += "\n--" + boundary + "--\n"
    return body


def message(head, body_with_headers):
    # body_with_headers starts with the entity's own Content-* lines
    return head + "\n" + body_with_headers


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", default=os.path.join(HERE, "passes"))
    parser.add_argument("--out", default=os.path.join(HERE, "messages"))
    args = parser.parse_args()

    def pkpass(name):
        with open(os.path.join(args.passes, name), "rb") as f:
            return f.read()

    event = pkpass("event-ticket.pkpass")
    event_v2 = pkpass("event-ticket-v2.pkpass")
    boarding = pkpass("boarding-pass.pkpass")
    coupon = pkpass("coupon.pkpass")
    store = pkpass("store-card.pkpass")
    generic = pkpass("generic.pkpass")
    bundle = pkpass("bundle.pkpasses")
    untrusted = pkpass("bad-untrusted-signer.pkpass")
    invalid = pkpass("bad-manifest-mismatch.pkpass")

    files = {}   # relative path -> (text, description)

    def add(path, text, what):
        files[path] = (text, what)

    greeting = "Hello Ana,\n\nyour pass is attached. Open it on your phone or add it with passconduit.\n"

    add("type.eml", message(
        headers("Your ticket for The Linux Philharmonic", "type-1"),
        multipart("=_b1_type", [
            text_part(greeting),
            attachment(event, "application/vnd.apple.pkpass; name=\"ticket.pkpass\"",
                       "attachment; filename=\"ticket.pkpass\""),
        ])),
        "event-ticket.pkpass as application/vnd.apple.pkpass with a .pkpass name (part 2)")

    add("type-only.eml", message(
        headers("Your coupon", "type-only-1", sender="Passconduit Deli <deals@deli.example.org>"),
        multipart("=_b1_typeonly", [
            text_part(greeting),
            attachment(coupon, "Application/VND.Apple.PKPass (Wallet pass)", "attachment"),
        ])),
        "coupon.pkpass labelled only by a mixed-case Content-Type with a comment, no name (part 2)")

    add("name-only.eml", message(
        headers("Boarding pass PC 123", "name-only-1", sender="Passconduit Air <checkin@air.example.org>"),
        multipart("=_b1_name", [
            text_part("Your boarding pass is attached.\n"),
            attachment(boarding, "application/octet-stream; name=\"BoardingPass.PKPASS\"",
                       "attachment; filename=\"BoardingPass.PKPASS\""),
        ])),
        "boarding-pass.pkpass as application/octet-stream, recognised by its upper-case .PKPASS name (part 2)")

    add("content-only.eml", message(
        headers("Your coupon (no name)", "content-only-1", sender="Passconduit Deli <deals@deli.example.org>"),
        multipart("=_b1_content", [
            text_part("A coupon for you.\n"),
            attachment(coupon, "application/octet-stream", "attachment"),
        ])),
        "coupon.pkpass with no name and a generic type: found by its content only (part 2)")

    add("zip-named.eml", message(
        headers("Loyalty card", "zip-named-1", sender="Passconduit Store <club@store.example.org>"),
        multipart("=_b1_zip", [
            text_part("Your loyalty card.\n"),
            attachment(store, "application/zip; name=\"card.zip\"", "attachment; filename=\"card.zip\""),
        ])),
        "store-card.pkpass mislabelled application/zip named card.zip: found by content (part 2)")

    add("rfc2231-name.eml", message(
        headers("Kundenkarte", "rfc2231-1", sender="Passconduit Store <club@store.example.org>"),
        multipart("=_b1_2231", [
            text_part("Ihre Kundenkarte.\n"),
            attachment(store, "application/octet-stream",
                       "attachment;\n filename*0*=UTF-8''Kundenkarte%20M%C3%BC;\n filename*1*=nchen.pkpass"),
        ])),
        "store-card.pkpass named by an RFC 2231 continued, percent-encoded filename* (\"Kundenkarte München.pkpass\", part 2)")

    add("rfc2047-name.eml", message(
        headers("=?UTF-8?Q?Mitgliedskarte_f=C3=BCr_Ana?=", "rfc2047-1", sender="Passconduit Club <club@example.org>"),
        multipart("=_b1_2047", [
            text_part("Willkommen.\n"),
            attachment(generic, "application/octet-stream; name=\"=?UTF-8?B?TWl0Z2xpZWRza2FydGUucGtwYXNz?=\"",
                       "attachment; filename=\"=?UTF-8?B?TWl0Z2xpZWRza2FydGUucGtwYXNz?=\""),
        ])),
        "generic.pkpass named by an RFC 2047 encoded word (\"Mitgliedskarte.pkpass\"); RFC 2047 subject (part 2)")

    inner = message(
        headers("Your ticket for The Linux Philharmonic", "forwarded-inner-1", date="Fri, 20 Nov 2026 18:00:00 +0000"),
        multipart("=_b2_inner", [
            text_part(greeting),
            attachment(event, "application/vnd.apple.pkpass", "attachment; filename=\"ticket.pkpass\""),
        ]))
    add("forwarded.eml", message(
        headers("Fwd: Your ticket for The Linux Philharmonic", "forwarded-1", sender="Bruno <bruno@example.net>"),
        multipart("=_b1_fwd", [
            text_part("Ana, here is the ticket I got for you.\n"),
            "Content-Type: message/rfc822\nContent-Disposition: inline\n\n" + inner,
        ])),
        "a message/rfc822 (part 2) that carries event-ticket.pkpass: part 2.2")

    add("two-passes.eml", message(
        headers("Your trip: boarding pass and coupon", "two-1", sender="Passconduit Air <checkin@air.example.org>"),
        multipart("=_b1_two", [
            text_part("Two passes for your trip.\n"),
            attachment(boarding, "application/vnd.apple.pkpass", "attachment; filename=\"boarding.pkpass\""),
            attachment(coupon, "application/vnd.apple.pkpass", "attachment; filename=\"coupon.pkpass\""),
        ])),
        "boarding-pass.pkpass (part 2) and coupon.pkpass (part 3)")

    add("bundle.eml", message(
        headers("Your passes", "bundle-1"),
        multipart("=_b1_bundle", [
            text_part("Three passes in one file.\n"),
            attachment(bundle, "application/vnd.apple.pkpasses", "attachment; filename=\"passes.pkpasses\""),
        ])),
        "bundle.pkpasses (event ticket, boarding pass, coupon) as application/vnd.apple.pkpasses (part 2)")

    html = ("<html><body><p>Gr\u00fc\u00dfe aus der Arena! Your ticket = your entry; doors open at 19:00.</p>"
            "<p>This paragraph is long enough that quoted-printable has to break it with soft line breaks, "
            "which a parser must join again.</p></body></html>")
    plain = ("Gr\u00fc\u00dfe aus der Arena! Your ticket = your entry; doors open at 19:00.\n"
             "This paragraph is long enough that quoted-printable has to break it with soft line breaks, "
             "which a parser must join again.")
    alternative = multipart("=_b2_alt", [
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n" + qp(plain) + "\n",
        "Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n" + qp(html) + "\n",
    ], subtype="alternative", preamble="")
    add("quoted-printable.eml", message(
        headers("Your ticket (HTML mail)", "qp-1"),
        multipart("=_b1_qp", [
            alternative,
            attachment(event, "application/vnd.apple.pkpass", "attachment; filename=\"ticket.pkpass\""),
        ])),
        "multipart/alternative of quoted-printable text and HTML (part 1), then event-ticket.pkpass (part 2)")

    add("update.eml", message(
        headers("Your ticket has changed", "update-1", date="Wed, 01 Apr 2026 10:05:00 +0000"),
        multipart("=_b1_update", [
            text_part("Your seat and entrance have changed. The new ticket is attached.\n"),
            attachment(event_v2, "application/vnd.apple.pkpass", "attachment; filename=\"ticket.pkpass\""),
        ])),
        "event-ticket-v2.pkpass: same pass as type.eml, signed a month later (an update)")

    add("untrusted.eml", message(
        headers("Your membership card", "untrusted-1", sender="Unknown Club <club@unknown.example.com>"),
        multipart("=_b1_untrusted", [
            text_part("Your card.\n"),
            attachment(untrusted, "application/vnd.apple.pkpass", "attachment; filename=\"card.pkpass\""),
        ])),
        "bad-untrusted-signer.pkpass: intact but signed by a CA nobody trusts (untrusted)")

    add("invalid.eml", message(
        headers("Your card (edited)", "invalid-1", sender="Unknown Club <club@unknown.example.com>"),
        multipart("=_b1_invalid", [
            text_part("Your card.\n"),
            attachment(invalid, "application/vnd.apple.pkpass", "attachment; filename=\"card.pkpass\""),
        ])),
        "bad-manifest-mismatch.pkpass: pass.json edited after signing (invalid, manifest-mismatch)")

    with open(os.path.join(HERE, "..", "Tests", "ConduitTests", "Fixtures", "icon.png"), "rb") as f:
        png = f.read()
    add("no-pass.eml", message(
        headers("Photos from the concert", "no-pass-1", sender="Bruno <bruno@example.net>"),
        multipart("=_b1_nopass", [
            text_part("No pass here, only a picture.\n"),
            attachment(png, "image/png; name=\"photo.png\"", "attachment; filename=\"photo.png\""),
        ])),
        "a text part and a PNG: no pass (scan exits 1)")

    # CRLF variant of two-passes.eml
    add("two-passes-crlf.eml", files["two-passes.eml"][0].replace("\n", "\r\n"),
        "two-passes.eml with CRLF line endings")

    # mbox: mboxrd-style From_ lines, a body line that needs '>From ' quoting
    mbox = ""
    mbox_parts = [
        ("tickets@arena.example.org", "Fri Nov 20 08:00:00 2026", message(
            headers("Newsletter", "mbox-1"), text_part("From the arena: nothing to carry today.\n"))),
        ("checkin@air.example.org", "Fri Nov 20 09:00:00 2026", files["name-only.eml"][0]),
        ("bruno@example.net", "Fri Nov 20 10:00:00 2026", message(
            headers("Re: plans", "mbox-3", sender="Bruno <bruno@example.net>"),
            text_part("See you there.\n>From the look of it, it will be fun.\nFrom now on I'll send tickets.\n"))),
        ("deals@deli.example.org", "Fri Nov 20 11:00:00 2026", files["two-passes.eml"][0]),
    ]
    for sender, when, text in mbox_parts:
        quoted = []
        for line in text.split("\n"):
            stripped = line.lstrip(">")
            quoted.append(">" + line if stripped.startswith("From ") else line)
        body = "\n".join(quoted)
        if not body.endswith("\n"):
            body += "\n"
        mbox += "From " + sender + " " + when + "\n" + body + "\n"
    add("inbox.mbox", mbox,
        "mbox of 4 messages: 1 no pass, 2 boarding pass by name (part 2), 3 no pass with '>From ' quoting, "
        "4 boarding pass + coupon (parts 2 and 3)")

    # Maildir: cur/ and new/ are read, tmp/ never (a message being delivered)
    add("Maildir/new/1763717400.M1P100.example,S=1000", files["type.eml"][0],
        "Maildir new/: type.eml (event ticket)")
    add("Maildir/cur/1763631000.M1P100.example:2,S", files["no-pass.eml"][0],
        "Maildir cur/: no-pass.eml")
    add("Maildir/cur/1763631100.M2P100.example:2,RS", files["type-only.eml"][0],
        "Maildir cur/: type-only.eml (coupon)")
    add("Maildir/tmp/1763717500.M3P100.example", files["bundle.eml"][0],
        "Maildir tmp/: bundle.eml, still being delivered: must NOT be scanned")

    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    for path, (text, _) in sorted(files.items()):
        full = os.path.join(args.out, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(text.encode("utf-8"))

    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("# Sample messages (made by ../make-messages.py from ../passes; do not edit by hand)\n\n")
        f.write("Open the passes with `--trust Samples/ca/trust`. Dates, boundaries and Message-IDs are fixed,\n")
        f.write("so the bytes only change when the passes do.\n\n| file | what it shows |\n|---|---|\n")
        for path, (_, what) in sorted(files.items()):
            f.write("| `" + path + "` | " + what + " |\n")
        f.write("| `charsets.mbox`, `charsets.json` | generic.pkpass under subjects and names in 31 charsets, "
                "and the text each must decode to (made by ../make-charset-messages.py) |\n")
    print("wrote %d files to %s" % (len(files) + 1, args.out))
    # The folder was emptied above: remake the charset messages that live in it too.
    import subprocess
    subprocess.run([sys.executable, os.path.join(HERE, "make-charset-messages.py"), "--passes", args.passes,
                    "--out", args.out], check=True)


if __name__ == "__main__":
    sys.exit(main())
