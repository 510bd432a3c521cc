"""A stand-in for the public script's load-state-dict.py: the training script CustomJob.from_local_script packages."""

import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--model-name")
parser.add_argument("--state-dict-path")
print(parser.parse_args())
