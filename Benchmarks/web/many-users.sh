#!/usr/bin/env bash
# Many people at once on one PostgreSQL server (issue 39 item 4): a private PostgreSQL with
# max_connections = 50, USERS mailbox libraries in it (one signed sample pass each), one
# `passconduit serve --auth header:X-Forwarded-User` on loopback, and USERS clients at once, each
# signed in as its own mailbox, asking for its pass list and its pass page ROUNDS times. Every
# request must answer 200 with that user's own pass; the script prints the answers by status,
# p50/p99, and the most connections the server saw at once (pg_stat_activity, sampled every
# 50 ms), and fails when any request did not get its page.
#
#   Benchmarks/web/many-users.sh                       (.build/debug/passconduit)
#   BIN=.build-static/release/passconduit USERS=200 ROUNDS=5 MAX_CONNECTIONS=50 Benchmarks/web/many-users.sh
# Needs PostgreSQL (/usr/lib/postgresql/*/bin), curl, python3. Run as root it runs the server as
# the postgres account (PostgreSQL refuses root).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
bin=$(realpath "${BIN:-.build/debug/passconduit}")
USERS=${USERS:-200}
ROUNDS=${ROUNDS:-5}
MAX_CONNECTIONS=${MAX_CONNECTIONS:-50}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || { echo "many-users.sh: needs PostgreSQL (apt-get install postgresql)" >&2; exit 69; }
work=$(mktemp -d /tmp/pc-many-users-XXXXXX)
chmod 755 "$work"
as_pg=()
[ "$(id -u)" -eq 0 ] && as_pg=(runuser -u postgres --)
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" LANG=C.UTF-8
mkdir -p "$HOME" "$work/pg"
[ "$(id -u)" -eq 0 ] && chown postgres "$work/pg"
"${as_pg[@]}" "$pgbin/initdb" -D "$work/pg/data" -U postgres --auth=trust --no-locale -E UTF8 --no-sync >/dev/null
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/server.log" -w -t 60 \
  -o "-k $work/pg -c listen_addresses='' -p 5432 -c fsync=off -c synchronous_commit=off -c max_connections=$MAX_CONNECTIONS" start >/dev/null
psql() { "${as_pg[@]}" "$pgbin/psql" -h "$work/pg" -U postgres -X -q -At "$@"; }
psql -d postgres -c "CREATE DATABASE wallet"
lib="postgresql:///wallet?host=$work/pg&user=postgres"

# One library per mailbox, each with a pass of its own serial (the sample passes, re-signed by
# Benchmarks/web/make-passes.py with distinct serials).
python3 Benchmarks/web/make-passes.py "$USERS" "$work/passes" >/dev/null
i=0
for pass in "$work"/passes/*.pkpass; do
  "$bin" add --yes --library "$lib" --user "u$i@example.org" --trust Samples/ca/trust "$pass" >/dev/null
  i=$((i + 1))
done
echo "libraries: $i mailbox libraries in one database, max_connections = $MAX_CONNECTIONS"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --library "$lib" --trust Samples/ca/trust --listen "127.0.0.1:$port" \
  --auth header:X-Forwarded-User --trusted-proxy 127.0.0.1 > "$work/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 600); do
  curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.out" >&2; exit 70; }
  sleep 0.1
done

python3 - "$port" "$USERS" "$ROUNDS" "$work" "$pgbin" "${as_pg[*]:-}" <<'PY'
import http.client, re, subprocess, sys, threading, time
port, users, rounds, work, pgbin, as_pg = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
statuses, times, wrong = {}, [], []
lock = threading.Lock()
peak = [0]
stop = threading.Event()

def sample():
    cmd = (as_pg.split() if as_pg else []) + [f"{pgbin}/psql", "-h", f"{work}/pg", "-U", "postgres", "-X", "-At", "-d", "postgres",
           "-c", "SELECT count(*) FROM pg_stat_activity WHERE datname = 'wallet'"]
    while not stop.is_set():
        try:
            n = int(subprocess.run(cmd, capture_output=True, text=True, timeout=5).stdout.strip() or 0)
            peak[0] = max(peak[0], n)
        except Exception:
            pass
        time.sleep(0.05)

def get(conn, path, user):
    start = time.monotonic()
    conn.request("GET", path, headers={"X-Forwarded-User": user})
    r = conn.getresponse()
    body = r.read().decode("utf-8", "replace")
    with lock:
        times.append(time.monotonic() - start)
        statuses[r.status] = statuses.get(r.status, 0) + 1
    return r.status, body

barrier = threading.Barrier(users)
def person(i):
    user = f"u{i}@example.org"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    barrier.wait()
    for _ in range(rounds):
        try:
            status, body = get(conn, "/", user)
            links = re.findall(r'href="(/passes/[^"]+)"', body)
            own = re.compile(rf"Benchmark ticket {i}\b")
            if status != 200 or len(links) != 1 or not own.search(body):
                wrong.append(f"{user}: list {status}, {len(links)} passes, own pass {'shown' if own.search(body) else 'missing'}")
                continue
            status, body = get(conn, links[0], user)
            if status != 200 or not own.search(body):
                wrong.append(f"{user}: pass page {status}")
        except Exception as e:
            with lock:
                statuses["error"] = statuses.get("error", 0) + 1
            wrong.append(f"{user}: {e!r}")
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

sampler = threading.Thread(target=sample); sampler.start()
start = time.monotonic()
threads = [threading.Thread(target=person, args=(i,)) for i in range(users)]
for t in threads: t.start()
for t in threads: t.join()
wall = time.monotonic() - start
stop.set(); sampler.join()
times.sort()
pct = lambda p: times[min(len(times) - 1, int(p * len(times)))] * 1000 if times else 0
print(f"people at once: {users}, rounds: {rounds}, requests: {len(times)} in {wall:.1f} s")
print("answers: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items(), key=str)))
print(f"p50 {pct(0.5):.1f} ms, p99 {pct(0.99):.1f} ms; most connections to the database at once: {peak[0]}")
if wrong:
    print(f"FAILED: {len(wrong)} requests did not get their page, e.g. " + "; ".join(wrong[:5]))
    sys.exit(1)
print("every request got its own page")
PY
