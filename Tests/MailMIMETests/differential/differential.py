#!/usr/bin/env python3
"""Differential test: MailMIME (through `MIMEBench dump`) against Python's `email` (policy.default).

For every message of a corpus, both parse the *same bytes* (the dump tool splits mbox files with
MboxReader and hands each message's raw bytes over), then we compare, part by part in document
order: the number of parts, content types, file names, and for each leaf the decoded size and
SHA-256. Every message that differs must be listed in allowlist.json with a reason; a listed
message that no longer differs is reported as stale. Exit status 0 only when both lists are clean.

usage: differential.py --dump-tool PATH [--corpus DIR] [--allowlist FILE] [--report FILE]
  --corpus defaults to $PASSCONDUIT_MIME_CORPUS, else the checkout's copy of the corpus, Tests/Corpus/mime.
"""
import argparse, base64, hashlib, json, os, pathlib, subprocess, sys, unicodedata
from email import policy
from email.parser import BytesParser

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
# Subjects and file names in every charset mail uses (Samples/make-charset-messages.py): compared
# with Python on the parts AND the decoded subject. Text is compared in NFC: glibc composes
# Windows-1258's combining tone marks, Python's codec keeps them decomposed (canonically equal).
CHARSET_MBOX = REPO / "Samples" / "messages" / "charsets.mbox"
SKIP_SUFFIXES = (".json", ".xml", ".out", ".list", ".sh", ".md", ".tsv", ".bin", ".tnef", ".txt.gz")


def corpus_files(root: pathlib.Path):
    index = root / "index.tsv"
    if index.exists():
        rows = index.read_text().splitlines()[1:]
        return [root / r.split("\t")[0] for r in rows if r.strip()]
    files = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.name.endswith(SKIP_SUFFIXES) or "_decoded_" in p.name or p.name.startswith("README"):
            continue
        files.append(p)
    return files


def python_parts(raw: bytes):
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    out = []
    for part in msg.walk():
        entry = {"type": part.get_content_type()}
        try:
            fn = part.get_filename()
        except Exception as e:  # a malformed parameter: record it as such
            fn = f"<error {type(e).__name__}>"
        if fn:
            entry["filename"] = fn
        if not part.is_multipart():
            try:
                body = part.get_payload(decode=True) or b""
            except Exception as e:
                body = f"<error {type(e).__name__}>".encode()
            entry["size"] = len(body)
            entry["sha256"] = hashlib.sha256(body).hexdigest()
        out.append(entry)
    return out


def our_parts(parts):
    out = []
    for p in parts:
        entry = {"type": p["type"]}
        if p.get("filename"):
            entry["filename"] = p["filename"]
        if "decoded" in p:
            body = base64.b64decode(p["decoded"])
            entry["size"] = len(body)
            entry["sha256"] = hashlib.sha256(body).hexdigest()
        out.append(entry)
    return out


