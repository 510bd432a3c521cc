"""A stand-in for the public training service's script: its data and model paths come from the environment."""

import os

print({name: os.environ.get(name) for name in ("TRAINING_DATA_URI", "MODEL_OUTPUT_URI", "HYPERPARAMETERS")})
