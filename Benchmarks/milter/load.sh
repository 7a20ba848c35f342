#!/usr/bin/env bash
# Milter load test (issue 27): MilterLoadTests with 10 000 messages instead of CI's 1 000 —
# a private Postfix with the milter (--user nobody), 1 in 50 messages with a pass of its own,
# 3 recipients each out of four mailboxes (two with libraries, one whose library is read-only to
# the milter, one without). It checks that every delivered copy is the sent bytes plus our header
# fields, that each library holds exactly the offers sent to it, and that the log names every
# failure; it prints the delivery time and msg/s, then the whole run's wall time.
#
#   Benchmarks/milter/load.sh                 (as root; builds the tests first)
#   SKIP_BUILD=1 COUNT=20000 Benchmarks/milter/load.sh
# Needs postfix and python3 (script/packages/milter.txt). Uses the debug build the tests use.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "${SKIP_BUILD:-0}" = 1 ] || swift build --build-tests >&2
start=$(date +%s.%N)
PASSCONDUIT_LOAD_MESSAGES=${COUNT:-10000} .build/debug/passconduitPackageTests.xctest \
  EndToEndTests.MilterLoadTests 2>&1 | grep -E "milter load:|error:|passed|failed"
end=$(date +%s.%N)
python3 -c "import sys; print('milter load: wall time %.1f s' % (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$end"
