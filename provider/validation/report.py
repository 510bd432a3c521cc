"""Print problems as text (with colour unless NO_COLOR), JSON, GitHub workflow annotations, or Markdown.

A problem's file name and message may carry what a pull request wrote: the text and Markdown
reporters show each field through provider.document.excerpt.printable (control characters, ANSI
escapes and bidi overrides as escapes) before adding colour of their own; the Markdown reporter
fences the text report (provider.document.markdown.fence). JSON escapes by itself, and the
GitHub reporter escapes what a workflow command would read as a line break.
"""

from __future__ import annotations

import json
import os
from typing import IO, Protocol

from provider.core.problem import Problem, Severity
from provider.document.excerpt import printable


class Reporter(Protocol):
    def report(self, problems: list[Problem], checked: int, invalid: int, out: IO[str],
               stacks: tuple[int, int] | None = None) -> None: ...


def summary(checked: int, invalid: int, stacks: tuple[int, int] | None) -> str:
    """``3 specs checked: 3 valid, 0 invalid; 5 stack files checked: 5 valid, 0 invalid``.

    ``stacks`` is (stack files checked, invalid ones); without it the count is of files.
    """
    if stacks is None:
        return f"{checked} {'file' if checked == 1 else 'files'} checked: {checked - invalid} valid, {invalid} invalid"
    text = f"{checked} {'spec' if checked == 1 else 'specs'} checked: {checked - invalid} valid, {invalid} invalid"
    files, bad = stacks
    if files:
        text += f"; {files} stack {'file' if files == 1 else 'files'} checked: {files - bad} valid, {bad} invalid"
    return text


def use_colour(stream: IO[str], choice: str = "auto") -> bool:
    if choice == "always":
        return True
    if choice == "never" or "NO_COLOR" in os.environ:
        return False
    return hasattr(stream, "isatty") and stream.isatty()


_COLOURS = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.NOTE: "1;36"}


class TextReporter:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def _c(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    def format(self, p: Problem) -> str:
        sev = self._c(_COLOURS[p.severity], p.severity.value)
        lines = [f"{self._c('1', printable(p.where))}: {sev}: {printable(p.message)}"]
        if p.via:
            lines.append(f"    {printable(p.via)}")
        if p.path:
            lines.append(f"    at {self._c('36', printable(p.path))}")
        if p.allowed:
            lines.append(f"    allowed: {printable(p.allowed)}")
        if p.hint:
            lines.append(f"    {self._c('32', printable(p.hint))}")
        if p.source:
            lines.append(self._c("2", printable(f"    [{p.rule}] {p.source}")))
        return "\n".join(lines)

    def report(self, problems: list[Problem], checked: int, invalid: int, out: IO[str],
               stacks: tuple[int, int] | None = None) -> None:
        for p in problems:
            print(self.format(p), file=out)
        errors, warnings, notes = (sum(1 for p in problems if p.severity is s) for s in Severity)
        text = summary(checked, invalid, stacks)
        if problems:
            text += f" ({errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
            text += f", {notes} note{'s' if notes != 1 else ''})" if notes else ")"
        colour = "1;32" if not invalid and not (stacks and stacks[1]) else "1;31"
        print(("\n" if problems else "") + self._c(colour, text), file=out)


class JsonReporter:
    """``problems`` holds the errors and warnings; ``notes`` what is said for information (a spec in no stack)."""

    def report(self, problems: list[Problem], checked: int, invalid: int, out: IO[str],
               stacks: tuple[int, int] | None = None) -> None:
        files, bad = stacks or (0, 0)
        notes = [p for p in problems if p.severity is Severity.NOTE]
        json.dump(
            {
                "ok": invalid == 0 and bad == 0,
                "checked": checked + files,
                "invalid": invalid + bad,
                "specs_checked": checked,
                "stack_files_checked": files,
                "errors": sum(1 for p in problems if p.is_error),
                "warnings": sum(1 for p in problems if p.severity is Severity.WARNING),
                "problems": [p.as_dict() for p in problems if p.severity is not Severity.NOTE],
                "notes": [p.as_dict() for p in notes],
            },
            out,
            indent=2,
        )
        out.write("\n")


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


class GithubReporter:
    """GitHub Actions workflow commands: each problem becomes an annotation on the PR diff."""

    def report(self, problems: list[Problem], checked: int, invalid: int, out: IO[str],
               stacks: tuple[int, int] | None = None) -> None:
        for p in problems:
            level = {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(p.severity, "notice")
            props = [f"file={_escape(printable(p.file), True)}"]
            if p.line is not None and p.cell is None:  # a notebook cell's line is not the .ipynb file's
                props.append(f"line={p.line}")
                props.append(f"col={p.column or 1}")
            props.append(f"title={_escape(p.rule, True)}")
            body = printable(p.message if p.cell is None else f"{p.where.removeprefix(p.file).lstrip()}: {p.message}")
            if p.path:
                body += f" (at {printable(p.path)})"
            if p.via:
                body += f"\n{printable(p.via)}"
            if p.allowed:
                body += f"\nallowed: {printable(p.allowed)}"
            if p.hint:
                body += f"\n{printable(p.hint)}"
            print(f"::{level} {','.join(props)}::{_escape(body)}", file=out)
        print(summary(checked, invalid, stacks), file=out)


class MarkdownReporter:
    """The text report (no colour) in a fenced code block, for a pull-request comment: nothing in it
    renders, and the fence is longer than any run of backticks inside. At most ``LIMIT`` characters
    (a comment holds 65,536, and the plan follows): the rest is cut, and the cut says so."""

    LIMIT = 50_000

    def report(self, problems: list[Problem], checked: int, invalid: int, out: IO[str],
               stacks: tuple[int, int] | None = None) -> None:
        from io import StringIO

        from provider.document.markdown import fence

        text = StringIO()
        TextReporter(colour=False).report(problems, checked, invalid, text, stacks)
        body = text.getvalue()
        if len(body) > self.LIMIT:
            body = body[:self.LIMIT] + f"\n... ({len(body) - self.LIMIT:,} more characters: run trainjobs validate)"
        print(fence(body), file=out)


def reporter(fmt: str, out: IO[str], colour: str = "auto") -> Reporter:
    if fmt == "markdown":
        return MarkdownReporter()
    if fmt == "json":
        return JsonReporter()
    if fmt == "github":
        return GithubReporter()
    return TextReporter(use_colour(out, colour))
