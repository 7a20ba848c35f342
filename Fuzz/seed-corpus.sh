#!/usr/bin/env bash
# Seeds Fuzz/corpus-mime/ (gitignored) from the shared MIME corpus: every message-bearing file listed
# in index.tsv, plus the hand-made hostile cases the parser tests cover. Usage: Fuzz/seed-corpus.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")"
SRC="${1:-/work/shared/corpus/mime}"
OUT=corpus-mime
mkdir -p "$OUT"
tail -n +2 "$SRC/index.tsv" | cut -f1 | while IFS= read -r path; do
  cp "$SRC/$path" "$OUT/$(sha256sum "$SRC/$path" | cut -c1-16)"
done
# Small hostile shapes, written with printf so both line endings appear.
printf 'Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: multipart/mixed; boundary=b-1\n\n--b-1\n\nx\n--b\n\ny\n' > "$OUT/prefix-boundary"
printf 'Content-Type: message/rfc822\r\nContent-Transfer-Encoding: base64\r\n\r\nU3ViamVjdDogeA0KDQpib2R5DQo=\r\n' > "$OUT/encoded-rfc822"
printf 'From a Sat Jan  1 00:00:00 2000\nContent-Length: 3\n\nabc\nFrom b Sat Jan  1 00:00:00 2000\nX: y\n\n>From z\n' > "$OUT/mbox-cl"
printf 'Content-Type: text/plain; name*0*=utf-8%s%%C3; name*1*=%%BC.pkpass\nContent-Transfer-Encoding: x-uuencode\n\nbegin 644 a\n$4$L#!```\n`\nend\n' "''" > "$OUT/rfc2231-uu"
echo "seeded $(ls "$OUT" | wc -l) inputs into Fuzz/$OUT"
