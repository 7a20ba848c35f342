#!/usr/bin/env bash
# Benchmark: open + verify a typical ~30 KB pass in process (PassBench) beside `openssl cms -verify`
# on the same pass (whole process, hyperfine). Run from anywhere; writes nothing outside /tmp.
#   Benchmarks/pass/run.sh [PASS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
pass="${1:-Samples/passes/event-ticket.pkpass}"
export SWIFT_BACKTRACE=enable=no

swift build -c release --product PassBench >/dev/null
bin="$(swift build -c release --show-bin-path)/PassBench"

echo "== in process: PassBench (open + verify: unzip, manifest, CMS, chain at signing time, pass.json, strings, icon)"
"$bin" "$pass" --trust Config/trust --trust Samples/ca/trust --iterations 20000

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unzip -q -o "$pass" manifest.json signature -d "$work"
cat Samples/ca/trust/*.pem > "$work/ca.pem"
signing_time="$(openssl cms -cmsout -print -inform DER -in "$work/signature" | awk '/signingTime/{getline; getline; sub(/^ *UTCTIME:/,""); print; exit}')"
attime="$(date -d "$signing_time" +%s)"
cmd="openssl cms -verify -inform DER -binary -in $work/signature -content $work/manifest.json -CAfile $work/ca.pem -purpose any -attime $attime -out /dev/null"
$cmd 2>/dev/null && echo "openssl agrees: signature verifies at $signing_time"

echo "== in process, OpenSSL's CMS API used directly (cms_inprocess.c: CMS parse + verify + chain, per call)"
cc -O2 "$root/Benchmarks/pass/cms_inprocess.c" -o "$work/cms_inprocess" -lcrypto
"$work/cms_inprocess" "$work/signature" "$work/manifest.json" "$work/ca.pem" "$attime" 5000

echo "== whole process: openssl cms -verify (signature + chain only, no unzip, no manifest hashing)"
hyperfine -N --warmup 20 --runs 300 --export-json "$work/hyperfine.json" "$cmd" 2>/dev/null | sed -n '1,4p'
python3 - "$work/hyperfine.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("openssl cms -verify: median %.3f ms, mean %.3f ms" % (r["median"] * 1e3, r["mean"] * 1e3))
PY
