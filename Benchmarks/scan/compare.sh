#!/usr/bin/env bash
# Byte-identity guard for scan speed work (issue 17) and for refactoring (issue 28): runs
# `passconduit scan --json` over real and sample mail, the delivery filter over every message, and
# the library's commands (`show`, `list`, `offers`, `log`) and every command's help and usage
# errors, and writes every stdout and stderr, with the exit status, to OUTDIR; a later run with the
# same inputs is compared with `diff -r` by the caller (or by `--against DIR`).
#
# Inputs: every file of the MIME corpus on its own (messages, mboxes, and the odd non-mail file),
# the sample messages, mboxes and Maildir; the 2000-message benchmark mbox and Maildir; and a
# "mixed" mbox of corpus messages with a sample message carrying passes after every 7th (built
# here), read as a mapped file and as a stream (stdin), on one core and on two.
#
# The filter (OUTDIR/filter): each corpus file and sample message through `passconduit filter` with
# a library (offers staged), its stdout, stderr and exit status; then that library's offers, list
# and change log, and the filter's log; and the filter's own answers to --check, --help, an unknown
# option and --fail-closed. Commands (OUTDIR/commands): the sample and real passes added to a
# library, then `list` and `show` (text, --verbose, --json, --field) of every pass, and `--help`,
# `help NAME`, `--version` and a bad option for the root and every subcommand. Only "now" differs
# from run to run: times of this day, the filter log's pid and milliseconds, and the temporary home
# folder read <now>, <pid>, <ms> and <home>.
#
# Usage: BIN=.build/release/passconduit Benchmarks/scan/compare.sh OUTDIR [--against REFDIR]
#        PARTS="filter commands" (any of scan, filter, commands; default all three)
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
PARTS=${PARTS:-scan filter commands}
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
mapfile -t sample_files < <(find Samples/messages -type f \( -name '*.eml' -o -name '*.mbox' \) | sort)
if [[ " $PARTS " == *" scan "* ]]; then
run corpus-files "${corpus_files[@]}"
run samples "${sample_files[@]}" Samples/messages/Maildir
run mbox-2000 "$DATA/mbox-2000.mbox"
run maildir-2000 "$DATA/maildir-2000"
run mixed "$MIXED"
STDIN=$MIXED run mixed-stdin -
STDIN=$DATA/mbox-2000.mbox run mbox-2000-stdin -
fi

# Times of this day (UTC, as the commands print them) are "now": the same run tomorrow differs only there.
TODAY_ISO=$(date -u +%Y-%m-%d)
TODAY_TEXT=$(date -u '+%a %-d %b %Y')
normalize() {  # file...: the home folder, today's times, the filter log's pid and milliseconds
  sed -i -E -e "s|$HOME_DIR|<home>|g" -e "s/${TODAY_ISO}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z/<now>/g" \
    -e "s/${TODAY_TEXT}, [0-9]{2}:[0-9]{2} UTC/<now>/g" -e 's/ pid=[0-9]+/ pid=<pid>/g' -e 's/ ms=[0-9.]+/ ms=<ms>/g' "$@"
}
capture() {  # name command...: stdout, stderr and exit status of one run (stdin from $IN, else /dev/null)
  local name=$1; shift
  local rc=0
  "$@" < "${IN:-/dev/null}" > "$name.out" 2> "$name.err" || rc=$?
  echo "$rc" > "$name.rc"
  normalize "$name.out" "$name.err"
}

if [[ " $PARTS " == *" filter "* ]]; then
  F=$OUT/filter
  mkdir -p "$F/messages"
  LIB=$HOME_DIR/filter.sqlite
  n=0
  for m in "${corpus_files[@]}" "${sample_files[@]}"; do
    n=$((n + 1))
    IN=$m capture "$F/messages/$(printf %05d $n)" "$BIN" filter --library "$LIB" --trust Samples/ca/trust
  done
  IN=Samples/messages/two-passes.eml capture "$F/no-headers" "$BIN" filter --no-headers --no-offers --library "$LIB" --trust Samples/ca/trust
  IN=Samples/messages/two-passes.eml capture "$F/unknown-option" "$BIN" filter --bogus --library "$LIB"
  IN=Samples/messages/two-passes.eml capture "$F/fail-closed-unknown-option" "$BIN" filter --fail-closed --bogus --library "$LIB"
  IN=Samples/messages/two-passes.eml capture "$F/max-size" "$BIN" filter --max-size 100 --library "$LIB" --trust Samples/ca/trust
  IN=Samples/messages/two-passes.eml capture "$F/bad-library" "$BIN" filter --library /nonexistent/dir/lib.sqlite --trust Samples/ca/trust
  capture "$F/check" "$BIN" filter --check --library "$LIB" --trust Samples/ca/trust
  capture "$F/check-json" "$BIN" filter --check --json --library "$LIB" --trust Samples/ca/trust
  capture "$F/check-bad-trust" "$BIN" filter --check --library "$LIB" --trust /nonexistent
  capture "$F/help" "$BIN" filter --help
  capture "$F/offers" "$BIN" offers --library "$LIB" --trust Samples/ca/trust
  capture "$F/offers-json" "$BIN" offers --json --library "$LIB"
  capture "$F/list-json" "$BIN" list --json --library "$LIB"
  capture "$F/log-json" "$BIN" log --json --library "$LIB"
  cp "$XDG_STATE_HOME/passconduit/filter.log" "$F/filter.log"
  normalize "$F/filter.log"
