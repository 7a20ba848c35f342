#!/usr/bin/env python3
"""Writes a deterministic mbox of realistic mail for the MIME benchmark.

usage: generate_mbox.py OUT.mbox [--size-mb 1100] [--seed 7]

The mix (by message count): plain text (QP or 8bit), text+HTML alternatives, mixed messages with
JPEG/PNG images (base64), messages with a .pkpass attachment (a real zip made by zipfile, sometimes
only named .pkpass with application/octet-stream), forwarded messages (message/rfc822), and a few
newsletters with long HTML. Headers carry Received chains, DKIM signatures, RFC 2047 subjects and
RFC 2231 file names. Bodies that start with "From " are mboxrd-quoted.
"""
import argparse, base64, io, os, random, zipfile, quopri, email.utils, time

WORDS = ("ticket boarding pass gate seat flight train coach departure arrival platform booking reference "
         "passenger loyalty member points event concert stadium entrance row section order receipt "
         "invoice payment thank you for your purchase please find attached details below regards team "
         "the a of to and in is it you that was for on are with as his they be at one have this from").split()
NAMES = ["Alice Martin", "Bob Schäfer", "Chloé Dubois", "Dmitri Ivanov", "Eva Nováková", "Fatima Zahra", "Götz Müller", "Hana Sato"]
DOMAINS = ["example.com", "mail.example.org", "airline.example", "rail.example.net", "tickets.example"]


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def paragraph_text(rng, lines):
    out = []
    for _ in range(lines):
        line = words(rng, rng.randint(6, 14))
        out.append(line[0].upper() + line[1:] + ".")
    return "\n".join(out)


def encoded_subject(rng, text):
    if rng.random() < 0.3:
        return "=?UTF-8?B?" + base64.b64encode(("✈ " + text).encode()).decode() + "?="
    return text


