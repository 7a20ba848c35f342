#!/usr/bin/env bash
# The Matrix bot's test peers (issue 42): a Synapse homeserver and matrix-nio with end-to-end
# encryption (vodozemac), both from PyPI (Debian 12 has no matrix-synapse, and its
# python3-matrix-nio 0.20 predates authenticated media), in one virtualenv under
# .build-peers/matrix. The bot in Bots/matrix runs with this virtualenv's python in the tests.
# Pinned with every dependency (pip freeze of a working install) and installed with --no-deps, so
# the set cannot drift. Idempotent: a no-op once the pinned set is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.build-peers/matrix
pins=(
  aiofiles==25.1.0
  aiohappyeyeballs==2.7.1
  aiohttp==3.14.5
  aiohttp_socks==0.12.0
  aiosignal==1.4.0
  annotated-types==0.8.0
  atomicwrites==1.4.1
  attrs==26.1.0
  Automat==25.4.16
  bcrypt==5.0.0
  bleach==6.4.0
  cachetools==8.0.3
  canonicaljson==2.0.0
  certifi==2026.10.19.post1
  cffi==2.1.1
  charset-normalizer==3.5.3
  constantly==23.10.4
  cryptography==50.0.2
  frozenlist==1.8.0
  h11==0.16.0
  h2==4.4.1
  hpack==4.2.0
  hyperframe==6.1.0
  hyperlink==21.0.0
  idna==3.21
  ijson==3.6.0
  immutabledict==4.3.1
  Incremental==24.11.0
  Jinja2==3.1.6
  jsonschema==4.26.0
  jsonschema-specifications==2025.9.1
  MarkupSafe==3.0.4
  matrix-common==1.3.0
  matrix-nio==0.26.0
  matrix-synapse==1.163.2
  msgpack==1.2.4
  multidict==7.2.1
  multipart==2.0.1
  netaddr==1.3.0
  packaging==26.4
  peewee==3.19.0
  phonenumbers==9.0.43
  pillow==13.0.0
  prometheus_client==0.26.0
  propcache==0.5.4
  pyasn1==0.6.5
  pyasn1_modules==0.4.2
  pycparser==3.12
  pycryptodome==4.5.0
  pydantic==2.14.4
  pydantic_core==2.50.5
  pymacaroons==0.13.0
  PyNaCl==1.6.2
  pyOpenSSL==26.4.0
  pyparsing==3.3.3
  pyrsistent==0.20.0
  python-multipart==0.0.34
  python-socks==3.2.2
  PyYAML==6.0.4
  referencing==0.37.0
  requests==2.34.2
  rpds-py==2026.9.1
  semantic-version==2.10.0
  service-identity==26.1.0
  setuptools-rust==1.13.0
  signedjson==1.1.4
  six==1.17.0
  sortedcontainers==2.4.0
  treq==26.7.0
  Twisted==26.10.0
  typing-inspection==0.4.5
  typing_extensions==4.16.0
  unpaddedbase64==2.1.0
  urllib3==2.8.0
  vodozemac==0.10.0
  webencodings==0.6.1
  yarl==1.25.1
  zope.interface==8.7
)
stamp="$venv/.pins"
want="$(printf '%s\n' "${pins[@]}")"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps "${pins[@]}"
"$venv/bin/python" -c "import synapse.app.homeserver, nio, nio.crypto; assert nio.crypto.ENCRYPTION_ENABLED"
printf '%s\n' "$want" > "$stamp"
