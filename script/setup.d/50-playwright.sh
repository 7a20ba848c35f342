#!/usr/bin/env bash
# The web wallet's browser test (issue 29): Playwright for Python driving Debian's chromium
# (executable_path=/usr/bin/chromium; Playwright's own browser download is not used), in a
# virtualenv under .build-peers/playwright that also sees Debian's python3-zxing-cpp, numpy and
# PIL (--system-site-packages), and axe-core (axe-playwright-python bundles axe.min.js) for the
# accessibility checks. Idempotent: a no-op once the pinned set is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.build-peers/playwright
pins=(playwright==1.65.2 greenlet==3.3.0 pyee==13.0.0 typing_extensions==4.16.0 axe-playwright-python==0.1.8)
stamp="$venv/.pins"
want="$(printf '%s\n' "${pins[@]}")"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps "${pins[@]}"
"$venv/bin/python" -c "import playwright.sync_api, axe_playwright_python.sync_playwright"
printf '%s\n' "$want" > "$stamp"