def make_zip(rng, size):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("pass.json", '{"formatVersion":1,"passTypeIdentifier":"pass.example.ticket","serialNumber":"%d","teamIdentifier":"ABCDE12345","organizationName":"Example","description":"Ticket"}' % rng.randint(1, 10**9))
        z.writestr("manifest.json", '{"pass.json":"%040x"}' % rng.getrandbits(160))
        z.writestr("icon.png", rng.randbytes(size // 2))
        z.writestr("logo.png", rng.randbytes(size // 2))
        z.writestr("signature", rng.randbytes(3000))
    return buf.getvalue()


def b64(data):
    return base64.encodebytes(data).decode()


class Gen:
    def __init__(self, rng):
        self.rng = rng
        # Pools of binary payloads so generation stays fast; every message still gets its own headers/text.
        self.images = [(b"\xff\xd8\xff\xe0" + rng.randbytes(rng.randint(40_000, 600_000)), "jpeg") for _ in range(24)]
        self.images += [(b"\x89PNG\r\n\x1a\n" + rng.randbytes(rng.randint(2_000, 60_000)), "png") for _ in range(24)]
        self.passes = [make_zip(rng, rng.randint(20_000, 120_000)) for _ in range(16)]

    def headers(self, n, subject, content_type_lines):
        rng = self.rng
        frm = rng.choice(NAMES)
        dom = rng.choice(DOMAINS)
        date = email.utils.formatdate(1_700_000_000 + n * 37, localtime=False)
        h = []
        for hop in range(rng.randint(2, 6)):
            h.append(f"Received: from mx{hop}.{dom} (mx{hop}.{dom} [192.0.2.{hop + 1}])\n\tby mail.example.net with ESMTPS id {rng.getrandbits(48):x}\n\tfor <you@example.net>; {date}")
        if rng.random() < 0.7:
            sig = base64.b64encode(rng.randbytes(128)).decode()
            h.append(f"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d={dom}; s=s1;\n\th=from:to:subject:date:message-id; bh={base64.b64encode(rng.randbytes(32)).decode()};\n\tb={sig[:70]}\n\t {sig[70:]}")
        name = frm if frm.isascii() else "=?UTF-8?Q?" + quopri.encodestring(frm.encode(), header=True).decode() + "?="
        h += [f"From: {name} <{frm.split()[0].lower()}@{dom}>", "To: You <you@example.net>",
              f"Subject: {encoded_subject(rng, subject)}", f"Date: {date}",
              f"Message-ID: <{n}.{rng.getrandbits(40):x}@{dom}>", "MIME-Version: 1.0"]
        h += content_type_lines
        return "\n".join(h) + "\n\n"

    def text_part(self, lines):
        rng = self.rng
        text = paragraph_text(rng, lines) + "\nGrüße aus München, à bientôt.\n"
        if rng.random() < 0.5:
            return ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: quoted-printable"], quopri.encodestring(text.encode()).decode()
        return ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"], text

    def html_part(self, lines):
        rng = self.rng
        body = "<html><head><style>p{margin:0}</style></head><body>\n" + "\n".join(
            f"<p class=\"c{rng.randint(1, 9)}\">{words(rng, rng.randint(8, 20))}</p>" for _ in range(lines)) + "\n</body></html>\n"
        return ["Content-Type: text/html; charset=utf-8", "Content-Transfer-Encoding: quoted-printable"], quopri.encodestring(body.encode()).decode()

    def attachment(self, kind):
        rng = self.rng
        if kind == "image":
            data, sub = rng.choice(self.images)
            name = f"photo-{rng.randint(1, 9999)}.{'jpg' if sub == 'jpeg' else 'png'}"
            return [f"Content-Type: image/{sub}; name=\"{name}\"", f"Content-Disposition: attachment; filename=\"{name}\"",
                    "Content-Transfer-Encoding: base64"], b64(data)
        data = rng.choice(self.passes)
        if rng.random() < 0.2:  # a name with non-ASCII text, RFC 2231 style
            return ["Content-Type: application/octet-stream", "Content-Disposition: attachment;\n filename*=UTF-8''Bordkarte%20M%C3%BCnchen.pkpass",
                    "Content-Transfer-Encoding: base64"], b64(data)
        return ["Content-Type: application/vnd.apple.pkpass; name=\"ticket.pkpass\"", "Content-Disposition: attachment; filename=\"ticket.pkpass\"",
                "Content-Transfer-Encoding: base64"], b64(data)

    def multipart(self, subtype, parts):
        boundary = f"----=_Part_{self.rng.getrandbits(64):x}"
        out = []
        for hdr, body in parts:
            out.append(f"--{boundary}\n" + "\n".join(hdr) + "\n\n" + body.rstrip("\n") + "\n")
        return [f"Content-Type: multipart/{subtype};\n boundary=\"{boundary}\""], "This is a multi-part message in MIME format.\n\n" + "".join(out) + f"--{boundary}--\n"

    def message(self, n):
        rng = self.rng
        r = rng.random()
        subject = words(rng, rng.randint(3, 8))
        if r < 0.30:
            hdr, body = self.text_part(rng.randint(5, 120))
        elif r < 0.60:
            hdr, body = self.multipart("alternative", [self.text_part(rng.randint(10, 80)), self.html_part(rng.randint(20, 300))])
        elif r < 0.85:
            alt = self.multipart("alternative", [self.text_part(rng.randint(5, 40)), self.html_part(rng.randint(10, 100))])
            hdr, body = self.multipart("mixed", [alt] + [self.attachment("image") for _ in range(rng.randint(1, 3))])
        elif r < 0.95:
            hdr, body = self.multipart("mixed", [self.text_part(rng.randint(5, 30)), self.attachment("pass")])
        else:
            inner_hdr, inner_body = self.multipart("mixed", [self.text_part(rng.randint(5, 20)), self.attachment(rng.choice(["pass", "image"]))])
            inner = self.headers(n + 10**7, "Fwd: " + subject, inner_hdr) + inner_body
            hdr, body = self.multipart("mixed", [self.text_part(5), (["Content-Type: message/rfc822"], inner)])
        text = self.headers(n, subject, hdr) + body
        # mboxrd: quote body lines that start with (>*)From
        lines = text.split("\n")
        lines = [(">" + l) if l.lstrip(">").startswith("From ") else l for l in lines]
        return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size-mb", type=int, default=1100)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    gen = Gen(rng)
    target = args.size_mb * 1_000_000
    written = n = 0
    start = time.time()
    with open(args.out + ".tmp", "wb") as f:
        while written < target:
            n += 1
            msg = gen.message(n).encode()
            sep = f"From sender{n % 97}@example.com {time.strftime('%a %b %d %H:%M:%S %Y', time.gmtime(1_700_000_000 + n * 37))}\n".encode()
            f.write(sep + msg + b"\n\n")
            written += len(sep) + len(msg) + 2
    os.replace(args.out + ".tmp", args.out)
    print(f"wrote {n} messages, {written / 1e6:.0f} MB to {args.out} in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