def classify(ours, theirs):
    """A short description of the first difference, or None."""
    if len(ours) != len(theirs):
        return f"part count: we {len(ours)}, python {len(theirs)}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a["type"] != b["type"]:
            return f"part {i} type: we {a['type']}, python {b['type']}"
        if a.get("filename") != b.get("filename"):
            return f"part {i} filename: we {a.get('filename')!r}, python {b.get('filename')!r}"
        if ("size" in a) != ("size" in b):
            return f"part {i} leaf/container: we {'leaf' if 'size' in a else 'container'}, python {'leaf' if 'size' in b else 'container'}"
        if "size" in a and a["sha256"] != b["sha256"]:
            return f"part {i} ({a['type']}) decoded body: we {a['size']} bytes, python {b['size']} bytes"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump-tool", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--allowlist", default=str(HERE / "allowlist.json"))
    ap.add_argument("--report")
    args = ap.parse_args()

    candidates = [args.corpus, os.environ.get("PASSCONDUIT_MIME_CORPUS"), str(HERE.parent.parent / "Corpus" / "mime")]
    root = next(pathlib.Path(c) for c in candidates if c and pathlib.Path(c).is_dir())
    files = corpus_files(root)
    allow = json.loads(pathlib.Path(args.allowlist).read_text())
    entries = allow["messages"]

    diffs, compared, seen = {}, 0, []
    for start in range(0, len(files), 64):
        batch = files[start:start + 64]
        proc = subprocess.run([args.dump_tool, "dump", *map(str, batch)], capture_output=True)
        if proc.returncode != 0:
            print(f"dump tool failed (rc {proc.returncode}) on a batch starting {batch[0]}:\n{proc.stderr.decode(errors='replace')}", file=sys.stderr)
            return 2
        for line in proc.stdout.decode().splitlines():
            d = json.loads(line)
            key = f"{pathlib.Path(d['input']).relative_to(root)}#{d['index']}"
            raw = base64.b64decode(d["raw"])
            compared += 1
            seen.append(key)
            try:
                theirs = python_parts(raw)
            except RecursionError:
                theirs = [{"type": "<python RecursionError>"}]
            why = classify(our_parts(d["parts"]), theirs)
            if why:
                diffs[key] = why

    # Every charset message must agree exactly (no allowlist): parts, file names and subject.
    charset_diffs = {}
    if CHARSET_MBOX.exists():
        proc = subprocess.run([args.dump_tool, "dump", str(CHARSET_MBOX)], capture_output=True)
        if proc.returncode != 0:
            print(f"dump tool failed on {CHARSET_MBOX}:\n{proc.stderr.decode(errors='replace')}", file=sys.stderr)
            return 2
        nfc = lambda s: unicodedata.normalize("NFC", s) if isinstance(s, str) else s
        for line in proc.stdout.decode().splitlines():
            d = json.loads(line)
            key = f"{CHARSET_MBOX.name}#{d['index']}"
            raw = base64.b64decode(d["raw"])
            compared += 1
            msg = BytesParser(policy=policy.default).parsebytes(raw)
            ours = [dict(p, filename=nfc(p.get("filename"))) for p in our_parts(d["parts"])]
            theirs = [dict(p, filename=nfc(p.get("filename"))) for p in python_parts(raw)]
            for entry in ours + theirs:
                if entry["filename"] is None:
                    del entry["filename"]
            why = classify(ours, theirs)
            if not why and nfc(d.get("subject")) != nfc(msg["subject"]):
                why = f"subject: we {d.get('subject')!r}, python {str(msg['subject'])!r}"
            if not why and "unknown-charset" in d["defects"]:
                why = "unknown-charset defect on a charset Python knows"
            if why:
                charset_diffs[key] = why
    else:
        charset_diffs["charsets.mbox"] = f"missing: {CHARSET_MBOX}"

    # The Fixtures folder holds copies under shorter paths (mime4j/X.msg for mime4j/testmsgs/X.msg):
    # an allowlist key matches when it ends with the fixture path minus its first folder.
    def resolve(key):
        if key in entries:
            return key
        tail = "/" + key.split("/", 1)[-1]
        hits = [k for k in entries if k.endswith(tail)]
        return hits[0] if len(hits) == 1 else None

    unexplained = {k: v for k, v in diffs.items() if resolve(k) is None}
    unexplained.update(charset_diffs)
    explained = {resolve(k) for k in diffs} - {None}
    present = {resolve(k) for k in seen} - {None}
    stale = [k for k in entries if k in present and k not in explained]
    lines = [f"corpus {root} + {CHARSET_MBOX.name}: {len(files)} files, {compared} messages compared, {len(diffs) + len(charset_diffs)} differ, "
             f"{len(diffs) - len(unexplained)} allowlisted, {len(unexplained)} unexplained, {len(stale)} stale allowlist entries"]
    lines += [f"UNEXPLAINED {k}: {v}" for k, v in sorted(unexplained.items())]
    lines += [f"STALE {k}: {entries[k]}" for k in sorted(stale)]
    report = "\n".join(lines)
    print(report)
    if args.report:
        pathlib.Path(args.report).write_text(json.dumps(diffs, indent=1, sort_keys=True))
    return 0 if not unexplained and not stale and compared > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
