"""calliope's ArgList / ArgDict splitting, as arg_types.py reads it (checked beside gcloud in test_arg_escaping.py).

These run without gcloud: the expected values are what gcloud 528 sent for the same text through
the stand-in (test_arg_escaping.py holds that comparison where gcloud is installed).
"""

from __future__ import annotations

import pytest

from provider.gcloud.arg_types import GcloudError, Lexed, items, labels, pairs
from provider.gcloud.command import parse


@pytest.mark.parametrize(("text", "expected"), [
    ("a,b", ["a", "b"]),
    ("^:^a,b:c", ["a,b", "c"]),
    ("^::^a:b::c", ["a:b", "c"]),
    ("^,^^a^,b,c", ["^a^", "b", "c"]),
    ("^a,b", ["^a", "b"]),  # no second ^: not an escape
    ("^", ["^"]),
    ("^:^", []),
    ("", []),
    ("a,,b,", ["a", "", "b"]),  # one trailing delimiter dropped, empty items kept
    (",b", ["", "b"]),
    ("^ ^sh -c", ["sh", "-c"]),
])
def test_items_split_as_arglist_splits(text: str, expected: list[str]) -> None:
    assert items("--args", text) == expected


@pytest.mark.parametrize("text", ["^^a,b", "^^", "^^^a"])
def test_an_empty_delimiter_is_refused_in_gcloud_s_words(text: str) -> None:
    with pytest.raises(GcloudError, match=r"argument --args: Invalid delimeter\. Please see `gcloud topic"):
        items("--args", text)


def test_a_flags_file_list_is_kept_whole() -> None:
    assert items("--args", Lexed(["--ids=1,2", "^:^a:b"])) == ["--ids=1,2", "^:^a:b"]
    with pytest.raises(GcloudError, match=r"Invalid type \[dict\] for flag value \(a mapping in the --flags-file\)"):
        items("--args", Lexed({"a": "b"}))


def test_pairs_split_as_argdict_splits() -> None:
    assert pairs("--labels", "^:^a=1:b=x,y=z") == {"a": "1", "b": "x,y=z"}
    assert pairs("--labels", "a=1,a=2") == {"a": "2"}  # within one value the last wins, as in gcloud
    for text, words in [("a=1,,b=2", "Invalid flag value []"), ("^:^=1", "Invalid flag value [=1]"),
                        ("a,b=1", "Bad syntax for dict arg: [a]")]:
        with pytest.raises(GcloudError) as refused:
            pairs("--labels", text)
        assert f"argument --labels: {words}" in str(refused.value)


def test_labels_are_checked_as_labels_util_checks_them() -> None:
    assert labels("--labels", "^:^k=v:w=" ) == {"k": "v", "w": ""}
    assert labels("--labels", Lexed({"a": "b", "c": ""})) == {"a": "b", "c": ""}
    for value, words in [("^:^k=v,w", "Bad value [v,w]: Only hyphens"), ("K=v", "Bad value [K]: Only hyphens"),
                         (Lexed({"a": 1}), "invalid ArgDict value: the value of a is int"),
                         (Lexed({"a": None}), "Bad syntax for dict arg: [a]")]:
        with pytest.raises(GcloudError) as refused:
            labels("--labels", value)
        assert words in str(refused.value)


def test_repeated_args_items_are_refused_and_pools_take_the_escape() -> None:
    with pytest.raises(GcloudError, match='argument --args: "1" cannot be specified multiple times'):
        parse(["gcloud", "ai", "custom-jobs", "create", "--args=--a,1", "--args=--b,1"])
    cmd = parse(["gcloud", "ai", "custom-jobs", "create",
                 "--worker-pool-spec=^;^machine-type=n1-standard-4;replica-count=2;container-image-uri=gcr.io/a,b"])
    assert cmd.values["workerPoolSpecs"] == [{"machine-type": "n1-standard-4", "replica-count": 2,
                                              "container-image-uri": "gcr.io/a,b"}]
