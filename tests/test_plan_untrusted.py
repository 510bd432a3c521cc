"""A pull request's bytes cannot steer what the plan, the PR comment or a terminal shows.

Each class of attack is made for real in a git repository (hostile file names, values and
symlinks), then the output is checked: the Markdown is rendered by a GFM renderer
(markdown-it-py, with raw HTML, tables and strikethrough) and nothing but our own headings,
tables and details survives; the text output carries no control character.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from .conftest import ROOT
from .plan_repo import ENV, PlanRepo

RESNET = "specs/vision/resnet.yaml"
STACK = "stacks/Pulumi.vision-dev.yaml"
# One file name per class: a newline and a heading, a mention, HTML, an image, a link, an
# autolink, backticks, ANSI escapes, a bidi override.
HOSTILE_NAMES = [
    "a\n# Heading @acme-admins.yaml",
    "b <img src=x onerror=alert(1)> ![i](x.png) [l](https:evil.example) www.evil.example.yaml",
    "c ``` fence `` ~~~ $x$ *e* _u_ | pipe.yaml",
    "d \x1b[31mred\x1b[0m \x1b]0;title\x07 \r\u202eevil.yaml",
]
HOSTILE_VALUE = "```\n# pwned @acme/admins ![x](http://evil.example/x.png) <img src=x> http://evil.example #12"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _hostile_repo(root: Path) -> PlanRepo:
    repo = PlanRepo(root)
    spec = repo.read(RESNET)
    for i, name in enumerate(HOSTILE_NAMES):  # new jobs, in files with hostile names
        repo.write(f"specs/vision/{name}", spec.replace("vision_resnet", f"vision_h{i}"))
    repo.write("specs/vision/bad `x` @acme.yaml", spec.replace("vision_resnet", "vision_bad")
               .replace("region: us-central1", f"region: {HOSTILE_VALUE!r}".replace("'", '"')))
    repo.edit(RESNET, 'args: [--epochs, "5"]', 'args: [--epochs, "5", ' + repr(HOSTILE_VALUE).replace("'", '"') + "]")
    return repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> PlanRepo:
    return _hostile_repo(tmp_path_factory.mktemp("hostile") / "repo")


def _render(markdown: str) -> str:
    from markdown_it import MarkdownIt

    # CommonMark with raw HTML and GFM's tables and strikethrough. linkify-it-py is not installed,
    # so autolinks (www., scheme://) and mentions are checked on the rendered text instead: what
    # GitHub's autolinker and mention filter look for must not be there outside code.
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(markdown)


def _outside_code(html: str) -> str:
    return re.sub(r"<(code|pre)>.*?</\1>", "", html, flags=re.S)


def test_the_markdown_plan_keeps_hostile_names_and_values_inert(repo: PlanRepo) -> None:
    proc = repo.run("plan", "--base", "main", "--format", "markdown", "--show-requests")
    assert proc.returncode == 1, proc.stderr  # the invalid spec fails it
    html = _render(proc.stdout)
    # our headings only: the title and one per affected stack, none from a file name or value
    assert re.findall(r"<h(\d)>(.*?)</h\1>", html) == [("2", "trainjobs plan"), ("3", "<code>local</code>"),
                                                      ("3", "<code>vision-dev</code>")]
    assert "<img" not in html and "<a " not in html and "<script" not in html and "<del>" not in html
    assert "<em>" not in html and "onerror" not in _outside_code(html).replace("onerror=alert", "")
    text = _outside_code(html)
    assert not re.search(r"@[A-Za-z0-9]", text), "a mention outside code would notify"
    assert not re.search(r"#\d", text), "an issue reference outside code"
    assert not re.search(r"https?://|www\.", text), "an autolink outside code"
    # the details blocks all close, and no fence closed early: the request's JSON is one block
    assert html.count("<details>") == html.count("</details>") == 7  # 5 jobs created, resnet replaced in 2 stacks
    blocks = re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", html, re.S)
    assert len(blocks) == proc.stdout.count("Vertex AI request:") == 7  # every job the change starts
    requests = [json.loads(unescape(b)) for b in blocks]  # each block is the whole request: no fence closed early
    assert any(HOSTILE_VALUE in r["body"]["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["args"]
               for r in requests)
    assert not CONTROL.search(proc.stdout)
    for shown in ("a\\x0a# Heading", "\\x1b[31mred", "\\u202eevil"):
        assert shown in proc.stdout


def test_the_text_plan_and_validate_escape_control_characters(repo: PlanRepo) -> None:
    plan = repo.run("plan", "--base", "main")
    validate = repo.run("validate", "--color", "always")
    assert "\x1b[" in validate.stdout  # --color always: validate's own colours are there
    for out in (plan.stdout, re.sub(r"\x1b\[[0-9;]*m", "", validate.stdout)):  # less those colours
        assert not CONTROL.search(out), CONTROL.search(out)
    assert "d \\x1b[31mred\\x1b[0m \\x1b]0;title\\x07 \\x0d\\u202eevil.yaml" in plan.stdout
    assert "a\\x0a# Heading @acme-admins.yaml" in plan.stdout
    assert "\na\n" not in plan.stdout and "\n# Heading" not in plan.stdout
    # validate's colours are its own: every ESC in its output starts one of its SGR codes
    assert all(re.match(r"\x1b\[[0-9;]*m", validate.stdout[m.start():]) for m in re.finditer("\x1b", validate.stdout))
    assert "specs/vision/bad `x` @acme.yaml" in validate.stdout
    github = repo.run("validate", "--format", "github").stdout  # workflow commands: one a line
    assert not CONTROL.search(github)
    assert all(line.startswith("::") or re.match(r"\d+ specs checked", line) for line in github.splitlines())


def test_an_error_that_quotes_a_path_is_escaped(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "provider", "validate", "missing\x1b[2J\u202e.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False, env={**os.environ, **ENV})
    assert proc.returncode == 4  # not found (README, "Exit codes")
    assert "missing\\x1b[2J\\u202e.yaml" in proc.stderr and "\x1b" not in proc.stderr


def test_the_comment_fences_validate_output_with_a_longer_fence(repo: PlanRepo) -> None:
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, **ENV, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1",
           "VALIDATE": "failure", "HEAD_SHA": "0123456789abcdef"}
    plan = subprocess.run([sys.executable, "-m", "provider", "plan", "--base", "main", "--format", "markdown"],
                          cwd=repo.root, capture_output=True, text=True, timeout=120, env=env, check=False)
    (repo.root / "plan.md").write_text(plan.stdout)
    try:
        comment = subprocess.run(["bash", str(ROOT / "scripts" / "ci" / "plan-comment.sh")], cwd=repo.root,
                                 capture_output=True, text=True, timeout=120, check=True, env=env).stdout
    finally:
        (repo.root / "plan.md").unlink()
    html = _render(comment)
    assert comment.count("<!-- trainjobs-plan -->") == 1
    first = unescape(html.split("<pre><code>")[1].split("</code></pre>")[0])  # validate's report, one block
    assert "```\\n# pwned" in first and "specs/vision/bad `x` @acme.yaml:8:11: error:" in first
    assert re.search(r"\n\d+ specs checked: .*\n$", first), "the block holds the report to its last line"
    assert "<img" not in html and "<a " not in html
    assert not re.search(r"@[A-Za-z0-9]", _outside_code(html))


def _link(repo: PlanRepo, rel: str, target: str | Path) -> None:
    path = repo.root / rel
    if path.is_dir() and not path.is_symlink():
        subprocess.run(["rm", "-r", str(path)], check=True)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(target)


@pytest.mark.parametrize("target", ["outside", "dangling", "loop"])
def test_a_stack_file_replaced_by_a_symlink_fails_the_plan_and_deletes_nothing(tmp_path: Path, target: str) -> None:
    repo = PlanRepo(tmp_path / "repo")
    outside = tmp_path / "outside.yaml"
    outside.write_text(repo.read(STACK).replace("maxGpusPerJob: 8", "maxGpusPerJob: 800"))  # valid, and out
    _link(repo, STACK, {"outside": outside, "dangling": tmp_path / "gone.yaml", "loop": "Pulumi.vision-dev.yaml"}[target])
    plan = repo.plan()
    assert plan["_rc"] == 1 and not plan["ok"]
    vision = next(s for s in plan["stacks"] if s["name"] == "vision-dev")
    assert vision["status"] == "unreadable" and vision["counts"]["delete"] == 0
    [problem] = [p for p in plan["problems"] if p["file"] == STACK]
    assert problem["rule"] == "file.symlink" and "symlink" in problem["message"]
    text = repo.run("plan", "--base", "main").stdout
    assert "stack file removed" not in text and "result: FAILS" in text and "800" not in text
    assert "[stack file unreadable: nothing planned until it is fixed]" in text


def test_a_symlinked_stacks_or_specs_folder_fails_the_plan(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    copy = tmp_path / "elsewhere"
    subprocess.run(["cp", "-r", str(repo.root / "specs" / "vision"), str(copy)], check=True)
    _link(repo, "specs/vision", copy)
    plan = repo.plan()
    assert plan["_rc"] == 1
    assert any(p["file"] == "specs/vision" and "outside the repository" in p["message"] for p in plan["problems"])
    repo2 = PlanRepo(tmp_path / "repo2")
    subprocess.run(["mv", str(repo2.root / "stacks"), str(repo2.root / "real-stacks")], check=True)
    _link(repo2, "stacks", "real-stacks")
    plan2 = repo2.plan()
    assert plan2["_rc"] == 1
    assert any(p["file"] == "stacks" and "a folder" in p["message"] for p in plan2["problems"])


def test_a_symlink_in_the_base_commit_is_not_followed_out_of_it(tmp_path: Path) -> None:
    """A blob of mode 120000 holds a path; the base side follows it only to a file of the same commit."""
    from provider.gitops.git import Git
    from provider.gitops.tree import CommitTree

    repo = PlanRepo(tmp_path / "repo")
    secret = tmp_path / "secret.yaml"
    secret.write_text("config:\n  token: hunter2\n")
    _link(repo, "specs/vision/out.yaml", secret)
    _link(repo, "specs/vision/same.yaml", "resnet.yaml")
    _link(repo, "specs/nlp", "../elsewhere")
    repo.commit("links")
    git = Git(repo.root)
    tree = CommitTree(git, "HEAD", git.resolve("HEAD")[1], tmp_path / "scratch")
    read = tree.read(["specs/vision/out.yaml", "specs/vision/same.yaml"])
    assert read == {"specs/vision/same.yaml": repo.read(RESNET).encode()}
    assert "outside the repository" in tree.unreadable["specs/vision/out.yaml"].message
    assert set(tree.link_problems(("specs", "stacks"))) == {"specs/vision/out.yaml", "specs/nlp"}
    # the working tree, on the same links, says the same; the plan never shows the secret
    plan = repo.run("plan", "--base", "HEAD~1", "--format", "json")
    assert plan.returncode == 1 and "hunter2" not in plan.stdout + plan.stderr


def test_affected_stacks_escapes_a_stack_name_made_of_a_hostile_file_name(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    repo.write("stacks/Pulumi.x\x1b[2Jy.yaml", repo.read("stacks/Pulumi.local.yaml"))
    proc = repo.run("affected-stacks", "--base", "main")
    assert proc.returncode == 0, proc.stderr
    assert "x\\x1b[2Jy" in proc.stdout.splitlines() and "\x1b" not in proc.stdout
    github = repo.run("affected-stacks", "--base", "main", "--format", "github")
    assert json.loads(github.stdout.splitlines()[0].split("=", 1)[1]) == ["x\x1b[2Jy"]  # JSON escapes it itself


def test_a_build_context_with_a_fifo_and_a_link_out_is_digested_without_reading_them(tmp_path: Path) -> None:
    """The digest of a build context reads regular files only: a FIFO would block the plan, and a
    link out of the repository counts by the path it holds (on both sides), not by what is behind it."""
    repo = PlanRepo(tmp_path / "repo")
    secret = tmp_path / "secret.txt"
    secret.write_text("one")
    context = repo.root / "containers" / "tuner"
    (context / "leak").symlink_to(secret)
    repo.commit("a link in the build context")

    def tuner() -> str:
        plan = repo.plan()
        return next((j["action"] for s in plan["stacks"] for j in s["jobs"] if j["name"] == "vision_tuner"),
                    "unaffected")

    assert tuner() == "unaffected"  # the base commit's link and the working tree's are the same
    secret.write_text("two")  # what is behind the link changes: the plan neither reads nor sees it
    assert tuner() == "unaffected"
    os.mkfifo(context / "pipe")  # never opened: the plan ends, and a new entry replaces the job
    assert tuner() == "replace"
    (context / "pipe").unlink()
    (context / "leak").unlink()
    (context / "leak").symlink_to(tmp_path / "other.txt")  # the link itself changes: replaced
    assert tuner() == "replace"


HARNESS = """
const fs = require("fs");
const script = fs.readFileSync(process.argv[2], "utf8");
const calls = [];
const comments = JSON.parse(process.argv[3]);
const github = {
  paginate: async (fn, args) => comments,
  rest: {issues: {listComments: () => null,
                  updateComment: async (a) => calls.push(["update", a.comment_id]),
                  createComment: async (a) => calls.push(["create", a.issue_number])}},
};
const context = {repo: {owner: "acme", repo: "jobs"}, issue: {number: 7}};
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
new AsyncFunction("require", "github", "context", script)(require, github, context)
  .then(() => console.log(JSON.stringify(calls)));
