"""What the evaluator of provider.document.python_eval computes with Python's own functions, and what a call's module
says of a value it does not compute: one table each, kept apart from the evaluator so that it stays one concept.

* ``BINARY``, ``COMPARE``, ``UNARY``: Python's operators (``a op b`` and ``a op= b``);
* ``BUILTINS``: the pure builtins (``str()``, ``len()``, ``sorted()``...); ``STR_METHODS``: the pure methods of str;
  ``BYTES_METHODS``: those of bytes the evaluator reads (what ``subprocess.check_output`` gives, decoded);
* ``PATHS``: ``os.path.join`` and its kin, and ``pathlib.Path`` of a known str (a ``PurePosixPath``: the path's text,
  never the file system), with ``PATH_ATTRIBUTES`` and ``PATH_METHODS``;
* ``SOURCES``: a call's module -> what the value it gives comes from, said where it is not known.
"""

from __future__ import annotations

import ast
import operator
import posixpath
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

BINARY: dict[type[ast.operator], tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    ast.Add: (operator.add, operator.iadd), ast.Sub: (operator.sub, operator.isub),
    ast.Mult: (operator.mul, operator.imul), ast.Div: (operator.truediv, operator.itruediv),
    ast.FloorDiv: (operator.floordiv, operator.ifloordiv), ast.Mod: (operator.mod, operator.imod),
    ast.Pow: (operator.pow, operator.ipow), ast.BitOr: (operator.or_, operator.ior),
    ast.BitAnd: (operator.and_, operator.iand), ast.BitXor: (operator.xor, operator.ixor),
    ast.LShift: (operator.lshift, operator.ilshift), ast.RShift: (operator.rshift, operator.irshift)}
COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not}
UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_, ast.Invert: operator.invert}
BUILTINS: dict[str, Callable[..., Any]] = {
    "str": str, "int": int, "float": float, "bool": bool, "len": len, "repr": repr, "list": list, "tuple": tuple,
    "abs": abs, "min": min, "max": max, "sorted": sorted, "round": round, "dict": dict}
STR_METHODS = frozenset({
    "format", "join", "lower", "upper", "strip", "lstrip", "rstrip", "replace", "split", "rsplit", "startswith",
    "endswith", "title", "capitalize", "casefold", "removeprefix", "removesuffix", "splitlines", "find", "rfind",
    "count", "isdigit", "isalpha", "isalnum", "isidentifier", "zfill", "ljust", "rjust", "center", "partition",
    "rpartition", "swapcase"})
BYTES_METHODS = ("decode", "strip", "rstrip", "lstrip")  # of what subprocess.check_output gives (python_shell)
PATHS: dict[str, Callable[..., Any]] = {
    "os.path.join": posixpath.join, "os.path.basename": posixpath.basename, "os.path.dirname": posixpath.dirname,
    "os.path.splitext": posixpath.splitext, "os.path.split": posixpath.split, "os.path.normpath": posixpath.normpath,
    "pathlib.Path": PurePosixPath, "pathlib.PurePath": PurePosixPath, "pathlib.PurePosixPath": PurePosixPath}
PATH_ATTRIBUTES = frozenset({"name", "stem", "suffix", "suffixes", "parent", "parts", "anchor"})
PATH_METHODS = frozenset({"with_suffix", "with_name", "with_stem", "joinpath", "as_posix", "relative_to",
                          "is_absolute", "match"})
SOURCES = (  # a call's module -> what its value comes from
    (("datetime.", "time."), "the time the code runs"),
    (("uuid.", "random.", "secrets."), "a random value"),
    (("subprocess.",), "a command's output"))
