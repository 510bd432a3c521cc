"""``trainjobs convert train.sh``: a shell script that submits a training job, converted as its gcloud command.

A ``.sh`` or ``.bash`` file, or any file whose first line is a ``#!`` of bash or sh (provider.cli.convert_sources
picks this reader), is read as ``trainjobs convert --gcloud "$(cat train.sh)"`` reads its text
(provider.cli.convert_gcloud: as bash reads it, provider.gcloud.words), and messages name the file's line and
column (``train.sh:7:12: ...``). Its bytes are checked as a spec's are (provider.document.text.decode: size,
UTF-8, no NUL). bash reads a file to its end as if a newline ended it: a lone backslash that ends a file without a
final newline is dropped (a ``\\``-newline to nothing), where ``bash -c TEXT`` would keep it; so is it here.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

SUFFIXES = (".sh", ".bash")
_SHEBANG = re.compile(rb"#![ \t]*(?:/usr)?/bin/(?:env[ \t]+)?(?:bash|sh)(?:[ \t]|\r?$)")


# The convert options this reader takes of those that go only with some inputs (convert_sources.refuse_options).
TAKES: tuple[str, ...] = ("staging_bucket", "stack")


def is_script(raw: bytes) -> bool:
    """Whether a file's first line is a ``#!`` of bash or sh (``#!/bin/bash``, ``#!/usr/bin/env bash``...)."""
    return _SHEBANG.match(raw.split(b"\n", 1)[0]) is not None


def run(raw: bytes, shown: str, path: Path, args: argparse.Namespace) -> int:
    from provider.cli.convert_gcloud import run_gcloud
    from provider.cli.convert_sources import decoded

    text = decoded(raw, shown, "a shell script")
    if text is None:
        return 1
    if not text.endswith("\n"):  # what bash reads of a file whose last line has no newline
        text += "\n"
    args.gcloud, args.gcloud_origin, args.gcloud_script = text, shown, shown
    return run_gcloud(args)
