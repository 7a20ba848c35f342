#!/usr/bin/env bash
# The PassKit web-service peer for the `update` tests (issue 12): django-walletpass 5.0.1 from
# PyPI in a virtualenv under .build-peers/walletpass, every package pinned (the versions the
# research note ran: shared/research/walletpass-peer.md). Idempotent: a no-op once the pinned
# set is installed and `pip check` passes.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.build-peers/walletpass
pins=(
  django-walletpass==5.0.1 Django==5.2.19 djangorestframework==3.18.3 cryptography==50.0.2
  aioapns==3.3.1 asgiref==3.13.0 cffi==2.1.1 h2==4.4.1 hpack==4.2.0 hyperframe==6.1.0 pycparser==3.12
  PyJWT==2.15.1 pyOpenSSL==26.4.0 python-dateutil==4.0.0 sqlparse==0.6.1 typing_extensions==4.16.0 tzdata==2026.6
)
stamp="$venv/.pins"
want="$(printf '%s\n' "${pins[@]}")"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
# Debian's python3 (python3-venv); a pyenv python first on PATH is not what CI has.
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps "${pins[@]}"
"$venv/bin/pip" check
printf '%s\n' "$want" > "$stamp"
