#!/usr/bin/env bash
# Scan speed (issue 17): passconduit scan vs reading the same bytes (cat) vs GMime 3 parse+walk,
# on 20 000 real messages of /work/shared/corpus/mime (cycled) stored as a Maildir and as one mbox,
# on a 100 000-message Maildir, and on the synthetic mbox of Benchmarks/mime (256 MB).
# Best of REPEAT wall times (page cache warm), peak RSS from /usr/bin/time -v; passconduit on all
# cores and with PASSCONDUIT_WORKERS=1. Results: Benchmarks/scan/results.txt.
# Usage: Benchmarks/scan/run.sh        (REPEAT=3, CORPUS=/work/shared/corpus/mime, BIN=built here)
set -euo pipefail
cd "$(dirname "$0")/../.."
export SWIFT_BACKTRACE=enable=no
DATA=Benchmarks/data/scan
CORPUS=${CORPUS:-/work/shared/corpus/mime}
REPEAT=${REPEAT:-3}
OUT=${OUT:-Benchmarks/scan/results.txt}
mkdir -p "$DATA"
[ -d "$DATA/maildir-20000" ] || python3 Benchmarks/scan/make_mailboxes.py "$CORPUS" "$DATA" --count 20000
[ -d "$DATA/maildir-100000" ] || python3 Benchmarks/scan/make_mailboxes.py "$CORPUS" "$DATA" --count 100000 --maildir-only
SYN=Benchmarks/data/synthetic-256.mbox
[ -f "$SYN" ] || python3 Benchmarks/mime/generate_mbox.py "$SYN" --size-mb 256
if [ -z "${BIN:-}" ]; then
  # As installed (Makefile): release, static Swift stdlib.
  swift build -c release --static-swift-stdlib --build-path .build-static --product passconduit >/dev/null
  BIN=.build-static/release/passconduit
fi
gcc -O2 Benchmarks/mime/bench_gmime.c $(pkg-config --cflags --libs gmime-3.0) -o Benchmarks/data/bench_gmime
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
export HOME=$HOME_DIR XDG_DATA_HOME=$HOME_DIR/data XDG_CONFIG_HOME=$HOME_DIR/config XDG_STATE_HOME=$HOME_DIR/state

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
LOG=$DATA/runs.txt
: > "$LOG"
measure() {  # label command... ; prints "label seconds rss_kb cpu_seconds" best of REPEAT
  local best="" rss=0 cpu=""
  for _ in $(seq "$REPEAT"); do
    /usr/bin/time -f "%e %M %U %S" -o "$DATA/time.txt" "${@:2}" > /dev/null 2>"$DATA/stderr.txt" || true
    # scan exits 1 when it finds no pass: time(1) then writes a "Command exited ..." line first.
    read -r secs kb user sys < <(tail -n 1 "$DATA/time.txt")
    local used
    used=$(awk "BEGIN{print $user + $sys}")
    echo "$1 run: ${secs}s ${kb}KB cpu ${used}s" >> "$LOG"
    if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then best=$secs; fi
    if [ -z "$cpu" ] || awk "BEGIN{exit !($used < $cpu)}"; then cpu=$used; fi
    [ "$kb" -gt "$rss" ] && rss=$kb
  done
  echo "$1 $best $rss $cpu" | tee -a "$LOG.best"
}
: > "$LOG.best"
catdir() { find "$1" -type f -print0 | sort -z | xargs -0 cat | cat > /dev/null; }
export -f catdir
for f in "$DATA"/mbox-20000.mbox "$SYN"; do cat "$f" > /dev/null; done   # warm the cache
catdir "$DATA/maildir-20000"; catdir "$DATA/maildir-100000"

