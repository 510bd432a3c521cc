"""A local package's output-image-uri: trainjobs refuses what gcloud refuses, in gcloud's words.

gcloud's own check (command_lib/ai/custom_jobs/validation.py: the registry host, then
docker/utils.py ValidateRepositoryAndTag) runs in gcloud's bundled Python on each name, and its
message is compared with provider.gcloud.output_image's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.gcloud import output_image

from .gcloud_loader import NO_GCLOUD, gcloud_yaml

NAMES = [
    "eu.gcr.io/project/image", "eu.gcr.io/projectName/imageName", "docker.io/someone/trainer", "someone/trainer",
    "trainer", "gcr.io/p/t:v1", "gcr.io/p/t:", "gcr.io/p/t:v1:x", "gcr.io/p/t:-bad", "gcr.io/p//t",
    "us-central1-docker.pkg.dev/p/repo/img:latest", "us-central1-docker.pkg.dev/p/repo/img@sha256:abc",
    "europe-docker.pkg.dev/p/r/a__b", "europe-docker.pkg.dev/p/r/a___b", "europe-docker.pkg.dev/p/r/a--b",
    "europe-docker.pkg.dev:443/p/r/i", "gcr.io:x/p/i", "us.gcr.io/p/" + "a" * 260, "gcr.io/p/i:" + "t" * 129,
    "asia.gcr.io/p/i:1.0-rc_2", "gcr.io/p/-i", "gcr.io/p/i.", "GCR.IO/p/i",
]

# gcloud's validation of output-image-uri, as validation.py writes it, printed as one line a name
_GCLOUD = """from googlecloudsdk.command_lib.ai.docker import utils
host = t.split('/')[0]
if host not in ['gcr.io', 'eu.gcr.io', 'asia.gcr.io', 'us.gcr.io'] and not host.endswith('-docker.pkg.dev'):
    print('The value of `output-image-uri` has to be a valid gcr.io or Artifact Registry image')
    continue
try:
    utils.ValidateRepositoryAndTag(t)
    print('OK')
except ValueError as e:
    print("'{}' is not a valid container image uri: {}".format(t, e))
"""


@pytest.mark.skipif(NO_GCLOUD, reason="gcloud is not installed: the comparison needs gcloud's own Python")
def test_output_image_refused_as_gcloud_refuses(tmp_path: Path) -> None:
    theirs = gcloud_yaml(tmp_path, _GCLOUD, NAMES)
    ours = [output_image.problem(name) or "OK" for name in NAMES]
    assert ours == theirs
    assert "OK" in ours and len(set(ours)) > 5  # the names reach both answers and several reasons
