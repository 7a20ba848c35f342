#!/usr/bin/env bash
# Byte-identity guard for scan speed work (issue 17): runs `passconduit scan --json` over real and
# sample mail and writes every stdout (NDJSON) and stderr, with the exit status, to OUTDIR; a
# later run with the same inputs is compared with `diff -r` by the caller (or by `--against DIR`).
#
# Inputs: every file of the MIME corpus on its own (messages, mboxes, and the odd non-mail file),
# the sample messages, mboxes and Maildir; the 2000-message benchmark mbox and Maildir; and a
# "mixed" mbox of corpus messages with a sample message carrying passes after every 7th (built
# here), read as a mapped file and as a stream (stdin), on one core and on two.
#
# Usage: BIN=.build/release/passconduit Benchmarks/scan/compare.sh OUTDIR [--against REFDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
export SWIFT_BACKTRACE=enable=no
OUT=${1:?usage: compare.sh OUTDIR [--against REFDIR]}
REF=""
if [ "${2:-}" = "--against" ]; then REF=${3:?REFDIR}; fi
BIN=${BIN:-.build/release/passconduit}
CORPUS=${CORPUS:-/work/shared/corpus/mime}
DATA=Benchmarks/data/scan
[ -d "$DATA/maildir-2000" ] || python3 Benchmarks/scan/make_mailboxes.py "$CORPUS" "$DATA" --count 2000 >/dev/null
MIXED=$DATA/mixed.mbox
if [ ! -f "$MIXED" ]; then
  python3 - "$CORPUS" "$MIXED" <<'PY'
import pathlib, re, sys
sys.path.insert(0, "Benchmarks/scan")
from make_mailboxes import corpus_messages
messages, _ = corpus_messages(pathlib.Path(sys.argv[1]))
samples = sorted(pathlib.Path("Samples/messages").glob("*.eml"))
with open(sys.argv[2], "wb") as out:
    n = 0
    for round_ in range(2):
        for m in messages:
            for data in [m] + ([samples[(n // 7) % len(samples)].read_bytes()] if n % 7 == 6 else []):
                if not data.endswith(b"\n"):
                    data += b"\n"
                out.write(b"From mixed@example.org Sat Nov 21 09:30:00 2026\n" + re.sub(rb"(?m)^(>*From )", rb">\1", data) + b"\n")
            n += 1
PY
fi
rm -rf "$OUT"
mkdir -p "$OUT"
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
export HOME=$HOME_DIR XDG_DATA_HOME=$HOME_DIR/data XDG_CONFIG_HOME=$HOME_DIR/config XDG_STATE_HOME=$HOME_DIR/state
run() {  # name input... (a lone "-" reads $STDIN)
  local name=$1; shift
  for workers in 1 2; do
    local rc=0
    if [ "$1" = "-" ]; then
      PASSCONDUIT_WORKERS=$workers "$BIN" scan --json --trust Samples/ca/trust - < "$STDIN" > "$OUT/$name.w$workers.out" 2> "$OUT/$name.w$workers.err" || rc=$?
    else
      PASSCONDUIT_WORKERS=$workers "$BIN" scan --json --trust Samples/ca/trust "$@" > "$OUT/$name.w$workers.out" 2> "$OUT/$name.w$workers.err" || rc=$?
    fi
    echo "$rc" > "$OUT/$name.w$workers.rc"
  done
}
mapfile -t corpus_files < <(find "$CORPUS" -type f | sort)
run corpus-files "${corpus_files[@]}"
mapfile -t sample_files < <(find Samples/messages -type f \( -name '*.eml' -o -name '*.mbox' \) | sort)
run samples "${sample_files[@]}" Samples/messages/Maildir
run mbox-2000 "$DATA/mbox-2000.mbox"
run maildir-2000 "$DATA/maildir-2000"
run mixed "$MIXED"
STDIN=$MIXED run mixed-stdin -
STDIN=$DATA/mbox-2000.mbox run mbox-2000-stdin -
echo "$(cat "$OUT"/*.out | wc -l) NDJSON lines, $(cat "$OUT"/*.err | wc -l) stderr lines in $OUT"
if [ -n "$REF" ]; then
  if diff -r "$REF" "$OUT" > "$OUT.diff"; then echo "identical to $REF"; rm -f "$OUT.diff"; else echo "DIFFERS from $REF: $OUT.diff"; exit 1; fi
fi
