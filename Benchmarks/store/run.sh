#!/usr/bin/env bash
# PassStore latency benchmark: contains and add with 100 000 passes of ~30 KB in the library.
# The library (about 3 GB) is kept in Benchmarks/data/ (git-ignored) so reruns measure at once;
# the first run fills it through PassLibrary.add, one transaction per pass.
#
#   Benchmarks/store/run.sh [PASSES] [SAMPLES]
set -euo pipefail
cd "$(dirname "$0")/../.."
export SWIFT_BACKTRACE=enable=no
passes="${1:-100000}"
samples="${2:-2000}"
swift build -c release --product StoreBench >/dev/null
bin="$(swift build -c release --show-bin-path)/StoreBench"
mkdir -p Benchmarks/data
lib="Benchmarks/data/store-bench-$passes/library.sqlite"
echo "== synchronous=NORMAL (the library's default)"
"$bin" bench --library "$lib" --passes "$passes" --samples "$samples" --size 30000 --synchronous normal
echo "== synchronous=FULL (an fsync per commit)"
"$bin" bench --library "$lib" --passes "$passes" --samples "$samples" --size 30000 --synchronous full
