"""Examples for every command's ``--help``: one table, attached to the parser once it is built.

Each command module declares its own options; the examples live here, as data, so that one test
(tests/test_cli_help.py) can check that every command has them, and run the ones that start
nothing, in the order a new user would.
"""

from __future__ import annotations

import argparse

# A command's path (as typed after ``trainjobs``) -> its examples, each "COMMAND  # what it does".
EXAMPLES: dict[str, tuple[str, ...]] = {
    "validate": (
        "trainjobs validate                              # every spec under specs/, and the stack files",
        "trainjobs validate specs/vision/resnet.yaml     # one spec, checked in the stacks that hold it",
        "trainjobs validate specs --format json          # machine-readable problems",
        "trainjobs validate stacks/Pulumi.vision-dev.yaml  # a stack file and the specs it holds",
    ),
    "schema": (
        "trainjobs schema > trainingjob.schema.json      # the JSON Schema of specs",
        "trainjobs schema --stack                        # the JSON Schema of stack files",
    ),
    "convert": (
        "trainjobs convert config.yaml --name my_job --region us-central1  # an AI Platform config.yaml",
        "trainjobs convert job.json --format request     # the exact Vertex AI request it makes",
        "trainjobs convert --gcloud 'gcloud ai custom-jobs create --region=us-central1 ...' --write specs/team/job.yaml",
        "trainjobs convert train.sh                      # a shell script's gcloud training command",
        "trainjobs convert train.ipynb --cell 4          # a notebook's !gcloud line or SDK job, in cell 4",
        "trainjobs convert train.py                      # Python that launches a job with the Vertex AI SDK",
        "trainjobs convert cloudbuild.yaml               # a Cloud Build or GitHub Actions training step",
    ),
    "run": (
        "trainjobs run specs/local/simple.yaml           # submit, follow to the end, exit with its outcome",
        "trainjobs run specs/local/simple.yaml --dry-run # where it would run, the request, the verdict",
        "trainjobs run specs/local/simple.yaml --detach  # submit and print the job id",
        "trainjobs run specs/local/simple.yaml --fresh   # an output directory of its own (no resume)",
    ),
    "jobs": (
        "trainjobs jobs list                             # this machine's jobs, newest first",
        "trainjobs jobs prune --older-than 7d            # forget finished jobs older than a week",
    ),
    "jobs list": (
        "trainjobs jobs list --limit 20",
        "trainjobs jobs list --stack vision-dev --format json",
    ),
    "jobs prune": (
        "trainjobs jobs prune --older-than 7d --dry-run  # what would go",
        "trainjobs jobs prune --keep 50                  # keep the newest 50 finished jobs",
    ),
    "status": (
        "trainjobs status local_simple                   # a job name (its newest run), an id or an id prefix",
        "trainjobs status local_simple --format json",
    ),
    "logs": (
        "trainjobs logs local_simple                     # every line in time order: pip's (setup), then the trainer's",
        "trainjobs logs local_simple --follow            # until the job ends; exits with its outcome (0, 6, 7)",
        "trainjobs logs local_simple --replica workerpool0-0",
        "trainjobs logs local_simple --source trainer --tail 20   # the trainer's last 20 lines",
        "trainjobs logs local_simple --since 10m --format json    # JSON lines with timestamp and source",
    ),
    "cancel": (
        "trainjobs cancel local_simple",
        "trainjobs cancel vision_resnet_t4 --stack vision-dev",
    ),
    "emulator": (
        "trainjobs emulator --port 8470                  # Vertex AI's job API, Cloud Storage and Logging here",
        "trainjobs emulator --state-dir ~/.trainjobs-emulator --cpu",
    ),
    "up": ("trainjobs up --stack local                      # pulumi up for a stack (needs the Pulumi CLI)",),
    "preview": ("trainjobs preview --stack vision-dev            # pulumi preview (needs the Pulumi CLI)",),
    "refresh": ("trainjobs refresh --stack vision-dev            # pulumi refresh (needs the Pulumi CLI)",),
    "destroy": ("trainjobs destroy --stack local                 # pulumi destroy (needs the Pulumi CLI)",),
    "plan": (
        "trainjobs plan --base origin/main               # what a pull request does to each stack",
        "trainjobs plan --base origin/main --format markdown  # the same, as a pull-request comment",
    ),
    "affected-stacks": (
        "trainjobs affected-stacks --base origin/main --format json",
    ),
    "codeowners": (
        "trainjobs codeowners > .github/CODEOWNERS       # reviewers from each stack's trainjobs:policy owners",
        "trainjobs codeowners --check .github/CODEOWNERS # exit 1 when it is out of date",
    ),
    "completion": (
        'eval "$(trainjobs completion bash)"             # in ~/.bashrc',
        "trainjobs completion fish > ~/.config/fish/completions/trainjobs.fish",
    ),
    "artifacts": (
        "trainjobs artifacts local_simple                # what the job wrote: model/, checkpoints/, logs/",
        "trainjobs artifacts local_simple --download ./outputs",
    ),
    "tensorboard": ("trainjobs tensorboard local_simple --port 6006  # TensorBoard on the job's logs",),
    "gpus": (
        "trainjobs gpus                                  # every accelerator, its counts, regions and lowest price",
        "trainjobs gpus A100                             # each way to get A100s: count, machine type, price",
        "trainjobs gpus l4 --region europe-west4         # L4 offers in one region, with that region's prices",
        "trainjobs gpus --machine-type a2-highgpu-2g     # what one machine type takes",
        "trainjobs gpus V100 --count 2 --format json     # machine types that take 2 x V100, as JSON",
        "trainjobs gpus --all                            # also the retired accelerators (K80, P100 ...)",
    ),
    "console": (
        "trainjobs console                               # this machine's jobs, at the address it prints",
        "trainjobs console --stack local --stack vision-dev --port 8080",
    ),
}


def commands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, by its path (``jobs list``)."""
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[prefix + name] = sub
                out.update(commands(sub, f"{prefix}{name} "))
    return out


def attach(parser: argparse.ArgumentParser) -> None:
    """Put each command's examples at the end of its ``--help`` (before notes it has), lines kept as written."""
    for path, sub in commands(parser).items():
        lines = EXAMPLES.get(path)
        if lines:
            examples = "examples:\n" + "\n".join(f"  {line}" for line in lines)
            sub.epilog = f"{examples}\n\n{sub.epilog}" if sub.epilog else examples
            sub.formatter_class = argparse.RawDescriptionHelpFormatter
