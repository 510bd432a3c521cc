#!/usr/bin/env bash
# Set up .venv with every extra, then run the whole test suite. Extra args go to pytest:
#   bash scripts/test.sh                 everything (what CI runs, through .ci/run)
#   bash scripts/test.sh -m "not slow"   the fast lane: no training job, emulator, Pulumi host,
#                                        browser, gcloud, language server, shell or package install
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh  # first: it installs what setup.sh builds the C reader with
bash scripts/setup.sh dev
exec .venv/bin/python -m pytest "$@"
