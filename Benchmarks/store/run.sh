#!/usr/bin/env bash
# PassStore latency benchmark: contains, add and list (passes()) with 100 000 passes of ~30 KB in
# the library, on SQLite and on PostgreSQL, and the ratios PostgreSQL / SQLite.
#
# SQLite: the library (about 3 GB) is kept in Benchmarks/data/ (git-ignored) so reruns measure at
# once; the first run fills it through `add`, one transaction per pass.
# PostgreSQL: a throwaway server of its own (initdb + pg_ctl, Unix socket in a temporary folder,
# no TCP), filled through `add` with the same synthetic passes, stopped and deleted at the end.
#
#   Benchmarks/store/run.sh [PASSES] [SAMPLES]
#   FULL=1 Benchmarks/store/run.sh ...    # also SQLite synchronous=FULL beside PostgreSQL synchronous_commit=on
#   BACKENDS=postgres Benchmarks/store/run.sh ...   # one backend only (sqlite | postgres)
#   LIST_SAMPLES=10 (passes() timings per run), BIN=path/to/StoreBench (skip the release build)
#
# Durability matched: SQLite's default synchronous=NORMAL (WAL; no fsync per commit) is compared
# with PostgreSQL at synchronous_commit=off (fsync on; a commit does not wait for its WAL flush);
# FULL (an fsync per commit) with synchronous_commit=on.
set -euo pipefail
cd "$(dirname "$0")/../.."
export SWIFT_BACKTRACE=enable=no
passes="${1:-100000}"
samples="${2:-2000}"
backends="${BACKENDS:-sqlite postgres}"
list_samples="${LIST_SAMPLES:-10}"
if [[ -n "${BIN:-}" ]]; then
    bin="$BIN"   # a StoreBench built already (BIN=.build/debug/StoreBench for a quick check of the script)
else
    swift build -c release --product StoreBench >/dev/null
    bin="$(swift build -c release --show-bin-path)/StoreBench"
fi
out="$(mktemp -d /tmp/storebench-out.XXXXXX)"
trap 'rm -rf "$out"' EXIT

bench() { # name library [extra options]
    local name="$1" library="$2"; shift 2
    echo "== $name"
    "$bin" bench --library "$library" --passes "$passes" --samples "$samples" --size 30000 \
        --list-samples "$list_samples" "$@" | tee "$out/$name"
}

if [[ " $backends " == *" sqlite "* ]]; then
    mkdir -p Benchmarks/data
    lib="Benchmarks/data/store-bench-$passes/library.sqlite"
    bench sqlite-normal "$lib" --synchronous normal
    if [[ "${FULL:-0}" == 1 ]]; then bench sqlite-full "$lib" --synchronous full; fi
fi

if [[ " $backends " == *" postgres "* ]]; then
    pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    [[ -x "$pgbin/initdb" ]] || { echo "run.sh: PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)" >&2; exit 1; }
    pgdir="$(mktemp -d /tmp/storebench-pg.XXXXXX)"
    chmod 755 "$pgdir"
    as=()
    if [[ "$(id -u)" == 0 ]]; then as=(runuser -u postgres --); chown postgres "$pgdir"; fi
    pg() { (cd "$pgdir" && "${as[@]}" "$pgbin/$@"); }
    stop_pg() {
        pg pg_ctl -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
        rm -rf "$pgdir"
    }
    trap 'stop_pg; rm -rf "$out"' EXIT
    pg initdb -D "$pgdir/data" -U postgres --auth=trust --no-locale -E UTF8 >/dev/null
    # Defaults but for the socket; shared_buffers 512 MB so the 100 000 passes' metadata and
    # indexes stay cached as SQLite's do in the page cache.
    pg pg_ctl -D "$pgdir/data" -l "$pgdir/server.log" -w -t 120 \
        -o "-k $pgdir -c listen_addresses='' -c shared_buffers=512MB -c synchronous_commit=off" start >/dev/null
    pg psql -X -q -h "$pgdir" -U postgres -d postgres -c "CREATE DATABASE bench"
    lib="postgresql://postgres@/bench?host=$pgdir"
    bench postgres-sync-off "$lib" --user bench
    if [[ "${FULL:-0}" == 1 ]]; then
        pg psql -X -q -h "$pgdir" -U postgres -d postgres -c "ALTER DATABASE bench SET synchronous_commit = on"
        bench postgres-sync-on "$lib" --user bench
    fi
    echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), data $(du -sh "$pgdir/data" | cut -f1)"
fi

# Ratios PostgreSQL / SQLite from the runs' summary lines.
ratio() { # sqlite-run postgres-run
    [[ -f "$out/$1" && -f "$out/$2" ]] || return 0
    echo "== $2 / $1: PostgreSQL ms / SQLite ms = ratio"
    awk '/^summary /{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[FILENAME, kv[1]] = kv[2] } }
        END {
            split("contains add list", ops, " ")
            for (k = 1; k <= 3; k++) {
                op = ops[k]
                sm = v[ARGV[1], op "_median"]; sp = v[ARGV[1], op "_p99"]
                pm = v[ARGV[2], op "_median"]; pp = v[ARGV[2], op "_p99"]
                printf "%-8s median %9.3f / %9.3f ms = %6.2fx    p99 %9.3f / %9.3f ms = %6.2fx\n", op, pm, sm, pm / sm, pp, sp, pp / sp
            }
        }' "$out/$1" "$out/$2"
}
ratio sqlite-normal postgres-sync-off
ratio sqlite-full postgres-sync-on
rm -rf "$out"
