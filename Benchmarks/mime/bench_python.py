#!/usr/bin/env python3
"""Python `email` side of the MailMIME benchmark: the same work as `MIMEBench walk|decode FILE`.

usage: bench_python.py walk|decode FILE.mbox
Splits the mbox by streaming it line by line (From_ lines followed by a header line, mboxrd
un-quoting), parses each message with BytesParser(policy=policy.default), walks every part
(content type, file name, disposition) and in decode mode calls get_payload(decode=True) on every
leaf. Prints the same line format as MIMEBench.
"""
import os, re, sys, time
from email import policy
from email.parser import BytesParser

QUOTED = re.compile(rb"^>(>*From )")


def finish(lines):
    # The blank line before the next From_ line belongs to the mbox, not the message (as in mailbox.mbox).
    if len(lines) >= 2 and lines[-1] in (b"\n", b"\r\n"):
        lines = lines[:-1]
    return b"".join(lines)


def messages(path):
    with open(path, "rb") as f:
        current = None
        for line in f:
            if line.startswith(b"From "):
                if current is not None:
                    yield finish(current)
                current = []
                continue
            if current is None:
                current = []
            if line.startswith(b">") and QUOTED.match(line):
                line = line[1:]
            current.append(line)
        if current is not None:
            yield finish(current)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    parser = BytesParser(policy=policy.default)
    start = time.monotonic()
    count = parts = decoded = touched = 0
    for raw in messages(path):
        count += 1
        msg = parser.parsebytes(raw)
        for part in msg.walk():
            parts += 1
            touched += len(part.get_content_type()) + len(part.get_filename() or "") + len(part.get_content_disposition() or "")
            if mode == "decode" and not part.is_multipart():
                decoded += len(part.get_payload(decode=True) or b"")
    seconds = time.monotonic() - start
    size = os.path.getsize(path)
    print(f"{mode} messages={count} parts={parts} bytes={size} decoded={decoded} seconds={seconds:.3f} MB/s={size / 1e6 / seconds:.1f} (check {touched % 7})")


if __name__ == "__main__":
    main()