fi

if [[ " $PARTS " == *" commands "* ]]; then
  C=$OUT/commands
  mkdir -p "$C/add" "$C/show" "$C/help"
  LIB=$HOME_DIR/commands.sqlite
  mapfile -t passes < <(find Samples/passes "${REAL_PASSES:-/work/shared/corpus/pkpass-real}" -type f \( -name '*.pkpass' -o -name '*.pkpasses' \) | sort)
  n=0
  for p in "${passes[@]}"; do
    n=$((n + 1))
    capture "$C/add/$(printf %03d $n)" "$BIN" add --yes --allow-untrusted --allow-unsigned --library "$LIB" --trust Samples/ca/trust "$p"
  done
  capture "$C/list" "$BIN" list --library "$LIB" --trust Samples/ca/trust
  capture "$C/list-json" "$BIN" list --json --library "$LIB"
  capture "$C/log" "$BIN" log --library "$LIB"
  mapfile -t ids < <(sed -n 's/^{"schema":1,"id":"\([^"]*\)".*/\1/p' "$C/list-json.out")
  n=0
  for id in "${ids[@]}"; do
    n=$((n + 1))
    s=$C/show/$(printf %03d $n)
    capture "$s" "$BIN" show --library "$LIB" --trust Samples/ca/trust "$id"
    capture "$s.verbose" "$BIN" show --verbose --library "$LIB" --trust Samples/ca/trust "$id"
    capture "$s.json" "$BIN" show --json --library "$LIB" --trust Samples/ca/trust "$id"
    capture "$s.field" "$BIN" show --field serialNumber --library "$LIB" "$id"
  done
  capture "$C/show-unknown" "$BIN" show --library "$LIB" no.such/pass
  capture "$C/show-ambiguous" "$BIN" show --library "$LIB" pass
  # Help, version and usage errors: the root, every subcommand and the library's own subcommands.
  capture "$C/help/root" "$BIN" --help
  capture "$C/help/root-help" "$BIN" help
  capture "$C/help/root-bare" "$BIN"
  capture "$C/help/root-version" "$BIN" --version
  capture "$C/help/root-unknown" "$BIN" scna
  capture "$C/help/root-help-unknown" "$BIN" help scna
  capture "$C/help/root-bad-option" "$BIN" --bogus
  capture "$C/help/root-completion" "$BIN" --generate-completion-script bash
  capture "$C/help/root-dump-help" "$BIN" --experimental-dump-help
  mapfile -t names < <(sed -n '/^SUBCOMMANDS:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' "$C/help/root.out")
  [ "${#names[@]}" -gt 10 ] || { echo "compare.sh: found only ${#names[@]} subcommands in the root's help" >&2; exit 1; }
  for name in "${names[@]}" "library copy" "library create" "library list" "library drop" "library purge"; do
    read -r -a words <<< "$name"
    h=$C/help/${name// /-}
    capture "$h.help" "$BIN" "${words[@]}" --help
    capture "$h.h" "$BIN" "${words[@]}" -h
    capture "$h.help-hidden" "$BIN" "${words[@]}" --help-hidden
    capture "$h.help-command" "$BIN" help "${words[@]}"
    capture "$h.version" "$BIN" "${words[@]}" --version
    capture "$h.version-late" "$BIN" "${words[@]}" x --version
    capture "$h.bad-option" "$BIN" "${words[@]}" --bogus
    capture "$h.missing-value" "$BIN" "${words[@]}" --library
    capture "$h.dump-help" "$BIN" "${words[@]}" --experimental-dump-help
    capture "$h.completion" "$BIN" "${words[@]}" --generate-completion-script zsh
  done
fi
echo "$(cat "$OUT"/*.out 2>/dev/null | wc -l) NDJSON lines, $(cat "$OUT"/*.err 2>/dev/null | wc -l) stderr lines, $(find "$OUT" -type f | wc -l) files in $OUT"
if [ -n "$REF" ]; then
  if diff -r "$REF" "$OUT" > "$OUT.diff"; then echo "identical to $REF"; rm -f "$OUT.diff"; else echo "DIFFERS from $REF: $OUT.diff"; exit 1; fi
fi