"""


def test_the_workflow_updates_only_its_own_comment(tmp_path: Path) -> None:
    """Anyone may post a comment that starts with the marker: the plan must not go into it (its
    author could edit the plan afterwards). The workflow's own script runs in node, with GitHub's
    API answered by a stand-in that records what the script asks."""
    import shutil

    import yaml

    node = shutil.which("node")
    assert node is not None, "node is installed by scripts/setup.sh dev (tests/js)"
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "trainjobs.yml").read_text())
    post = next(s for s in workflow["jobs"]["plan"]["steps"] if s.get("uses", "").startswith("actions/github-script"))
    (tmp_path / "script.js").write_text(post["with"]["script"])
    (tmp_path / "harness.js").write_text(HARNESS)
    (tmp_path / "comment.md").write_text("<!-- trainjobs-plan -->\nthe plan")
    marker = "<!-- trainjobs-plan -->\n"
    forged = {"id": 1, "body": marker + "the plan passes", "user": {"login": "mallory", "type": "User"}}
    ours = {"id": 2, "body": marker + "old plan", "user": {"login": "github-actions[bot]", "type": "Bot"}}

    def calls(comments: list[dict[str, object]]) -> list[list[object]]:
        proc = subprocess.run([node, "harness.js", "script.js", json.dumps(comments)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=True)
        result: list[list[object]] = json.loads(proc.stdout)
        return result

    assert calls([forged, ours]) == [["update", 2]]
    assert calls([forged]) == [["create", 7]]  # never into the forged one


def test_a_spec_file_replaced_by_a_symlink_out_fails_the_plan_and_quotes_nothing(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    outside = tmp_path / "outside.yaml"
    outside.write_text(repo.read(RESNET).replace("vision_resnet", "vision_hunter2"))
    _link(repo, RESNET, outside)
    plan = repo.plan()
    assert plan["_rc"] == 1 and not plan["ok"]
    assert any(p["file"] == RESNET and p["rule"] == "file.symlink" for p in plan["problems"])
    assert "hunter2" not in json.dumps(plan)
