#!/usr/bin/env bash
# Upload burst (issue 37 item 7; websec-4's reproduction): 24 uploads of a 31 MB message (one pass
# at its end) sent at once by 12 people, two each, to `passconduit serve` on loopback (header
# sign-in, one library per person), while a 13th person opens their pass list every 200 ms.
# Prints the answers by status, serve's peak RSS (VmHWM) during the burst and its RSS 3 s after,
# and the other person's page time (median and worst) during the burst.
#
#   BIN=.build/debug/passconduit Benchmarks/web/uploads.sh       (any build)
#   UPLOADS=24 ... (the server's --uploads-at-once; default 4, as serve's default)
# Needs curl and python3. Output on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
bin=$(realpath "${BIN:-.build-static/release/passconduit}")
UPLOADS=${UPLOADS:-4}
work=$(mktemp -d /tmp/pc-upload-bench-XXXXXX)
serve_pid=
cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
template="$work/libraries/%{local}@example.org.sqlite"
users="reader $(seq -f 'u%g' 1 12)"
for u in $users; do "$bin" library create "$u@example.org" --library-map "$template" >/dev/null; done
python3 - "$root/Samples/passes/event-ticket.pkpass" "$work/big.eml" <<'PY'
import base64, sys
p = base64.encodebytes(open(sys.argv[1], "rb").read()).decode()
with open(sys.argv[2], "w") as m:
    m.write("From: a@example.org\nSubject: big\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\n")
    line = "a line of a long message, " * 3 + "\n"
    m.write(line * (31_000_000 // len(line)))
    m.write("--b\nContent-Type: application/vnd.apple.pkpass\nContent-Transfer-Encoding: base64\n\n" + p + "--b--\n")
PY
"$bin" serve --trust "$root/Samples/ca/trust" --listen 127.0.0.1:0 --auth header:X-User --trusted-proxy 127.0.0.1 \
  --library-map "$template" --uploads-at-once "$UPLOADS" > "$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 100); do grep -q '^Listening on ' "$work/serve.log" && break; sleep 0.1; done
base="http://$(sed -n 's/^Listening on //p' "$work/serve.log" | head -1)"
for u in $users; do
  curl -s -c "$work/$u.jar" -H "X-User: $u@example.org" "$base/add" -o "$work/$u.html"
  sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$work/$u.html" | head -1 > "$work/$u.csrf"
done
rss() { awk -v k="$1:" '$1 == k { print $2 }' /proc/"$serve_pid"/status; }
echo "serve --uploads-at-once $UPLOADS: RSS before $(( $(rss VmRSS) / 1024 )) MB; message $(( $(stat -c %s "$work/big.eml") / 1000000 )) MB"
start=$(date +%s.%N)
for u in $(seq -f 'u%g' 1 12); do
  for n in 1 2; do
    curl -s -o /dev/null -w '%{http_code}\n' -H 'Expect:' -H "X-User: $u@example.org" -b "$work/$u.jar" \
      -F "csrf=$(cat "$work/$u.csrf")" -F "file=@$work/big.eml" "$base/add" >> "$work/codes" &
  done
done
# The other person's page, every 200 ms while uploads run (serve is the one job left after them).
while [ "$(jobs -r | wc -l)" -gt 1 ]; do
  curl -s -o /dev/null -w '%{time_total}\n' -H "X-User: reader@example.org" -b "$work/reader.jar" "$base/" >> "$work/pages"
  sleep 0.2
done
end=$(date +%s.%N)
peak=$(rss VmHWM)
sleep 3
echo "answers: $(sort "$work/codes" | uniq -c | awk '{ printf "%s x %s  ", $1, $2 }')in $(python3 -c "print(round($end - $start, 1))") s"
echo "peak RSS $(( peak / 1024 )) MB; RSS 3 s after $(( $(rss VmRSS) / 1024 )) MB"
python3 - "$work/pages" <<'PY'
import statistics, sys
t = sorted(float(x) * 1000 for x in open(sys.argv[1]) if x.strip())
print(f"another person's list during the burst: {len(t)} requests, median {statistics.median(t):.1f} ms, worst {t[-1]:.1f} ms")
PY
