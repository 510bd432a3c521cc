"""A script's ``if __name__ == "__main__":`` body, read as the top-level code it is when the script runs.

``unguarded(text)`` blanks the guard's own line and takes its body's indentation off, line for line,
so line numbers stay the script's; ``columns`` gives, per line, how many columns were taken off, for
messages to name the script's own column. A line of the body with less indentation (inside a
multi-line string) is left as it is. Only a guard with no ``else`` is read so.
"""

from __future__ import annotations

import ast


def _is_guard(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.If) or stmt.orelse or not isinstance(stmt.test, ast.Compare):
        return False
    test = stmt.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))


def unguarded(text: str) -> tuple[str, dict[int, int]]:
    """``text`` with its main guard's body at top level; line -> columns taken off."""
    try:
        module = ast.parse(text)
    except SyntaxError:
        return text, {}
    lines = text.splitlines(keepends=True)
    columns: dict[int, int] = {}
    for stmt in module.body:
        if not isinstance(stmt, ast.If) or not _is_guard(stmt):
            continue
        first = stmt.body[0]
        indent = first.col_offset
        for number in range(stmt.lineno, first.lineno):
            lines[number - 1] = "\n"
        for number in range(first.lineno, (stmt.end_lineno or first.lineno) + 1):
            line = lines[number - 1]
            if line[:indent].strip() == "" and len(line) > indent:
                lines[number - 1] = line[indent:]
                columns[number] = indent
    return "".join(lines), columns
