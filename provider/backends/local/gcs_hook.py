"""``/gcs/`` for a Python trainer where no mount namespace can be made (copied to the job's ``site/``).

Installed by the trainer's sitecustomize (trainer_site.py) when ``TRAINJOBS_GCS_ROOT`` is set
(gcs_fuse.GcsMode.PYTHON): ``open``/``io.open`` and the ``os`` functions that take a path map
``/gcs`` and ``/gcs/...`` to the storage root, so ``pathlib``, ``shutil``, ``glob``,
``os.path.exists`` and libraries that open files through Python (``torch.save``, ``numpy.save``,
pandas with a path) see the storage as on Vertex AI's FUSE mount. What opens files in C by itself,
and programs that are not Python, do not: gcs_fuse.py says so in the job's log. Standard library only.
"""

from __future__ import annotations

import builtins
import functools
import io
import os
from collections.abc import Callable
from typing import Any

ROOT_VAR = "TRAINJOBS_GCS_ROOT"
_ONE_PATH = ("open", "stat", "lstat", "listdir", "scandir", "mkdir", "rmdir", "remove", "unlink", "access",
             "chmod", "utime", "truncate", "chdir", "readlink")
_TWO_PATHS = ("rename", "replace", "link", "symlink")


def mapper(root: str) -> Callable[[Any], Any]:
    """The function that maps a path under /gcs to ``root``, and leaves every other argument as it is."""
    text, raw = root.rstrip("/"), os.fsencode(root.rstrip("/"))

    def mapped(path: Any) -> Any:
        if isinstance(path, int):
            return path  # a file descriptor
        try:
            p = os.fspath(path)
        except TypeError:
            return path
        if isinstance(p, str) and (p == "/gcs" or p.startswith("/gcs/")):
            return text + p[len("/gcs"):]
        if isinstance(p, bytes) and (p == b"/gcs" or p.startswith(b"/gcs/")):
            return raw + p[len(b"/gcs"):]
        return path
    return mapped


def _first(func: Callable[..., Any], mapped: Callable[[Any], Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def call(path: Any = None, *args: Any, **kwargs: Any) -> Any:
        if path is None and not args and "path" not in kwargs:
            return func(*args, **kwargs)  # os.listdir(), os.scandir(): the working directory
        return func(mapped(path), *args, **kwargs)
    return call


def _both(func: Callable[..., Any], mapped: Callable[[Any], Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def call(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
        return func(mapped(src), mapped(dst), *args, **kwargs)
    return call


def install(root: str) -> None:
    mapped = mapper(root)
    opened = _first(builtins.open, mapped)
    builtins.open = io.open = opened
    for name in _ONE_PATH:
        if hasattr(os, name):
            setattr(os, name, _first(getattr(os, name), mapped))
    for name in _TWO_PATHS:
        if hasattr(os, name):
            setattr(os, name, _both(getattr(os, name), mapped))
