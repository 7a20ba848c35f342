#!/usr/bin/env bash
# Copies the peer-checked corpus cases into this Fixtures folder (see README.md for origins).
# Run from this folder: ./copy-fixtures.sh [../../Corpus/mime]
set -euo pipefail
C="${1:-../../Corpus/mime}"
mkdir -p mime4j stalwart mbox
for dir in testmsgs mimetools-testmsgs; do
  for xml in "$C/mime4j/$dir"/*_decoded.xml; do
    base="$(basename "$xml" _decoded.xml)"
    [ -f "$C/mime4j/$dir/$base.msg" ] || continue
    cp "$C/mime4j/$dir/$base.msg" "$xml" mime4j/
    cp "$C/mime4j/$dir/${base}"_decoded_* mime4j/ 2>/dev/null || true
  done
done
for group in rfc legacy thirdparty malformed; do
  mkdir -p "stalwart/$group"
  for eml in "$C/stalwart-mail-parser/eml/$group"/*.eml; do
    base="$(basename "$eml" .eml)"
    cp "$eml" "$C/stalwart-mail-parser/eml/$group/$base.json" "stalwart/$group/"
  done
done
cp "$C/mimekit/mbox/unmunged.mbox.txt" "$C/mimekit/mbox/content-length.mbox.txt" \
   "$C/mimekit/mbox/content-length.unix-offsets.json" "$C/python-email/mailbox_01.mbox" mbox/
