"""A stand-in for the public script's fine-tune-RF.py: the training script a CustomTrainingJob packages."""

import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--dataset-url")
parser.add_argument("--staging_bucket")
print(parser.parse_args())
