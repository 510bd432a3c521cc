"""Write the JSON Schemas generated from the catalog into schemas/.

    python tools/schema/generate.py          # write schemas/*.schema.json and schemas/bodies/
    python tools/schema/generate.py --check  # exit 1 if the committed files are stale

Editors pick the schemas up through the ``# yaml-language-server: $schema=...`` line of each
spec and stack file (and .vscode/settings.json). ``schemas/bodies/`` holds the spec schema
narrowed to each format's body (provider/validation/schema_narrow.py), compact: validation
compiles one of them for each spec, instead of reading and narrowing the whole schema at every
start. tests/test_schema.py runs --check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import json  # noqa: E402
from functools import partial  # noqa: E402

from provider.spec import schema  # noqa: E402  (after the sys.path line above)
from provider.stack.schema import stack_schema  # noqa: E402
from provider.validation.schema_check import BODIES_DIR  # noqa: E402
from provider.validation.schema_narrow import definitions, narrowed  # noqa: E402

OUTPUTS = {
    "trainingjob.schema.json": lambda: schema.render(schema.spec_schema()),
    "stack.schema.json": lambda: schema.render(stack_schema()),
}


def _body(definition: str) -> str:
    """The spec schema narrowed to one body, compact: what validation compiles for a spec of it."""
    body = narrowed(schema.spec_schema(), definition, definitions())
    assert body is not None, definition
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n"


OUTPUTS.update({f"{BODIES_DIR}/{d}.schema.json": partial(_body, d) for d in sorted(definitions())})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = []
    for name, build in OUTPUTS.items():
        path = ROOT / "schemas" / name
        text = build()
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print("stale schemas (run python tools/schema/generate.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
