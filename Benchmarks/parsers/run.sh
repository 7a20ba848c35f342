#!/usr/bin/env bash
# Our JSON / .strings readers (WalletPass) vs Foundation's on the real passes of
# /work/shared/corpus/pkpass-real (or $PKPASS_CORPUS) and on hostile inputs; see main.swift.
# Usage: Benchmarks/parsers/run.sh      (prints the comparison; results.txt keeps the last run)
set -euo pipefail
cd "$(dirname "$0")/../.."
CORPUS=${PKPASS_CORPUS:-/work/shared/corpus/pkpass-real}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for f in "$CORPUS"/*.pkpass; do
  d="$WORK/files/$(basename "$f" .pkpass)"
  mkdir -p "$d"
  unzip -qo "$f" 'pass.json' '*.strings' -d "$d" 2>/dev/null || true
done
swiftc -O -package-name passconduit -o "$WORK/parsers" Benchmarks/parsers/main.swift Sources/WalletPass/JSONValue.swift Sources/WalletPass/StringsFile.swift
"$WORK/parsers" "$WORK/files" | tee Benchmarks/parsers/results.txt
