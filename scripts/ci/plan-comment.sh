#!/usr/bin/env bash
# The pull-request comment for the latest push: the plan, and first, when validation failed, the
# problems. Run by .github/workflows/trainjobs.yml after the validate and plan steps, whatever they
# did, so an old "passing" comment never outlives a push that broke a spec.
#   env: VALIDATE (the validate step's outcome), HEAD_SHA (optional), BASE_REF; reads plan.md if any
set -uo pipefail
marker='<!-- trainjobs-plan -->'
echo "$marker"
if [ "${VALIDATE:-success}" != "success" ]; then
  echo "## trainjobs: validation failed${HEAD_SHA:+ at ${HEAD_SHA:0:7}}"
  echo
  echo "Fix these problems; the plan below is computed from what could be read."
  echo
  # The report fenced by trainjobs itself, with a fence longer than any run of backticks in it: a
  # file name or value cannot close it (docs/gitops.md). What validate writes to stderr (a usage
  # error) goes to the workflow's log, not into the comment.
  report=$(NO_COLOR=1 trainjobs validate --format markdown)
  if [ -n "$report" ]; then
    printf '%s\n' "$report"
  else
    echo "trainjobs validate wrote no report: see the workflow's log."
  fi
  echo
fi
if [ -s plan.md ]; then
  # the plan's own first line is the marker: print it once
  sed '1{/^<!-- trainjobs-plan -->$/d}' plan.md
else
  echo "The plan could not be computed: see the workflow's log."
fi
