#!/usr/bin/env bash
# Benchmark: `passconduit update` over 1 000 passes on one loopback server, nothing changed (all
# 304), connections reused; beside curl fetching the same 1 000 URLs with If-Modified-Since in one
# process (the floor: one connection, no verification, no library). Target: >= 500 checks/s.
# Needs hyperfine, curl, openssl, python3. Writes Benchmarks/data/update/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${N:-1000}"
PORT="${PORT:-18765}"
data="Benchmarks/data/update"
mkdir -p "$data/passes"
# CONFIG=debug measures the debug build instead (quicker to get; slower to run).
CONFIG="${CONFIG:-release}"
swift build -c "$CONFIG" --product passconduit >/dev/null
bin="$(swift build -c "$CONFIG" --show-bin-path)/passconduit"

echo "making $N signed passes (cached in $data/passes)..." >&2
/usr/bin/python3 Benchmarks/update/make-passes.py "$data/passes" "$PORT" "$N"
/usr/bin/python3 Benchmarks/update/server.py "$PORT" "$data/passes" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done

lib="$data/library.sqlite"
if [ ! -f "$data/.library-ready" ]; then
  rm -f "$lib" "$lib"-*
  "$bin" add --library "$lib" --trust Samples/ca/trust --yes "$data"/passes/BENCH-*.pkpass >/dev/null
  # First run: no validators yet, 1 000 x 200 with the same bytes (unchanged); stores Last-Modified.
  "$bin" update --library "$lib" --trust Samples/ca/trust --json | grep -c '"outcome":"unchanged"' >&2
  touch "$data/.library-ready"
fi
# Sanity: every check is a 304.
checked=$("$bin" update --library "$lib" --trust Samples/ca/trust --json | grep -c '"http":304' || true)
[ "$checked" = "$N" ] || { echo "expected $N answers 304, got $checked" >&2; exit 1; }

cfg="$data/curl.cfg"
: > "$cfg"
for f in "$data"/passes/BENCH-*.pkpass; do
  s="$(basename "$f" .pkpass)"
  printf 'url = "http://127.0.0.1:%s/passes/v1/passes/pass.org.passconduit.boarding/%s"\noutput = "/dev/null"\n' "$PORT" "$s" >> "$cfg"
done
hyperfine --warmup 1 --runs 10 --export-json "$data/hyperfine.json" \
  -n "passconduit update ($N passes)" "$bin update --library $lib --trust Samples/ca/trust >/dev/null" \
  -n "curl, $N URLs in one process" "curl -s -H 'Authorization: ApplePass bench-token-0123456789' -H 'If-Modified-Since: Wed, 25 Nov 2026 00:00:00 GMT' -K $cfg"
/usr/bin/python3 - "$data/hyperfine.json" "$N" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]; n = int(sys.argv[2])
pc, curl = r[0]["mean"], r[1]["mean"]
print(f"passconduit update: {n/pc:.0f} checks/s (mean {pc*1000:.0f} ms for {n})")
print(f"curl (floor):       {n/curl:.0f} checks/s (mean {curl*1000:.0f} ms for {n})")
print(f"ratio passconduit/curl throughput: {curl/pc:.2f}; target >= 500 checks/s: {'met' if n/pc >= 500 else 'NOT met'}")
PY
