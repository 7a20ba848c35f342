#!/usr/bin/env bash
# Benchmark: `passconduit update --library-map` over a gateway's mailbox libraries (issue 43):
# LIBRARIES libraries (default 10 000) of 3 passes each, every pass at the same loopback issuer
# (so the per-host gate sends them one at a time), nothing changed (all 304). Reports the run's
# time, checks per second and peak RSS (GNU time), beside curl fetching the same number of URLs
# one after the other in one process (the floor: one connection, no library, no verification).
# Needs curl, openssl, python3, /usr/bin/time. Writes Benchmarks/data/update-map/ (git-ignored).
#   Benchmarks/update/run-map.sh                       (builds with CONFIG=release)
#   BIN=.build-rel/release/passconduit LIBRARIES=10000 Benchmarks/update/run-map.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
LIBRARIES="${LIBRARIES:-10000}"
PORT="${PORT:-18766}"
data="Benchmarks/data/update-map"
mkdir -p "$data/passes"
CONFIG="${CONFIG:-release}"
# BIN: a passconduit built elsewhere (a release build in its own --scratch-path, say); else build.
if [ -n "${BIN:-}" ]; then
  bin=$(realpath "$BIN")
else
  swift build -c "$CONFIG" --product passconduit >/dev/null
  bin="$(swift build -c "$CONFIG" --show-bin-path)/passconduit"
fi

/usr/bin/python3 Benchmarks/update/make-passes.py "$data/passes" "$PORT" 3
/usr/bin/python3 Benchmarks/update/server.py "$PORT" "$data/passes" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done

map="$PWD/$data/mail/%{local}@%{domain}/library.sqlite"
if [ ! -f "$data/.ready-$LIBRARIES" ]; then
  echo "making $LIBRARIES libraries of 3 passes..." >&2
  rm -rf "$data/mail" "$data"/.ready-*
  one="$data/one.sqlite"
  rm -f "$one" "$one"-*
  "$bin" add --library "$one" --trust Samples/ca/trust --yes "$data"/passes/BENCH-000[0-2].pkpass >/dev/null
  # First check: no validators yet (200, same bytes); stores Last-Modified so every later check is a 304.
  "$bin" update --library "$one" --trust Samples/ca/trust >/dev/null
  for i in $(seq -w 1 "$LIBRARIES"); do
    mkdir -p "$data/mail/user$i@example.org"
    cp "$one" "$data/mail/user$i@example.org/library.sqlite"
  done
  touch "$data/.ready-$LIBRARIES"
fi
checks=$((LIBRARIES * 3))

start=$(date +%s.%N)
/usr/bin/time -f '%M' -o "$data/rss" "$bin" update --library-map "$map" --allow-host 127.0.0.1 --trust Samples/ca/trust --json > "$data/out.ndjson"
end=$(date +%s.%N)
got=$(grep -c '"http":304' "$data/out.ndjson" || true)
[ "$got" = "$checks" ] || { echo "expected $checks answers 304, got $got" >&2; exit 1; }

cfg="$data/curl.cfg"
: > "$cfg"
for i in $(seq "$LIBRARIES"); do for s in 0 1 2; do
  printf 'url = "http://127.0.0.1:%s/passes/v1/passes/pass.org.passconduit.boarding/BENCH-000%s"\noutput = "/dev/null"\n' "$PORT" "$s" >> "$cfg"
done; done
cstart=$(date +%s.%N)
curl -s -H 'Authorization: ApplePass bench-token-0123456789' -H 'If-Modified-Since: Wed, 25 Nov 2026 00:00:00 GMT' -K "$cfg"
cend=$(date +%s.%N)
/usr/bin/python3 - "$start" "$end" "$cstart" "$cend" "$checks" "$LIBRARIES" "$(cat "$data/rss")" <<'PY'
import sys
s, e, cs, ce = map(float, sys.argv[1:5]); checks, libs, rss = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
pc, curl = e - s, ce - cs
print(f"update --library-map: {libs} libraries, {checks} checks in {pc:.1f} s ({checks/pc:.0f} checks/s), peak RSS {rss/1024:.1f} MB")
print(f"curl (floor), {checks} URLs one after another: {curl:.1f} s ({checks/curl:.0f} checks/s)")
print(f"ratio passconduit/curl time: {pc/curl:.2f}")
PY
