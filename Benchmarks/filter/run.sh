#!/usr/bin/env bash
# Delivery-filter benchmark (issue 6): whole-process latency of the static release build of
# `passconduit filter` on a 100 KB message with one pass and one without, beside `cat` (the floor)
# and ripmime (a C MIME unpacker) on the same message; then peak RSS on a 1 GB message.
# Targets: <= 5 ms median, <= 2x ripmime, <= 64 MB peak RSS.
#
#   Benchmarks/filter/run.sh            (builds .build-static first; CPU-heavy, run it alone)
#   SKIP_BUILD=1 Benchmarks/filter/run.sh
# Needs hyperfine and ripmime (apt-get install hyperfine ripmime). Results go to stdout and
# Benchmarks/data/filter-*.json (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
for tool in hyperfine ripmime python3 /usr/bin/time; do
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

# hyperfine 1.15 has no --input, so every command runs as `sh -c '... < file'` (-N: no extra
# shell of hyperfine's own); the `sh -c :` row is that shell alone and is subtracted below.
for m in with-pass no-pass; do
  mkdir -p "$work/rip"
  hyperfine -N --warmup 20 --min-runs 200 --export-json "Benchmarks/data/filter-$m.json" \
    -n shell "sh -c :" \
    -n cat "sh -c 'cat < $work/$m.eml > /dev/null'" \
    -n ripmime "sh -c 'ripmime -i $work/$m.eml -d $work/rip --overwrite > /dev/null'" \
    -n passconduit "sh -c '$filter < $work/$m.eml > /dev/null'"
  python3 - "Benchmarks/data/filter-$m.json" "$m" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
med = {k: v["median"] * 1000 for k, v in r.items()}
net = {k: max(med[k] - med["shell"], 0.001) for k in ("cat", "ripmime", "passconduit")}
print(f"{sys.argv[2]}: wall median ms (sh -c wrapper {med['shell']:.2f} ms subtracted)  cat {net['cat']:.2f}  ripmime {net['ripmime']:.2f}"
      f"  passconduit {net['passconduit']:.2f}  -> passconduit/ripmime {net['passconduit']/net['ripmime']:.2f}x")
# CPU time (user + system, means) is far less disturbed by other load on a shared machine.
cpu = {k: (v["user"] + v["system"]) * 1000 for k, v in r.items()}
netc = {k: max(cpu[k] - cpu["shell"], 0.001) for k in ("cat", "ripmime", "passconduit")}
print(f"{sys.argv[2]}: CPU ms (user+sys, wrapper {cpu['shell']:.2f} ms subtracted)  cat {netc['cat']:.2f}  ripmime {netc['ripmime']:.2f}"
      f"  passconduit {netc['passconduit']:.2f}  -> passconduit/ripmime {netc['passconduit']/netc['ripmime']:.2f}x")
PY
done

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
