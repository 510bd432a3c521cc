"""gcloud's check of a local package's ``output-image-uri`` (the image gcloud would push), in gcloud's words.

gcloud (command_lib/ai/custom_jobs/validation.py) takes an output image only on Container Registry
(gcr.io, eu.gcr.io, asia.gcr.io, us.gcr.io) or Artifact Registry (a host ending -docker.pkg.dev),
and only as a Docker repository/tag reference (command_lib/ai/docker/utils.py
ValidateRepositoryAndTag). trainjobs builds no image, so the value is not kept (a note says so),
yet what gcloud refuses is refused here the same way.
"""

from __future__ import annotations

import re

_REGISTRIES = ("gcr.io", "eu.gcr.io", "asia.gcr.io", "us.gcr.io")
_HOST_PART = re.compile(r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])")
_COMPONENT = re.compile(r"[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*")
_PORT = re.compile(r"[0-9]+")
_TAG = re.compile(r"[\w][\w.-]{0,127}")


def problem(image: str) -> str | None:
    """Why gcloud refuses ``image`` as output-image-uri (its message after ``Invalid value for [...]: ``), or None."""
    host = image.split("/")[0]
    if host not in _REGISTRIES and not host.endswith("-docker.pkg.dev"):
        return "The value of `output-image-uri` has to be a valid gcr.io or Artifact Registry image"
    why = _reference(image)
    return None if why is None else f"'{image}' is not a valid container image uri: {why}"


def _reference(image: str) -> str | None:
    """gcloud's ValueError text for a name that is no repository[:tag] reference, or None."""
    if image.count(":") > 2:
        return "Unable to parse repository and tag."
    repository, colon, tag = image.rpartition(":")
    if not colon or "/" in tag:
        repository, tag = image, ""
    if len(repository) > 255:
        return "Repository name must not be more than 255 characters."
    components = repository.split("/")
    host = components[0] if len(components) > 1 and ("." in components[0] or ":" in components[0]) else None
    if host is not None:
        components = components[1:]
        if not _valid_host(host):
            return f'Invalid hostname/port "{host}" in repository name.'
    for component in components:
        if not component:
            return "Empty path component in repository name."
        if not _COMPONENT.fullmatch(component):
            return f'Invalid path component "{component}" in repository name.'
    if tag and len(tag) > 128:
        return "Tag name must not be more than 128 characters."
    if tag and not _TAG.fullmatch(tag):
        return "Invalid tag."
    return None


def _valid_host(host: str) -> bool:
    """Whether ``host`` is a registry's hostname, with a port or without."""
    name, _, port = host.rpartition(":") if ":" in host else (host, "", "")
    return all(_HOST_PART.fullmatch(part) for part in name.split(".")) and (not port or bool(_PORT.fullmatch(port)))
