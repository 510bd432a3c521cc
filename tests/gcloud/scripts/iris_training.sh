# Adapted from a public script (find_string id 3690129161): its mkdir and touch lines (which create the package)
# removed, the project placeholder made a gcloud config set, and the runtime 1.13 / Python 3.5 made 2.11 / 3.7.

# Set Environment Variables
gcloud config set project my-project-1
PROJECT_ID=$(gcloud config get-value project)
BUCKET_NAME=demo-iris
JOB_NAME=iris_training_$(date +"%Y%m%d_%H%M%S")
JOB_DIR=gs://$BUCKET_NAME/scikit_learn_job_dir
TRAINING_PACKAGE_PATH="./iris_training/"
MAIN_TRAINER_MODULE=iris_training.train
REGION=us-central1
RUNTIME_VERSION=2.11
PYTHON_VERSION=3.7
SCALE_TIER=BASIC

# Submit a training job
gcloud ai-platform jobs submit training $JOB_NAME \
  --job-dir $JOB_DIR \
  --package-path $TRAINING_PACKAGE_PATH \
  --module-name $MAIN_TRAINER_MODULE \
  --region $REGION \
  --runtime-version=$RUNTIME_VERSION \
  --python-version=$PYTHON_VERSION \
  --scale-tier $SCALE_TIER

# Viewing your training logs (optional)
gcloud ai-platform jobs stream-logs $JOB_NAME
