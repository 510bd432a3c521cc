"""A command copied from a document with its shell prompt (``$ gcloud ai custom-jobs create ...``, as in a README's
examples; find_string id 59894798326): bash would run a command named ``$``, so it is refused, naming the prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import split_words

LINE = ("gcloud ai custom-jobs create --region=us-central1 --display-name=test "
        "--worker-pool-spec=replica-count=1,machine-type=n1-highmem-2,container-image-uri=gcr.io/ucaip-test/t")


@pytest.mark.parametrize("prompt", ["$", "%"])
def test_a_prompt_before_gcloud_is_named(prompt: str, tmp_path: Path) -> None:
    with pytest.raises(GcloudError) as refused:
        parse(split_words(f"{prompt} {LINE}", {}, tmp_path))
    assert f"it begins with '{prompt}', a shell prompt copied from a document" in str(refused.value)
    assert "leave the prompt out" in str(refused.value)


def test_another_first_word_is_not_called_a_prompt(tmp_path: Path) -> None:
    with pytest.raises(GcloudError) as refused:
        parse(split_words(f"sudo {LINE}", {}, tmp_path))
    assert "prompt" not in str(refused.value) and "the line must start with gcloud" in str(refused.value)
