"""A stand-in for the public notebook's my_vertex_ai_training_task.py: a CustomTrainingJob's script, run on two
replicas (it reads the cluster from $CLUSTER_SPEC / $TF_CONFIG)."""

import json
import os

print(json.loads(os.environ.get("TF_CONFIG", "{}")))
