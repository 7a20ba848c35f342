#!/usr/bin/env python3
"""Builds the scan benchmark's inputs from the MIME corpus (cycled, deterministic):
a Maildir of N messages and one mbox holding the same message bytes.

usage: make_mailboxes.py CORPUS OUTDIR --count N [--maildir-only]
  OUTDIR/maildir-N/cur/<n>.bench:2,S  one file per message
  OUTDIR/mbox-N.mbox                  the same messages, each after a From_ line, body lines
                                      starting "From " quoted ">From " (mboxrd)
"""
import argparse, os, pathlib, re


def corpus_messages(root: pathlib.Path):
    rows = (root / "index.tsv").read_text().splitlines()[1:]
    out = []
    for row in rows:
        if not row.strip():
            continue
        path, _group, kind = row.split("\t")[:3]
        data = (root / path).read_bytes()
        if kind == "mbox":
            # split at From_ lines; drop the From_ line itself and undo nothing (bytes as stored)
            pieces = re.split(rb"(?:^|\n)From [^\n]*\n", data)
            out += [p for p in pieces if p.strip()]
        else:
            out.append(data)
    # Many corpus messages were saved with their mbox envelope line ("From jamis@... Sat ...", some
    # after a byte order mark). That line is not part of the message: a delivery agent drops it
    # before writing a Maildir file, and in the mbox it made a ">From " body line after our own
    # From_ line, so the message joined the previous one (an earlier version of this script then
    # dropped all of them). Take it off, keep the message.
    messages = [strip_envelope(m) for m in out]
    # What is left without a header field first is not a message (a few bytes of a CFB file,
    # parser test output, headerless text): an mbox reader (rightly) does not take a From_ line
    # followed by such text as a separator, so the two inputs would no longer hold the same
    # messages. 10 of 1145 pieces of the corpus.
    header = re.compile(rb"^[!-9;-~]+[ \t]*:")
    kept = [m for m in messages if header.match(m)]
    return kept, len(messages) - len(kept)


def strip_envelope(message: bytes) -> bytes:
    if message.startswith(b"\xef\xbb\xbf"):
        message = message[3:]
    while message.startswith(b"From ") and b"\n" in message:
        message = message[message.index(b"\n") + 1:]
    return message


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--maildir-only", action="store_true")
    a = ap.parse_args()
    messages, skipped = corpus_messages(pathlib.Path(a.corpus))
    out = pathlib.Path(a.out)
    cur = out / f"maildir-{a.count}" / "cur"
    cur.mkdir(parents=True, exist_ok=True)
    (out / f"maildir-{a.count}" / "new").mkdir(exist_ok=True)
    (out / f"maildir-{a.count}" / "tmp").mkdir(exist_ok=True)
    mbox = None if a.maildir_only else open(out / f"mbox-{a.count}.mbox", "wb")
    total = 0
    for i in range(a.count):
        data = messages[i % len(messages)]
        if not data.endswith(b"\n"):
            data += b"\n"
        (cur / f"{1700000000 + i}.M{i}P1.bench:2,S").write_bytes(data)
        total += len(data)
        if mbox:
            quoted = re.sub(rb"(?m)^(>*From )", rb">\1", data)
            mbox.write(b"From bench@example.org Sat Nov 21 09:30:00 2026\n" + quoted + b"\n")
    if mbox:
        mbox.close()
    print(f"{a.count} messages, {total / 1e6:.1f} MB of message bytes, from {len(messages)} corpus messages "
          f"({skipped} corpus pieces without a header left out)")


if __name__ == "__main__":
    main()
