"""Repository text made inert in GitHub-flavoured Markdown: the one home of every escaping rule.

A pull request chooses file names, job names and values, and a plan comment quotes them. On
GitHub they must render as the text they are: no heading, list or table row of their own, no
link, image or autolink, no HTML, no emphasis, no ``@mention`` that notifies anyone and no
``#123`` that cross-references an issue, no fence that closes ours early. The rules, from the
GFM spec (https://github.github.com/gfm/) and from how GitHub processes what it renders:

1. First ``printable`` (provider.document.excerpt): control and format characters become visible
   escapes (``\\x0a``), so a value never starts a line, a block or a table row of its own.
2. ``text``, for prose: a backslash before every ASCII punctuation character that Markdown
   gives a meaning (GFM 2.4: any ASCII punctuation may be backslash-escaped, and then is a
   literal character): emphasis, links and images, code spans, HTML and entities, tables,
   headings, math. Mentions, issue references and autolinks are not stopped by a backslash:
   GitHub finds them in the rendered text, after the escapes are gone. So a zero-width joiner
   (U+200D) goes after every ``@`` and every ``#`` before a digit, and a zero-width space
   (U+200B) into ``://`` and after ``www``: neither is a user-name, domain or scheme character,
   so no mention, reference or autolink is found there. The text reads the same.
3. ``code``, for a value shown exactly (a file name, a field's value): a code span, in which
   nothing is rendered and no mention is looked for, delimited by a run of backticks longer than
   any inside (GFM 6.1), and padded with a space where the value begins or ends with a backtick.
   In a table cell a ``|`` is written ``\\|`` (GFM 4.10: also inside a code span).
4. ``html``, for text inside an HTML block (``<summary>``): the HTML entities ``&amp; &lt; &gt;
   &quot; &#x27;`` and the same mention, reference and autolink breaks as ``text``, since GitHub
   also looks for those in HTML text.
5. ``fence``, for a block shown as it is (validate's report, a request as JSON): a fence of
   backticks longer than any run of backticks inside (GFM 4.5: a fence closes only on a run at
   least as long); the content is escaped by ``printable`` by whoever made it.
"""

from __future__ import annotations

import re

from provider.document.excerpt import printable

ZWJ = "\u200d"  # after @ and before a digit after #: no mention, no issue reference
ZWSP = "\u200b"  # inside :// and after www: no autolink

# The ASCII punctuation that means something in the middle of a line, in GFM or in GitHub's
# extensions: emphasis * _, code `, links and images [ ] (a ( or ! means nothing without them),
# HTML < >, entities &, tables |, strikethrough ~, math $, and the escape \ itself. The rest
# (# + - = . and so on) means something only at the start of a line, and every ``text`` is in
# the middle of one: ``printable`` leaves it no line break.
_PUNCTUATION = re.compile(r"([\\`*_\[\]<>&|~$])")
_MENTION = re.compile(r"@")
_REFERENCE = re.compile(r"#(?=\d)")
_SCHEME = re.compile(r":(?=//)")
_WWW = re.compile(r"(?i)(www)(?=\.)")
_BACKTICKS = re.compile(r"`+")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}


def _unlink(text: str) -> str:
    """Break mentions, issue references and autolinks with invisible characters."""
    text = _MENTION.sub("@" + ZWJ, text)
    text = _REFERENCE.sub("#" + ZWJ, text)
    text = _SCHEME.sub(":" + ZWSP, text)
    return _WWW.sub(lambda m: m.group(1) + ZWSP, text)


def text(value: str) -> str:
    """``value`` as inert prose, in the middle of a line or a table cell (``|`` is escaped too)."""
    return _unlink(_PUNCTUATION.sub(r"\\\1", printable(value)))


def _longest_run(value: str) -> int:
    return max((len(m) for m in _BACKTICKS.findall(value)), default=0)


def code(value: str, cell: bool = False) -> str:
    """``value`` as a code span, exactly as it is (control characters escaped)."""
    shown = printable(value)
    ticks = "`" * (_longest_run(shown) + 1)
    pad = " " if shown[:1] in ("`", " ") or shown[-1:] in ("`", " ") else ""
    span = f"{ticks}{pad}{shown}{pad}{ticks}"
    return span.replace("|", "\\|") if cell else span


def html(value: str) -> str:
    """``value`` as text inside an HTML element."""
    shown = "".join(_HTML.get(ch, ch) for ch in printable(value))
    return _unlink(shown)


def fence(body: str, info: str = "") -> str:
    """``body`` as a fenced code block, fenced by more backticks than any run inside it."""
    ticks = "`" * max(3, _longest_run(body) + 1)
    return f"{ticks}{info}\n{body.rstrip(chr(10))}\n{ticks}"
