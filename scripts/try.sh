#!/usr/bin/env bash
# Set up .venv, then do the main job on this machine: validate every example spec and
# summarise them. (Extra args go to trainjobs validate.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/trainjobs validate specs --summary "$@"
