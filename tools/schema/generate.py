"""Write the JSON Schemas generated from the catalog into schemas/.

    python tools/schema/generate.py          # write schemas/*.schema.json
    python tools/schema/generate.py --check  # exit 1 if the committed files are stale

Editors pick the schemas up through the ``# yaml-language-server: $schema=...`` line of each
spec and stack file (and .vscode/settings.json). tests/test_schema.py runs --check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from provider.spec import schema  # noqa: E402  (after the sys.path line above)
from provider.stack.schema import stack_schema  # noqa: E402

OUTPUTS = {
    "trainingjob.schema.json": schema.spec_schema,
    "stack.schema.json": stack_schema,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = []
    for name, build in OUTPUTS.items():
        path = ROOT / "schemas" / name
        text = schema.render(build())
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("stale schemas (run python tools/schema/generate.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
