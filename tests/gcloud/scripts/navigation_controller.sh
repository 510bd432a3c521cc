#!/bin/sh
# Adapted from a public script (find_string id 2412540700): its docker build and docker push lines removed
# (they run before the gcloud command, which trainjobs refuses by name), and --config docker/config.yaml
# replaced by --scale-tier BASIC; the rest is as written there.

PROJECT_ID=$(gcloud config list project --format "value(core.project)")
BUCKET_NAME=${PROJECT_ID}-aiplatform

echo "Project ID: $PROJECT_ID"
echo "Project Bucket: $BUCKET_NAME"

REGION="$(gcloud config get-value compute/region)"
echo "Project Region: $REGION"

IMAGE_REPO_NAME=navigation_controller_container
IMAGE_TAG=navigation_controller_pytorch
IMAGE_URI=gcr.io/$PROJECT_ID/$IMAGE_REPO_NAME:$IMAGE_TAG
JOB_NAME=experiment_$(date +%Y%m%d_%H%M%S)

gcloud ai-platform jobs submit training $JOB_NAME \
  --region $REGION \
  --master-image-uri $IMAGE_URI \
  --scale-tier BASIC \
  -- \
  --logdir=gs://$BUCKET_NAME \
  --timesteps=1000000 \
  --batch_size=128 \
  --max_episode_size=5000

gcloud ai-platform jobs stream-logs $JOB_NAME
