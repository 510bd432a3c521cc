#!/usr/bin/env bash
# The pull request's verdict, after its comment was written: fails on invalid specs (the validate
# step's outcome, in VALIDATE) or on what the plan refuses (policy violations).
#   env: VALIDATE, BASE_REF
set -euo pipefail
if [ "${VALIDATE:-success}" != "success" ]; then
  echo "trainjobs validate failed: see the annotations on the diff and the plan comment" >&2
  exit 1
fi
exec trainjobs plan --base "origin/${BASE_REF:?BASE_REF is the pull request's base branch}"
