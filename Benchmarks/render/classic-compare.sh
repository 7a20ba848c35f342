#!/usr/bin/env bash
# Byte-identity guard for the classic cards (issue 40): renders every pass of Samples/passes,
# Samples/barcode-passes and the real passes (Tests/WalletPassTests/Fixtures/pkpass-real) in PNG
# (scale 1, 2 and 3), PDF, SVG and HTML (front and both sides) with
# BIN into OUTDIR, one file per pass, format and side, plus the exit status and stderr of each run;
# `--against REFDIR` then compares OUTDIR with what another binary (main's) wrote, byte for byte.
# New layouts (poster event ticket, poster generic, semantic boarding pass) must leave every one
# of these files as it was: none of these passes asks for a poster scheme.
#
# The clock is frozen (faketime) so "expired" bands and PDF dates do not move between the runs.
# Expected differences: none for Samples/; the two copies of United's sample (kitinerary__/kpkpass__
# apple-store-UA-sample-unsigned-scrubbed) are semantic boarding passes, drawn in that layout since
# issue 40, and their airline links are listed below the card (HTML, and the PDF's back) — every
# other real pass must be identical: none has Additional Info fields, featured actions, links or
# upcoming events, and a card without them gets no section and no extra CSS.
#
# Usage: BIN=/tmp/main-passconduit   Benchmarks/render/classic-compare.sh /tmp/classic-main
#        BIN=.build/debug/passconduit Benchmarks/render/classic-compare.sh /tmp/classic-new --against /tmp/classic-main
# Needs faketime.
set -euo pipefail
cd "$(dirname "$0")/../.."
export SWIFT_BACKTRACE=enable=no
OUT=${1:?usage: classic-compare.sh OUTDIR [--against REFDIR]}
REF=""
if [ "${2:-}" = "--against" ]; then REF=${3:?REFDIR}; fi
BIN=${BIN:-.build/debug/passconduit}
bin=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
command -v faketime >/dev/null || { echo "classic-compare.sh: faketime is required" >&2; exit 69; }
rm -rf "$OUT"
mkdir -p "$OUT"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export HOME=$home XDG_DATA_HOME=$home/data XDG_CONFIG_HOME=$home/config XDG_STATE_HOME=$home/state
export SOURCE_DATE_EPOCH=1780000000 TZ=UTC LANG=C.UTF-8
# Apple's anchors from the source tree, wherever BIN sits: a binary copied out of .build would
# otherwise find none and mark every real pass "not verified".
export PASSCONDUIT_TRUST_DIR=$(pwd)/Config/trust
trust=$(pwd)/Samples/ca/trust
count=0
passes=(Samples/passes/*.pkpass Samples/barcode-passes/*.pkpass Tests/WalletPassTests/Fixtures/pkpass-real/*.pkpass)
for pass in "${passes[@]}"; do
  name=$(basename "$(dirname "$pass")")__$(basename "$pass" .pkpass)
  for job in "png 1 front" "png 3 both" "pdf 2 both" "svg 2 both" "html 2 both" "html 2 front"; do
    read -r format scale side <<<"$job"
    file="$OUT/$name.$scale.$side.$format"
    set +e
    faketime -f "2026-06-01 12:00:00" "$bin" render "$pass" --trust "$trust" --format "$format" --scale "$scale" \
      --side "$side" -o "$file" 2>"$file.stderr"
    echo $? >"$file.status"
    set -e
    count=$((count + 1))
  done
done
echo "classic-compare.sh: $count renders of ${#passes[@]} passes in $OUT"
if [ -n "$REF" ]; then
  # The semantic boarding passes (United's sample, twice) are the expected change; said, not compared.
  changed=$(diff -rq "$REF" "$OUT" | grep -c 'apple-store-UA-sample-unsigned-scrubbed' || true)
  echo "classic-compare.sh: $changed files of United's semantic boarding pass (2 copies) differ, as expected"
  if diff -r -x '*apple-store-UA-sample-unsigned-scrubbed*' "$REF" "$OUT" >"$OUT.diff"; then
    echo "classic-compare.sh: every other file identical to $REF ($(find "$OUT" -type f ! -name '*apple-store-UA-sample*' | wc -l) files, $(du -sb "$OUT" | cut -f1) bytes)"
  else
    echo "classic-compare.sh: DIFFERENT from $REF:" >&2
    head -40 "$OUT.diff" >&2
    exit 1
  fi
fi
