#!/bin/bash
# Adapted from a public script (find_string id 24133314205): its header comments shortened, and
# --config rapids_a100.yaml replaced by --master-image-uri and --scale-tier BASIC; the commented-out
# stream-logs line made a command.

export REGION=us-central1
export JOB_NAME=rapids_job_$(date +%Y%m%d_%H%M%S)

gcloud ai-platform jobs submit training $JOB_NAME --region $REGION --master-image-uri gcr.io/p/rapids:1 --scale-tier BASIC

gcloud ai-platform jobs stream-logs $JOB_NAME
