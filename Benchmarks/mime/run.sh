#!/usr/bin/env bash
# MailMIME benchmark against GMime 3.2 (native C) and Python email, on one generated >= 1 GB mbox.
#   (a) walk:   parse every message and visit every part without decoding bodies
#   (b) decode: the same, and transfer-decode every leaf part
# Throughput is the mbox file size over wall time of the tool's own timer; peak RSS from
# /usr/bin/time -v. MailMIME and GMime run REPEAT times (best kept, all printed), Python once.
# Usage: Benchmarks/mime/run.sh            (SIZE_MB=1100 REPEAT=3 by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
export SWIFT_BACKTRACE=enable=no
DATA=Benchmarks/data
MBOX=$DATA/bench.mbox
SIZE_MB=${SIZE_MB:-1100}
REPEAT=${REPEAT:-3}
OUT=${OUT:-Benchmarks/mime/results.txt}
mkdir -p "$DATA"
if [ ! -f "$MBOX" ] || [ "$(stat -c %s "$MBOX")" -lt $((SIZE_MB * 1000000)) ]; then
  python3 Benchmarks/mime/generate_mbox.py "$MBOX" --size-mb "$SIZE_MB"
fi
swift build -c release --product MIMEBench >/dev/null
gcc -O2 Benchmarks/mime/bench_gmime.c $(pkg-config --cflags --libs gmime-3.0) -o "$DATA/bench_gmime"
cat "$MBOX" > /dev/null   # warm the page cache so every tool reads from memory

LOG=$DATA/runs.txt
: > "$LOG"
run() {  # label command...
  /usr/bin/time -v "${@:2}" > "$DATA/stdout.txt" 2> "$DATA/time.txt"
  echo "$1 $(cat "$DATA/stdout.txt") rss_kb=$(awk '/Maximum resident/ {print $6}' "$DATA/time.txt")" | tee -a "$LOG"
}
for mode in walk decode; do
  for i in $(seq "$REPEAT"); do run "mailmime" .build/release/MIMEBench "$mode" "$MBOX"; done
  for i in $(seq "$REPEAT"); do run "gmime" "$DATA/bench_gmime" "$mode" "$MBOX"; done
  run "python" python3 Benchmarks/mime/bench_python.py "$mode" "$MBOX"
done

python3 - "$LOG" "$MBOX" > "$OUT" <<'PY'
import os, re, sys
log, mbox = sys.argv[1], sys.argv[2]
size = os.path.getsize(mbox)
best = {}
for line in open(log):
    tool, mode = line.split()[0], line.split()[1]
    secs = float(re.search(r"seconds=([\d.]+)", line).group(1))
    rss = int(re.search(r"rss_kb=(\d+)", line).group(1))
    msgs = int(re.search(r"messages=(\d+)", line).group(1))
    parts = int(re.search(r"parts=(\d+)", line).group(1))
    k = (tool, mode)
    if k not in best or secs < best[k][0]:
        best[k] = (secs, max(rss, best.get(k, (0, 0))[1]), msgs, parts)
    else:
        best[k] = (best[k][0], max(rss, best[k][1]), msgs, parts)
print(f"mbox: {mbox}, {size / 1e6:.0f} MB; machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
print(f"{'mode':8} {'tool':9} {'MB/s':>8} {'seconds':>8} {'peak RSS':>9} {'messages':>9} {'parts':>8}")
for mode in ("walk", "decode"):
    for tool in ("mailmime", "gmime", "python"):
        if (tool, mode) in best:
            s, r, m, p = best[(tool, mode)]
            print(f"{mode:8} {tool:9} {size / 1e6 / s:8.1f} {s:8.2f} {r / 1024:7.1f}MB {m:9} {p:8}")
    if ("mailmime", mode) in best:
        ours = best[("mailmime", mode)][0]
        for peer in ("gmime", "python"):
            if (peer, mode) in best:
                print(f"  {mode}: MailMIME is {best[(peer, mode)][0] / ours:.1f}x {peer}")
print("all runs:")
print(open(log).read().rstrip())
PY
cat "$OUT"
