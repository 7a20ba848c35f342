#!/usr/bin/env bash
# Card rendering benchmark (issue 11): whole-process time of the release build of
# `passconduit render PASS --format png --scale 2` for the sample boarding pass (PDF417) and
# event ticket (QR, strip image), beside `zint` drawing the same barcode alone to a PNG (the floor
# for the barcode part); then peak RSS. Targets: <= 40 ms per pass whole process, <= 64 MB peak RSS.
# Then (issue 40) the new layouts against today's classic card, the same command: the poster event
# ticket (artwork 716 x 896 px, secondary logo, seats), the poster generic pass (background 690 x
# 1010 px, primary logo) and the semantic boarding pass beside the sample event ticket (PNG 2x), and
# the PDF of both sides of the poster with its event guide (venue map, upcoming events) beside the
# classic ticket's. Target: a poster card within 1.5x the classic card's median.
#
#   Benchmarks/render/run.sh            (builds the release binary as installed first: make build)
#   BIN=path/to/passconduit Benchmarks/render/run.sh   (measure that binary, no build)
#   ONLY=layouts BIN=… Benchmarks/render/run.sh         (only the new layouts against the classic card)
# Needs hyperfine and zint (apt-get install hyperfine zint). Results go to stdout and
# Benchmarks/data/render-*.json (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
for tool in hyperfine zint python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 69; }
done
if [ -z "${BIN:-}" ]; then
  # As installed (Makefile): release, static Swift stdlib, packed relocations.
  make build >/dev/null
  BIN=.build-static/release/passconduit
fi
bin=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p Benchmarks/data
export HOME="$work" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" SWIFT_BACKTRACE=enable=no

# The barcode each pass shows (first of `barcodes`), for zint: message bytes in a file, binary mode.
barcode() {  # pass -> prints "symbology file"
  python3 - "$1" "$work" <<'PY'
import json, sys, zipfile
pj = json.loads(zipfile.ZipFile(sys.argv[1]).read("pass.json"))
b = (pj.get("barcodes") or [pj.get("barcode")])[0]
sym = {"PKBarcodeFormatQR": "58", "PKBarcodeFormatPDF417": "55", "PKBarcodeFormatAztec": "92", "PKBarcodeFormatCode128": "20"}[b["format"]]
path = sys.argv[2] + "/message-" + sym
open(path, "wb").write(b["message"].encode(b.get("messageEncoding", "iso-8859-1").replace("iso-8859-1", "latin-1")))
print(sym, path)
PY
}

for name in $([ "${ONLY:-}" = layouts ] || echo boarding-pass event-ticket); do
  pass="$root/Samples/passes/$name.pkpass"
  read -r sym file < <(barcode "$pass")
  "$bin" render "$pass" --trust "$root/Samples/ca/trust" -o "$work/$name.png"   # warm caches, check it works
  hyperfine --warmup 3 --runs 30 -N --export-json "Benchmarks/data/render-$name.json" \
    -n "passconduit render $name (PNG 2x)" "$bin render $pass --trust $root/Samples/ca/trust --format png --scale 2 -o $work/out.png" \
    -n "zint barcode alone" "zint -b $sym --binary --quietzones --scale 2 -i $file -o $work/zint.png"
  python3 - "Benchmarks/data/render-$name.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ours, zint = r[0]["median"] * 1000, r[1]["median"] * 1000
print(f"median: passconduit {ours:.1f} ms, zint {zint:.1f} ms, ratio {ours / zint:.2f}x (target <= 40 ms)")
PY
  /usr/bin/time -f "peak RSS passconduit render $name: %M KB (target <= 65536 KB)" \
    "$bin" render "$pass" --trust "$root/Samples/ca/trust" --format png --scale 2 -o "$work/out.png"
  /usr/bin/time -f "peak RSS zint: %M KB" zint -b "$sym" --binary --quietzones --scale 2 -i "$file" -o "$work/zint.png"
done

# Issue 40: the new layouts against the classic card (target: within 1.5x).
trust="$root/Samples/ca/trust"
classic="$root/Samples/passes/event-ticket.pkpass"
layouts="$root/Samples/layout-passes"
for pass in "$classic" "$layouts/poster-event.pkpass" "$layouts/poster-generic.pkpass" "$layouts/semantic-boarding.pkpass"; do
  "$bin" render "$pass" --trust "$trust" -o "$work/check.png"   # warm caches, check it works
done
hyperfine --warmup 3 --runs 30 -N --export-json Benchmarks/data/render-layouts-png.json \
  -n "classic event ticket (PNG 2x)" "$bin render $classic --trust $trust --format png --scale 2 -o $work/out.png" \
  -n "poster event ticket (PNG 2x)" "$bin render $layouts/poster-event.pkpass --trust $trust --format png --scale 2 -o $work/out.png" \
  -n "poster generic pass (PNG 2x)" "$bin render $layouts/poster-generic.pkpass --trust $trust --format png --scale 2 -o $work/out.png" \
  -n "semantic boarding pass (PNG 2x)" "$bin render $layouts/semantic-boarding.pkpass --trust $trust --format png --scale 2 -o $work/out.png"
hyperfine --warmup 3 --runs 20 -N --export-json Benchmarks/data/render-layouts-pdf.json \
  -n "classic event ticket (PDF, both sides)" "$bin render $classic --trust $trust --format pdf --side both -o $work/out.pdf" \
  -n "poster event ticket (PDF, both sides)" "$bin render $layouts/poster-event.pkpass --trust $trust --format pdf --side both -o $work/out.pdf" \
  -n "poster with event guide (PDF, both sides)" "$bin render $layouts/poster-event-guide.pkpass --trust $trust --format pdf --side both -o $work/out.pdf"
python3 - Benchmarks/data/render-layouts-png.json Benchmarks/data/render-layouts-pdf.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))["results"]
    base = r[0]["median"] * 1000
    for x in r[1:]:
        m = x["median"] * 1000
        print(f"median: {x['command']} {m:.1f} ms, {r[0]['command']} {base:.1f} ms, ratio {m / base:.2f}x (target <= 1.5x)")
PY
/usr/bin/time -f "peak RSS poster event ticket: %M KB" "$bin" render "$layouts/poster-event.pkpass" --trust "$trust" --format png --scale 2 -o "$work/out.png"
