#!/usr/bin/env bash
# Web wallet benchmark (issue 30 item 5): a library of 1 000 validly signed passes
# (make-passes.py), `passconduit serve` on loopback (desktop sign-in), and wrk beside it on the same
# machine at 50 connections: the pass list (/) and one pass page (/passes/HASH), each against the
# floor = the same bytes served as static files by the same framework (Hummingbird's
# FileMiddleware, Benchmarks/WebFloor), in one run. Prints p50, p99, pages/s, the ratios to the
# floor, and the server's RSS after all requests. Targets: p50 <= 10 ms, p99 <= 50 ms,
# >= 1 000 pages/s on 2 cores, RSS <= 100 MB after 10 000 requests.
#
#   Benchmarks/web/run.sh                    (builds the static release binary and the floor first)
#   SKIP_BUILD=1 Benchmarks/web/run.sh       (uses .build-static/release as it is)
#   BIN=.build/debug/passconduit FLOOR=.build/debug/WebFloor Benchmarks/web/run.sh   (any build)
#   COUNT=1000 CONNECTIONS=50 THREADS=2 DURATION=10s
# Needs wrk (apt-get install wrk), curl, openssl, python3. Output on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
COUNT=${COUNT:-1000}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-2}
DURATION=${DURATION:-10s}
command -v wrk >/dev/null || { echo "run.sh: needs wrk (apt-get install wrk)" >&2; exit 69; }
if [ -n "${BIN:-}" ]; then
  bin=$(realpath "$BIN"); floor=$(realpath "${FLOOR:?FLOOR= the WebFloor binary of the same build}")
else
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    make build >&2
    # The floor with exactly the flags make used for passconduit (so nothing else is rebuilt).
    eval "$(make -s -n build | sed 's/--product passconduit/--product WebFloor/')" >&2
  fi
  bin="$root/.build-static/release/passconduit"; floor="$root/.build-static/release/WebFloor"
fi
work=$(mktemp -d /tmp/pc-web-bench-XXXXXX)
serve_pid=; floor_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  [ -n "$floor_pid" ] && kill "$floor_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" LANG=C.UTF-8
mkdir -p "$HOME"

python3 Benchmarks/web/make-passes.py "$COUNT" "$work/passes"
lib="$work/library.sqlite"
"$bin" add --yes --library "$lib" --trust Samples/ca/trust "$work"/passes/*.pkpass > "$work/add.out"
stored=$("$bin" list --json --library "$lib" --trust Samples/ca/trust | grep -c '"sha256"' || true)
[ "$stored" -eq "$COUNT" ] || { echo "run.sh: the library holds $stored passes, not $COUNT" >&2; exit 70; }

port=$(free_port)
"$bin" serve --library "$lib" --trust Samples/ca/trust --listen "127.0.0.1:$port" > "$work/serve.out" 2>&1 &
serve_pid=$!
link=
for _ in $(seq 600); do
  link=$(sed -n 's/^Sign in: //p' "$work/serve.out" | sed -n 1p)
  [ -n "$link" ] && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.out" >&2; exit 70; }
  sleep 0.1
done
[ -n "$link" ] || { echo "run.sh: serve printed no sign-in link" >&2; exit 70; }
base="http://127.0.0.1:$port"
curl -s -o /dev/null -c "$work/jar" "$link"
cookie="pcsid=$(awk '$6 == "pcsid" { print $7 }' "$work/jar")"
curl -sf -H "Cookie: $cookie" "$base/" > "$work/list.html"
pass=$(grep -o '/passes/[0-9a-f]\{32\}"' "$work/list.html" | tr -d '"' | sed -n 1p)
[ -n "$pass" ] || { echo "run.sh: no pass on the list" >&2; exit 70; }

# The floor: the very bytes of both pages as static files.
mkdir -p "$work/static/passes"
cp "$work/list.html" "$work/static/list.html"
curl -sf -H "Cookie: $cookie" "$base$pass" > "$work/static$pass.html"
fport=$(free_port)
"$floor" "$work/static" "$fport" > "$work/floor.out" 2>&1 &
floor_pid=$!
for _ in $(seq 600); do curl -sf -o /dev/null "http://127.0.0.1:$fport/list.html" && break; sleep 0.1; done

measure() {  # name url [header]
  if [ -n "${3:-}" ]; then
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -H "$3" "$2" > "$work/$1.wrk"
  else
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$2" > "$work/$1.wrk"
  fi
}
# Warm up both servers (first requests fill the wallet's per-pass caches), then measure.
wrk -t1 -c4 -d2s -H "Cookie: $cookie" "$base/" > /dev/null
wrk -t1 -c4 -d2s -H "Cookie: $cookie" "$base$pass" > /dev/null
wrk -t1 -c4 -d2s "http://127.0.0.1:$fport/list.html" > /dev/null
measure floor-list "http://127.0.0.1:$fport/list.html"
measure list "$base/" "Cookie: $cookie"
measure floor-pass "http://127.0.0.1:$fport$pass.html"
measure pass "$base$pass" "Cookie: $cookie"
rss() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
hwm() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
serve_rss=$(rss "$serve_pid"); serve_hwm=$(hwm "$serve_pid"); floor_rss=$(rss "$floor_pid")

python3 - "$work" "$serve_rss" "$serve_hwm" "$floor_rss" "$(stat -c %s "$work/list.html")" "$(stat -c %s "$work/static$pass.html")" <<'PY'
import re, sys
work, serve_rss, serve_hwm, floor_rss, list_bytes, pass_bytes = sys.argv[1:]
def parse(name):
    text = open(f"{work}/{name}.wrk").read()
    def ms(v, unit):
        return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]
    pct = {p: ms(v, u) for p, v, u in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)}
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    total = int(re.search(r"(\d+) requests in", text).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    errors = re.search(r"Socket errors: (.*)", text)
    return {"p50": pct["50"], "p99": pct["99"], "rate": rate, "total": total,
            "non2xx": int(bad.group(1)) if bad else 0, "socket": errors.group(1) if errors else ""}
rows = [("pass list (/)", parse("list"), parse("floor-list"), list_bytes),
        ("one pass page", parse("pass"), parse("floor-pass"), pass_bytes)]
print(f"| page | bytes | p50 ms (floor) | p99 ms (floor) | pages/s (floor) | p50 / floor | p99 / floor | pages/s / floor | requests | non-2xx |")
print("|---|---|---|---|---|---|---|---|---|---|")
total = 0
for name, w, f, size in rows:
    total += w["total"]
    print(f"| {name} | {size} | {w['p50']:.2f} ({f['p50']:.2f}) | {w['p99']:.2f} ({f['p99']:.2f}) | {w['rate']:.0f} ({f['rate']:.0f}) | "
          f"{w['p50'] / f['p50']:.1f} | {w['p99'] / f['p99']:.1f} | {w['rate'] / f['rate']:.2f} | {w['total']} | {w['non2xx']} |")
    if w["socket"] or f["socket"]:
        print(f"  socket errors: wallet {w['socket'] or 'none'}, floor {f['socket'] or 'none'}")
print(f"\nserve RSS after {total} requests: {serve_rss} MB (peak {serve_hwm} MB); floor RSS {floor_rss} MB")
PY
