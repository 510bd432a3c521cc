#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install trainjobs into it. Idempotent and quiet.
#   scripts/setup.sh          runtime only (validate, run jobs locally)
#   scripts/setup.sh dev      everything: Vertex AI SDK, Pulumi, test tools
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      PYTHON="$candidate"; break
    fi
  done
fi
if [ -z "$PYTHON" ]; then
  echo "trainjobs needs Python 3.11 or later on PATH (or set PYTHON=...)" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=".venv/.trainjobs-installed-${extras:-runtime}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ]; then
  spec="."
  [ -n "$extras" ] && spec=".[$extras]"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e "$spec" 2>&1 \
    | grep -v "^WARNING: Location" || true
  .venv/bin/python -c "import provider" # fail loudly if the install did not work
  touch "$stamp"
fi
