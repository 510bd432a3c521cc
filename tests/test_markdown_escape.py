"""provider.document.markdown: each class of hostile text, rendered by a CommonMark renderer with
GFM tables and strikethrough (markdown-it-py), stays the text it was.

Mentions, issue references and autolinks are found by GitHub in the rendered text, so they are
checked there: outside code, no ``@`` or ``#`` directly before a name or digit, no ``scheme://``
and no ``www.``.
"""

from __future__ import annotations

import re
from html import unescape

import pytest

from provider.document import markdown as md
from provider.document.excerpt import printable

CLASSES = {
    "heading": "x\n# Heading",
    "setext": "x\n===",
    "list": "x\n- item",
    "fence": "x\n```\ncode",
    "mention": "ping @octocat and @acme/admins",
    "email": "mail ana@example.com",
    "reference": "fixes #123 and acme/repo#4",
    "image": "![x](http://evil.example/x.png)",
    "link": "[click](https://evil.example) and [ref][1]\n\n[1]: https://evil.example",
    "autolink": "<https://evil.example> http://evil.example www.evil.example",
    "html": "<img src=x onerror=alert(1)> <script>alert(1)</script> <b>bold</b> &lt;",
    "emphasis": "*a* _b_ **c** ~~d~~ $e$",
    "code": "`code` ``more``",
    "table": "a | b\n|---|---|",
    "ansi": "\x1b[31mred\x1b[0m \u202eevil \u2028line",
}


def _render(text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(text)


def _visible(html: str) -> str:
    """The rendered text, invisible breaks removed, entities decoded."""
    return unescape(re.sub(r"<[^>]+>", "", html)).replace(md.ZWJ, "").replace(md.ZWSP, "").strip()


def _assert_inert(html: str) -> None:
    assert not re.search(r"<(h\d|ul|ol|li|pre|img|a|script|b|em|strong|del|table|hr)\b", html), html
    outside = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
    assert not re.search(r"@[A-Za-z0-9]|#\d|[a-z]://|www\.", outside), outside


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_text_in_a_list_item_renders_as_itself(name: str) -> None:
    value = CLASSES[name]
    html = _render(f"- {md.text(value)}\n")
    assert html.startswith("<ul>\n<li>") and html.count("<li>") == 1
    _assert_inert(html.removeprefix("<ul>\n<li>").removesuffix("</li>\n</ul>\n"))
    assert _visible(html) == printable(value)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_code_in_a_table_cell_renders_as_itself(name: str) -> None:
    value = CLASSES[name]
    html = _render(f"| a | b |\n|---|---|\n| {md.code(value, cell=True)} | after |\n")
    cells = re.findall(r"<td>(.*?)</td>", html, re.S)
    assert len(cells) == 2 and cells[1] == "after"
    assert re.fullmatch(r"<code>.*</code>", cells[0], re.S)
    assert unescape(cells[0][len("<code>"):-len("</code>")]) == printable(value)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_html_in_a_summary_renders_as_itself(name: str) -> None:
    value = CLASSES[name]
    html = _render(f"<details><summary><code>{md.html(value)}</code></summary>\n\nbody\n\n</details>\n")
    summary = re.search(r"<summary>(.*?)</summary>", html, re.S)
    assert summary is not None and html.count("<details>") == html.count("</details>") == 1
    inner = summary.group(1)
    assert not re.search(r"<(?!/?code>)", inner), inner  # no element but our <code>
    assert unescape(inner[len("<code>"):-len("</code>")]).replace(md.ZWJ, "").replace(md.ZWSP, "") == printable(value)


@pytest.mark.parametrize("body", ["```\n# out", "x ```` y\n`````", "~~~\n```json"])
def test_a_fence_is_longer_than_any_backtick_run_inside(body: str) -> None:
    html = _render(md.fence(body, "json") + "\n\n# after\n")
    blocks = re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", html, re.S)
    assert [unescape(b) for b in blocks] == [body + "\n"]
    assert html.count("<h1>") == 1 and html.rstrip().endswith("<h1>after</h1>")


def test_the_rules_are_kept_minimal_for_ordinary_text() -> None:
    assert md.text("specs/vision/resnet.yaml: 3 x NVIDIA_L4 (allowed: 1)") == \
        "specs/vision/resnet.yaml: 3 x NVIDIA\\_L4 (allowed: 1)"
    assert md.code("vision-dev") == "`vision-dev`" and md.code("a`b") == "``a`b``" and md.code("`a") == "`` `a ``"


def test_validate_markdown_fences_its_report_and_cuts_a_long_one_saying_so() -> None:
    from io import StringIO

    from provider.core.problem import Problem
    from provider.validation.report import MarkdownReporter

    problems = [Problem(file=f"specs/x{i}.yaml", line=1, message="````` " + "v" * 200) for i in range(400)]
    out = StringIO()
    MarkdownReporter().report(problems, 400, 400, out)
    html = _render(out.getvalue() + "\n# after\n")
    blocks = re.findall(r"<pre><code>(.*?)</code></pre>", html, re.S)
    assert len(blocks) == 1 and html.rstrip().endswith("<h1>after</h1>")
    assert unescape(blocks[0]).rstrip().endswith("more characters: run trainjobs validate)")
    assert MarkdownReporter.LIMIT < len(out.getvalue()) < MarkdownReporter.LIMIT + 200
