#!/usr/bin/env bash
# Delivery-filter start-up benchmark (issues 6 and 14): whole-process latency of the static release
# build: `passconduit --version`, and `passconduit filter` on a 100 KB message with one pass and one
# without, beside `cat` (the floor), ripmime (a C MIME unpacker) on the same message and static
# Swift programs (hello world; Foundation's DateFormatter), all in one hyperfine run, printed as one
# table; then peak RSS on a 1 GB message.
# Targets (issue 14, medians): filter without a pass <= 3 ms, with one pass <= 6 ms, --version <= 3 ms;
# <= 64 MB peak RSS.
#
#   Benchmarks/filter/run.sh            (builds .build-static first; CPU-heavy, run it alone)
#   SKIP_BUILD=1 Benchmarks/filter/run.sh
#   SKIP_BUILD=1 SKIP_RSS=1 RUNS=100 Benchmarks/filter/run.sh   (the table only)
#   PIE=no Benchmarks/filter/run.sh     (the opt-in position-dependent link; see the README's Install)
# Needs hyperfine and ripmime (apt-get install hyperfine ripmime). Results go to stdout and
# Benchmarks/data/filter-*.json (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
for tool in hyperfine ripmime python3 swiftc /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 69; }
done
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  make build     # static stdlib, DT_RELR-packed relocations when lld is available (see Makefile)
fi
bin="$root/.build-static/release/passconduit"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p Benchmarks/data

# Two ~100 KB messages: the same text body; one carries Samples/passes/event-ticket.pkpass.
python3 - "$work" "$root/Samples/passes/event-ticket.pkpass" <<'PY'
import base64, sys
work, pass_path = sys.argv[1], sys.argv[2]
def message(with_pass):
    head = ("From: Tickets <tickets@example.org>\nTo: you@example.net\nSubject: Your ticket\n"
            "Message-ID: <bench@example.org>\nDate: Sat, 21 Nov 2026 12:00:00 +0000\nMIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"b1\"\n\n--b1\nContent-Type: text/plain; charset=utf-8\n\n")
    out = head
    tail = ""
    if with_pass:
        b = base64.encodebytes(open(pass_path, "rb").read()).decode()
        tail = ("--b1\nContent-Type: application/vnd.apple.pkpass; name=\"ticket.pkpass\"\n"
                "Content-Disposition: attachment; filename=\"ticket.pkpass\"\nContent-Transfer-Encoding: base64\n\n" + b)
    line = "Thank you for your order. This line pads the message to a realistic newsletter size.\n"
    while len(out) + len(tail) + len(line) + 8 < 100_000:
        out += line
    return (out + "\n" + tail + "--b1--\n").encode()
open(f"{work}/with-pass.eml", "wb").write(message(True))
open(f"{work}/no-pass.eml", "wb").write(message(False))
PY
ls -l "$work"/*.eml

export XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" SWIFT_BACKTRACE=enable=no
filter="$bin filter --log none --library $work/library.sqlite --trust $root/Samples/ca/trust"
"$bin" filter --library "$work/library.sqlite" --trust "$root/Samples/ca/trust" < "$work/with-pass.eml" > "$work/filtered.eml"
grep -a -m 3 '^X-Passconduit' "$work/filtered.eml"

# Two static Swift programs for scale: hello world, and one that formats a date with
# Foundation's DateFormatter (the floor for a program that loads Foundation and ICU).
printf 'print("hello")\n' > "$work/hello.swift"
printf 'import Foundation\nlet f = DateFormatter()\nf.dateFormat = "yyyy-MM-dd"\nprint(f.string(from: Date(timeIntervalSince1970: 0)))\n' > "$work/datefmt.swift"
swiftc -O -static-stdlib "$work/hello.swift" -o "$work/hello" 2>/dev/null
swiftc -O -static-stdlib "$work/datefmt.swift" -o "$work/datefmt" 2>/dev/null

# One hyperfine run for the whole table. hyperfine 1.15 has no --input, so every command that
# reads the message runs as `sh -c '... < file'` (-N: no extra shell of hyperfine's own); the
# `sh -c :` row is that shell alone and is subtracted from those rows.
mkdir -p "$work/rip"
hyperfine -N --warmup 20 --min-runs "${RUNS:-300}" --export-json Benchmarks/data/filter-startup.json \
  -n shell "sh -c :" \
  -n "cat, no pass" "sh -c 'cat < $work/no-pass.eml > /dev/null'" \
  -n "cat, one pass" "sh -c 'cat < $work/with-pass.eml > /dev/null'" \
  -n "ripmime, no pass" "sh -c 'ripmime -i $work/no-pass.eml -d $work/rip --overwrite > /dev/null'" \
  -n "ripmime, one pass" "sh -c 'ripmime -i $work/with-pass.eml -d $work/rip --overwrite > /dev/null'" \
  -n "static Swift hello world" "$work/hello" \
  -n "static Swift DateFormatter" "$work/datefmt" \
  -n "passconduit --version" "$bin --version" \
  -n "passconduit filter, no pass" "sh -c '$filter < $work/no-pass.eml > /dev/null'" \
  -n "passconduit filter, one pass" "sh -c '$filter < $work/with-pass.eml > /dev/null'" > "$work/hyperfine.txt"
python3 - Benchmarks/data/filter-startup.json <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
shell_wall = r["shell"]["median"] * 1000
shell_cpu = (r["shell"]["user"] + r["shell"]["system"]) * 1000
targets = {"passconduit --version": 3, "passconduit filter, no pass": 3, "passconduit filter, one pass": 6}
peers = {"passconduit filter, no pass": "ripmime, no pass", "passconduit filter, one pass": "ripmime, one pass"}
def net(name):
    wrapped = not name.startswith(("static", "passconduit --version"))
    x = r[name]
    wall = x["median"] * 1000 - (shell_wall if wrapped else 0)
    cpu = (x["user"] + x["system"]) * 1000 - (shell_cpu if wrapped else 0)
    return max(wall, 0.001), max(cpu, 0.001)
hello = net("static Swift hello world")[0]
print(f"sh -c wrapper: {shell_wall:.2f} ms wall median, {shell_cpu:.2f} ms CPU (subtracted from the rows that read a message)")
print("| command | wall median ms | CPU ms (user+sys, mean) | / hello world | / ripmime | target |")
print("|---|---|---|---|---|---|")
for name in [k for k in r if k != "shell"]:
    wall, cpu = net(name)
    peer = f"{wall / net(peers[name])[0]:.2f}x" if name in peers else ""
    target = f"<= {targets[name]} ms {'met' if wall <= targets[name] else 'NOT met'}" if name in targets else ""
    print(f"| {name} | {wall:.2f} | {cpu:.2f} | {wall / hello:.2f}x | {peer} | {target} |")
PY

[ "${SKIP_RSS:-0}" = 1 ] && exit 0
# Peak RSS on a 1 GB message (larger than the scan cap: spooled and passed through).
python3 - "$work/huge.eml" <<'PY'
import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"From: a@example.org\nSubject: huge\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n")
    line = b"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\n"
    block = line * 13797
    for _ in range(1000):
        f.write(block)
PY
ls -l "$work/huge.eml"
/usr/bin/time -v $filter < "$work/huge.eml" 2> "$work/time.txt" | cmp - "$work/huge.eml" && echo "1 GB message: output identical"
grep -E "Maximum resident set size|Elapsed" "$work/time.txt"
awk '/Maximum resident/ { printf "peak RSS %.1f MB (target <= 64 MB)\n", $6 / 1024 }' "$work/time.txt"
