#!/usr/bin/env bash
# Set up .venv, then do the main job on this machine: validate the specs, and run the example
# spec end to end on the local backend (a training job with its replica, logs and model).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/trainjobs validate specs
# --fresh: each run trains from scratch in its own output directory (JOBDIR/runs/TIME), rather
# than resuming the checkpoints an earlier run left in the spec's jobDir.
status=0
.venv/bin/trainjobs run --fresh "${1:-specs/local/simple.yaml}" || status=$?
echo
echo "trainjobs is .venv/bin/trainjobs; to type it bare, as the README does: source .venv/bin/activate"
exit "$status"
