#!/usr/bin/env bash
# Set up .venv, then do the main job on this machine: validate the specs, and run the example
# spec end to end on the local backend (a training job with its replica, logs and model).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/trainjobs validate specs
exec .venv/bin/trainjobs run "${1:-specs/local/simple.yaml}"
