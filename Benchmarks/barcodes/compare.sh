#!/usr/bin/env bash
# Byte-identity guard for barcode work (issue 40 item 3, iOS 27's four formats): renders every real
# pass (Tests/WalletPassTests/Fixtures/pkpass-real), every sample pass (Samples/passes) and every
# barcode sample (Samples/barcode-passes) with two builds, in every output (PNG 1x/2x, SVG, HTML,
# PDF, terminal), and compares the files byte for byte. Passes whose barcodes are all QR, PDF417,
# Aztec or Code 128 must draw the same; the list of files that differ is printed (the iOS 27
# samples are expected there, being new or changed).
#
# Usage: Benchmarks/barcodes/compare.sh OLD_BINARY NEW_BINARY [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
OLD=${1:?usage: compare.sh OLD_BINARY NEW_BINARY [OUTDIR]}
NEW=${2:?usage: compare.sh OLD_BINARY NEW_BINARY [OUTDIR]}
OUT=${3:-$(mktemp -d)}
export SWIFT_BACKTRACE=enable=no TZ=UTC LANG=C.UTF-8
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
export HOME=$HOME_DIR XDG_DATA_HOME=$HOME_DIR/data XDG_CONFIG_HOME=$HOME_DIR/config XDG_STATE_HOME=$HOME_DIR/state
passes=(Tests/WalletPassTests/Fixtures/pkpass-real/*.pkpass Samples/passes/*.pkpass Samples/barcode-passes/*.pkpass)
for side in old new; do
  bin=$OLD; [ "$side" = new ] && bin=$NEW
  mkdir -p "$OUT/$side"
  for p in "${passes[@]}"; do
    n=$(basename "$(dirname "$p")")-$(basename "$p" .pkpass)
    for f in png svg html pdf terminal; do
      "$bin" render "$p" --trust Samples/ca/trust --format "$f" -o "$OUT/$side/$n.$f" >"$OUT/$side/$n.$f.out" 2>&1 || echo "exit $?" >>"$OUT/$side/$n.$f.out"
    done
    "$bin" render "$p" --trust Samples/ca/trust --scale 1 -o "$OUT/$side/$n.1x.png" >/dev/null 2>&1 || true
  done
done
# cairo writes the time into a PDF (CreationDate): compare PDFs without that line.
for side in old new; do
  for f in "$OUT/$side"/*.pdf; do [ -f "$f" ] && sed -i -E 's/CreationDate \(D:[0-9+Z'"'"']+\)/CreationDate ()/' "$f"; done
done
# One line per pass whose drawings differ (any output).
differ=$(diff -rq "$OUT/old" "$OUT/new" | sed -E 's/^Files [^ ]*\/old\/([^ ]+) and .*/\1/; s/^Only in [^:]*: //; s/\.(1x\.png|html|pdf|png|svg|terminal)(\.out)?$//' | sort -u || true)
echo "compare.sh: ${#passes[@]} passes, $(ls "$OUT/new" | wc -l) files per build, in $OUT"
if [ -z "$differ" ]; then echo "compare.sh: identical"; else echo "compare.sh: these passes draw differently:"; echo "$differ"; fi