measure "maildir20k.scan"   "$BIN" scan --json --library "$HOME_DIR/lib.sqlite" "$DATA/maildir-20000"
measure "maildir20k.scan1"  env PASSCONDUIT_WORKERS=1 "$BIN" scan --json --library "$HOME_DIR/lib.sqlite" "$DATA/maildir-20000"
measure "maildir20k.cat"    bash -c "catdir $DATA/maildir-20000"
measure "mbox20k.scan"      "$BIN" scan --json --library "$HOME_DIR/lib.sqlite" "$DATA/mbox-20000.mbox"
measure "mbox20k.scan1"     env PASSCONDUIT_WORKERS=1 "$BIN" scan --json --library "$HOME_DIR/lib.sqlite" "$DATA/mbox-20000.mbox"
measure "mbox20k.cat"       bash -c "cat $DATA/mbox-20000.mbox | cat > /dev/null"
measure "mbox20k.gmime"     Benchmarks/data/bench_gmime walk "$DATA/mbox-20000.mbox"
measure "maildir100k.scan"  "$BIN" scan --json --library "$HOME_DIR/lib.sqlite" "$DATA/maildir-100000"
measure "maildir100k.scan1" env PASSCONDUIT_WORKERS=1 "$BIN" scan --json --library "$HOME_DIR/lib.sqlite" "$DATA/maildir-100000"
measure "maildir100k.cat"   bash -c "catdir $DATA/maildir-100000"
measure "synthetic.scan"    "$BIN" scan --json --library "$HOME_DIR/lib.sqlite" "$SYN"
measure "synthetic.scan1"   env PASSCONDUIT_WORKERS=1 "$BIN" scan --json --library "$HOME_DIR/lib.sqlite" "$SYN"
measure "synthetic.cat"     bash -c "cat $SYN | cat > /dev/null"
measure "synthetic.gmime"   Benchmarks/data/bench_gmime walk "$SYN"

python3 - "$LOG.best" "$DATA" "$SYN" > "$OUT" <<'PY'
import os, sys
best = {}
for line in open(sys.argv[1]):
    label, secs, kb, cpu = line.split()
    best[label] = (float(secs), int(kb), float(cpu))
data, syn = sys.argv[2], sys.argv[3]
def size(p):
    if os.path.isdir(p):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs)
    return os.path.getsize(p)
s = lambda k: best[k][0]
print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; best of runs, wall seconds; RSS = peak of the runs")
print(f"inputs: maildir-20000 {size(data + '/maildir-20000') / 1e6:.0f} MB, mbox-20000 {size(data + '/mbox-20000.mbox') / 1e6:.0f} MB, "
      f"maildir-100000 {size(data + '/maildir-100000') / 1e6:.0f} MB, synthetic {size(syn) / 1e6:.0f} MB")
print(f"{'run':20} {'seconds':>8} {'peak RSS':>9} {'CPU s':>7}  (CPU = least user+sys of the runs: less disturbed by other load)")
for k, (secs, kb, cpu) in best.items():
    print(f"{k:20} {secs:8.2f} {kb / 1024:7.1f}MB {cpu:7.2f}")
c = lambda k: max(best[k][2], 0.01)
def ratio(name, a, b, target):
    r = s(a) / s(b)
    ok = "meets" if r <= target else "MISSES"
    print(f"  {name:48} {r:5.2f}x  (target <= {target}x: {ok});  CPU {c(a) / c(b):5.2f}x")
print("ratios:")
ratio("Maildir 20k / same mbox (both cores)", "maildir20k.scan", "mbox20k.scan", 1.3)
ratio("Maildir 20k / same mbox (one core)", "maildir20k.scan1", "mbox20k.scan1", 1.3)
ratio("mbox 20k real mail / cat (both cores)", "mbox20k.scan", "mbox20k.cat", 1.5)
ratio("mbox 20k real mail / cat (one core)", "mbox20k.scan1", "mbox20k.cat", 1.5)
ratio("synthetic mbox / cat (both cores)", "synthetic.scan", "synthetic.cat", 1.1)
ratio("synthetic mbox / cat (one core)", "synthetic.scan1", "synthetic.cat", 1.1)
ratio("Maildir 20k two cores / one core", "maildir20k.scan", "maildir20k.scan1", 0.7)
ratio("Maildir 100k two cores / one core", "maildir100k.scan", "maildir100k.scan1", 0.7)
print(f"  {'mbox 20k: GMime walk / passconduit scan':48} {s('mbox20k.gmime') / s('mbox20k.scan'):5.2f}x (one core: {s('mbox20k.gmime') / s('mbox20k.scan1'):.2f}x)")
print(f"  {'synthetic: GMime walk / passconduit scan':48} {s('synthetic.gmime') / s('synthetic.scan'):5.2f}x (one core: {s('synthetic.gmime') / s('synthetic.scan1'):.2f}x)")
print(f"  {'Maildir 20k / its cat':48} {s('maildir20k.scan') / s('maildir20k.cat'):5.2f}x;  Maildir 100k / its cat {s('maildir100k.scan') / s('maildir100k.cat'):.2f}x")
rss = max(kb for k, (_, kb, _) in best.items() if ".scan" in k)
print(f"  peak RSS of any passconduit run: {rss / 1024:.1f} MB (target <= 64 MB: {'meets' if rss <= 64 * 1024 else 'MISSES'})")
print("all runs:")
print(open(sys.argv[1].replace('.best', '')).read().rstrip())
PY
cat "$OUT"
