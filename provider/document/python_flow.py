"""The statements a Python file (or a notebook's code cells) runs, in the order Python runs them, read statically.

``flow(sources)`` gives what python_values.statements gives, each statement with the Scope just before it, and
follows the code where its path is known without running it:

* an ``if`` (``elif``, ``else``) whose test is known: the statements of the branch taken, as top-level ones (so
  ``if __name__ == "__main__":``'s body); each statement of the branch not taken comes as a Step whose
  ``skipped`` says why it does not run (it changes nothing);
* a ``try``: its body, then its ``else``, as running (the path on which nothing raises; a ``raise`` the body runs
  ends it there, and its ``else`` does not run); then the ``try`` with only its ``except`` clauses (a statement
  that may not run: the names they bind become Unknown), then its ``finally``;
* ``f(...)`` (alone, ``x = f(...)``, ``sys.exit(f(...))``, or inside the value of such a statement, ``print(f(...))``,
  ``log(f(...))``: each call where Python makes it, an argument's before the call it is given to, none in a lambda,
  comprehension or the branch of a condition: python_calls.run_calls) of a function ``def f`` at top level, with no
  decorator, ``*args`` or ``**kwargs``: an assignment of its parameters (the call's arguments, else the
  defaults: each the one value its expression gave where ``def`` ran, as Python keeps it), at the call's line,
  then f's body up to a ``return``, each other name f binds (its locals) Unknown until f assigns it (read
  before, Python raises UnboundLocalError); after it, the names f binds get back the values they had before the
  call; then the statement of the call itself comes (its Step's ``returned``: the expression of the ``return``
  that ended the function, for ``job = make_job()``), and ``x = f(...)`` binds x to what f returned (the very
  list it was given, where it returns that). An exit in f may end the caller too. Calls are read 8 deep and
  1,000 in all at most; past that a call is a plain statement.

A statement flow gives whole that may ``return`` (in a function) or exit (``sys.exit()``, ``raise SystemExit``),
such as ``if args.dry_run: return``, leaves the rest of the function (of the script, of a notebook's cell) not
known to run: each statement after it comes as a Step whose ``skipped`` says so.

Any other compound statement (an ``if`` whose test is not known, ``for``, ``while``, ``with``, ``match``, ``def``,
``class``) comes whole, as python_values.statements gives it; a function called inside one is not read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from provider.core.record import Record
from provider.document import python_loops
from provider.document.python_calls import assignments, parameters, run_calls
from provider.document.python_enum import Enums
from provider.document.python_names import bound_names, globals_of
from provider.document.python_unknown import Unknown, Where
from provider.document.python_values import Scope, parsed

_DEPTH = 8  # calls read inside calls at most (a recursive function is read this deep)
_CALLS = 1000  # calls read in all (code that calls a function in a function ... many times is read this far)
_EXITS = frozenset({"sys.exit", "os._exit"})
_MISSING = object()
_Called = tuple[ast.Call, str, ast.FunctionDef, list[tuple[str, ast.expr]]]  # a call, its def's source, def, parameters


class Step(Record):
    """One statement the code runs (or, with ``skipped``, one it passes over, and why), with the Scope just before
    it."""

    where: Where
    stmt: ast.stmt
    scope: Scope
    skipped: str | None = None
    returned: ast.expr | None = None  # the statement of a call read here: the expression its return gave


def flow(sources: Iterable[tuple[str, str]], enums: Enums | None = None) -> Iterator[Step]:
    """Each statement ``sources`` ((label, Python text) in order) run, as the module says; ``enums``: the API's
    enum members, as python_enum says."""
    walker = _Flow(Scope(enums))
    for label, tree in parsed(walker.scope, sources):
        walker.cut = None  # a notebook's next cell runs after one that exits
        yield from walker.body(label, tree.body)


class _Flow:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.defs: dict[str, tuple[str, ast.FunctionDef]] = {}  # the functions defined at top level: (source, def)
        self.defaults: dict[int, object] = {}  # each default's value where its def ran, by id of its expression
        self.depth = 0
        self.calls = 0
        self.returned = False
        self.result: ast.expr | None = None  # what the return that ended the function read gives
        self.cut: str | None = None  # why the statements left may not run
        self.value: object = None  # the value the function being read returns (its return's, so far)
        self.gave: object = None  # the value the function read last returned

    def body(self, label: str, stmts: list[ast.stmt]) -> Iterator[Step]:
        for stmt in stmts:
            if self.returned:
                return
            where = Where(label, stmt.lineno)
            if self.cut is not None and self.cut.endswith("raises before it"):  # a raise that ran: it does not run
                yield Step(where, stmt, self.scope._snapshot(), self.cut)
                continue
            if self.cut is not None:
                yield from self.maybe(where, stmt, self.cut)
                continue
            self.scope._where = where
            if isinstance(stmt, ast.If) and not isinstance(test := self.scope.evaluate(stmt.test), Unknown):
                yield from self.branch(label, stmt, test)
            elif (followed := self.followed(label, where, stmt)) is not None:
                yield from followed
            elif isinstance(stmt, ast.Return) and self.depth:  # a step too: its calls run (return client.create(...))
                yield Step(where, stmt, self.scope._snapshot())
                self.returned, self.result = True, stmt.value
                self.value = None if stmt.value is None else self.scope.evaluate(stmt.value)
            elif inner := self.inside(stmt):  # print(launch()), log(launch()): each call read where Python runs it
                for one in inner:
                    yield from self.call(label, one)
                    self.result = None
                call = self.called(stmt)
                yield from self.whole(label, where, stmt, call) if call else self.plain(where, stmt, None, inner[-1][0])
            elif (call := self.called(stmt)) is not None:
                yield from self.whole(label, where, stmt, call)
            else:
                yield from self.plain(where, stmt)
                if isinstance(stmt, ast.Raise):  # it runs: the code stops here, or goes on where an except catches it
                    self.cut = f"{unfollowed(stmt, self.scope)}, raises before it"
                elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    left = _leaves(stmt, bool(self.depth))
                    if left is not None:
                        self.cut = f"{unfollowed(stmt, self.scope)}, may {left} before it"

    def whole(self, label: str, where: Where, stmt: ast.stmt, call: _Called) -> Iterator[Step]:
        """A statement whose value is a call of a top-level function (``called``): its body, then the statement."""
        yield from self.call(label, call)
        result, self.result = self.result, None
        yield from self.plain(where, stmt, result, call[0])
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is call[0]:  # x = f(): what f returned
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                self.scope._bind(target, self.gave, where)

    def branch(self, label: str, stmt: ast.If, test: object) -> Iterator[Step]:
        """An if whose test is known: the branch taken, read; each statement of the other, skipped."""
        said = (f"the if at line {stmt.lineno} is {'true' if test else 'false'} ({ast.unparse(stmt.test)}: "
                f"{_short(test)}), so its {'else' if test else 'body'} does not run")
        for branch in (stmt.body, stmt.orelse):
            if (branch is stmt.body) == bool(test):
                yield from self.body(label, branch)
            else:
                yield from (Step(Where(label, s.lineno), s, self.scope._snapshot(), said) for s in branch)

    def matched(self, stmt: ast.Match) -> ast.match_case | None:
        """The case a match whose subject is known takes, where each case up to it is a literal (``case "tpu":``, ``case
        1 | 2:``, ``case None:``) or the wildcard ``case _:``, its guard known; None where it cannot be told here."""
        subject = self.scope.evaluate(stmt.subject)
        if isinstance(subject, Unknown) or not isinstance(subject, (str, int, float, bool, type(None))):
            return None
        for case in stmt.cases:
            taken = _takes(self.scope, case.pattern, subject)
            if taken and case.guard is not None:  # Python tests a guard only where its pattern matches
                guard = self.scope.evaluate(case.guard)
                taken = None if isinstance(guard, Unknown) else bool(guard)
            if taken is None or taken:
                return case if taken else None
        return None

    def case(self, label: str, stmt: ast.Match, taken: ast.match_case) -> Iterator[Step]:
        """A match whose case is known (matched): that case's body, read; each statement of the others, skipped."""
        said = (f"the match at line {stmt.lineno} takes the case at line {taken.pattern.lineno} ({ast.unparse(stmt.subject)}: "
                f"{_short(self.scope.evaluate(stmt.subject))}), so this case does not run")
        for case in stmt.cases:
            if case is taken:
                yield from self.body(label, case.body)
            else:
                yield from (Step(Where(label, s.lineno), s, self.scope._snapshot(), said) for s in case.body)

    def attempt(self, label: str, where: Where, stmt: ast.Try | ast.TryStar) -> Iterator[Step]:
        """A try: its body and else, as running; its except clauses, as a statement that may not run; finally.
        A raise in the body (or in a function it calls) ends the body there: the rest of it and the else do not run,
        and an except clause may catch it (the code after the try goes on)."""
        yield from self.body(label, stmt.body)
        raised = self.cut if self.cut is not None and self.cut.endswith("raises before it") and stmt.handlers else None
        if raised is None:
            yield from self.body(label, stmt.orelse)
        else:
            self.cut = None
            said = f"{raised}: the try's else runs only when its body does not raise"
            yield from (Step(Where(label, s.lineno), s, self.scope._snapshot(), said) for s in stmt.orelse)
        if stmt.handlers and not self.returned:
            handlers = ast.copy_location(type(stmt)([ast.Pass()], stmt.handlers, [], []), stmt)
            yield from self.plain(where, ast.fix_missing_locations(handlers))
        yield from self.body(label, stmt.finalbody)

    def followed(self, label: str, where: Where, stmt: ast.stmt) -> Iterator[Step] | None:
        """The steps of a try, of a match whose case is known, or of a for loop whose items are known; None for any
        other statement."""
        if isinstance(stmt, (ast.Try, ast.TryStar)):
            return self.attempt(label, where, stmt)
        if isinstance(stmt, ast.Match) and (case := self.matched(stmt)) is not None:
            return self.case(label, stmt, case)
        defs = {name: define for name, (_, define) in self.defs.items()}
        if isinstance(stmt, ast.For) and (turns := python_loops.items(self.scope, stmt, defs)) is not None:
            return self.loop(label, where, stmt, turns)
        return None

    def loop(self, label: str, where: Where, stmt: ast.For, turns: list[object]) -> Iterator[Step]:
        """A for loop whose items are known (python_loops): its body once per item, the target bound to it, as
        Python runs it; then its else (no break leaves it: python_loops follows no loop that has one)."""
        for item in turns:
            if self.returned:
                return
            self.scope._where = where
            self.scope._bind(stmt.target, item, where)
            yield from self.body(label, stmt.body)
        yield from self.body(label, stmt.orelse)

    def maybe(self, where: Where, stmt: ast.stmt, cut: str) -> Iterator[Step]:
        """A statement that may or may not run (after a return or exit that may happen): skipped, and what it would
        change is not known after it (its imports count, as an unknown if's do)."""
        yield Step(where, stmt, self.scope._snapshot(), cut)
        said = f"may be changed at {where}, after {cut}"
        imported = self.scope._not_run(stmt, said, where)
        self.scope.unknown_after(stmt, imported, said, where)

    def plain(self, where: Where, stmt: ast.stmt, returned: ast.expr | None = None,
              read: ast.AST | None = None) -> Iterator[Step]:
        """A statement run as the Scope runs it (``read``: the call in it whose body was read, python_passed)."""
        self.scope._where = where
        yield Step(where, stmt, self.scope._snapshot(), None, returned)
        self.scope._apply(stmt, where, read)
        for name in bound_names(stmt):
            self.defs.pop(name, None)
        if isinstance(stmt, ast.FunctionDef) and not stmt.decorator_list and not self.depth:
            self.defs[stmt.name] = (where.label, stmt)
            for default in [*stmt.args.defaults, *(d for d in stmt.args.kw_defaults if d is not None)]:
                self.defaults[id(default)] = self.scope.evaluate(default)

    def called(self, stmt: ast.stmt) -> _Called | None:
        """The call of a top-level function ``stmt`` makes, with its parameters bound, where it is read."""
        value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) else (
            stmt.exc if isinstance(stmt, ast.Raise) else None)  # raise SystemExit(main()), as sys.exit(main())
        if (isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords
                and (self.scope.qualified(value.func) in _EXITS
                     or (isinstance(value.func, ast.Name) and value.func.id in ("exit", "quit", "SystemExit")))):
            value = value.args[0]
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in self.defs
                and self.depth < _DEPTH and self.calls < _CALLS):
            return None
        source, define = self.defs[value.func.id]
        bound = parameters(define.args, value)
        return None if bound is None else (value, source, define, bound)

    def inside(self, stmt: ast.stmt) -> list[_Called]:
        """The calls of top-level functions inside the value of ``stmt`` (alone, ``x = ...``), not the value itself,
        in the order Python runs them (an argument's before the call it is given to), each with its parameters
        bound; none where one of them cannot be read (past the depth, or arguments not bound), or where the value
        is itself such a call (``called``)."""
        value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
        whole = self.called(stmt)
        found: list[_Called] = []
        for node in run_calls(value) if value is not None else ():
            if whole is not None and node is whole[0]:
                continue
            if isinstance(node.func, ast.Name) and node.func.id in self.defs:
                source, define = self.defs[node.func.id]
                bound = parameters(define.args, node)
                if bound is None or self.depth >= _DEPTH or self.calls + len(found) >= _CALLS:
                    return []
                found.append((node, source, define, bound))
        return found

    def call(self, label: str, called: _Called) -> Iterator[Step]:
        """The function's body where the call in source ``label`` runs it (its statements in its own source)."""
        node, source, define, bound = called
        self.calls += 1
        where = Where(label, node.lineno)
        local = [n for n in [*(name for name, _ in bound), *bound_names(ast.Module(define.body, []))]
                 if n not in globals_of(define)]
        saved = {name: (self.scope._values.get(name, _MISSING), self.scope._imports.get(name)) for name in local}
        params = [name for name, _ in bound]
        self.scope._unknown([n for n in local if n not in params], f"is local to {define.name} (assigned in it), and "
                            f"read before it is assigned there: Python raises UnboundLocalError", where)
        for assign in assignments(bound, node):
            yield from self.plain(where, assign)
        for name, expr in bound:  # a default is evaluated once, where def runs, and that one object is the default
            if id(expr) in self.defaults:
                self.scope._set(name, self.defaults[id(expr)], where)
        self.depth += 1
        outer, self.value = self.value, None  # a function that ends without a return returns None
        try:
            yield from self.body(source, define.body)
        finally:
            self.depth -= 1
            self.gave = self.value if self.cut is None else Unknown(f"what {define.name}() returns ({self.cut})", where)
            exits = self.cut is not None and self.cut.endswith(("may exit before it", "raises before it"))  # the caller's too
            self.returned, self.cut, self.value = False, self.cut if exits else None, outer
        for name, (value, imported) in saved.items():
            self.scope._values.pop(name, None)
            self.scope._imports.pop(name, None)
            if value is not _MISSING:
                self.scope._values[name] = value
            if imported is not None:
                self.scope._imports[name] = imported


def unfollowed(stmt: ast.stmt, scope: Scope) -> str:
    """How a message names a compound statement flow gives whole, and why what is in it is not read: "def NAME at
    line N, not called where it can be read ...", "a for loop at line N", "the if at line N, whose test is not known
    (why)" ..."""
    line = f"at line {stmt.lineno}"
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.decorator_list:
        decorator = stmt.decorator_list[0]
        name = ast.unparse(decorator.func if isinstance(decorator, ast.Call) else decorator)
        return f"def {stmt.name} {line}, decorated with @{name}, which decides when and how it runs"
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return (f"def {stmt.name} {line}, not called where it can be read (at top level: alone, x = {stmt.name}(...), "
                f"or inside a statement's value, print({stmt.name}(...)), not in a lambda, comprehension or condition; "
                "with arguments bound to its parameters)")
    if isinstance(stmt, ast.ClassDef):
        return f"class {stmt.name} {line}, whose methods are not read (nor what an instance holds, self.X)"
    if isinstance(stmt, (ast.Try, ast.TryStar)):
        return f"an except clause of the try {line}, which runs only when the try's body raises"
    if isinstance(stmt, ast.If):
        return f"the if {line}, whose test is not known ({scope.evaluate(stmt.test)})"
    if not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Match)):
        return f"{_short_code(stmt)} {line}"  # sys.exit(1), raise SystemExit(...)
    word = type(stmt).__name__.lower().removeprefix("async")
    return f"a{'n' if word[:1] in 'aeiou' else ''} {word} {'loop' if word in ('for', 'while') else 'block'} {line}"


def _short_code(stmt: ast.stmt) -> str:
    text = ast.unparse(stmt).splitlines()[0]
    return text if len(text) <= 60 else text[:57] + "..."


def _leaves(stmt: ast.stmt, function: bool) -> str | None:
    """"return" or "exit" where ``stmt`` holds a ``return`` (``function``: in the function being read) or an exit
    (``sys.exit()``, ``exit()``, ``raise SystemExit``) outside a function or class of its own; else None."""
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return) and function:
            return "return"
        if isinstance(node, ast.Raise) and node.exc is not None and "SystemExit" in ast.unparse(node.exc):
            return "exit"
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("sys.exit", "exit", "quit", "os._exit"):
            return "exit"
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return None


def _takes(scope: Scope, pattern: ast.pattern, subject: object) -> bool | None:
    """Whether ``pattern`` matches ``subject`` (a literal, or ``_``), as Python's match does; None: not told here."""
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is None and pattern.name is None:
        return True
    if isinstance(pattern, ast.MatchSingleton):
        return subject is pattern.value
    if isinstance(pattern, ast.MatchValue):
        value = scope.evaluate(pattern.value)
        return None if isinstance(value, Unknown) else bool(subject == value)
    if isinstance(pattern, ast.MatchOr):
        found = [_takes(scope, p, subject) for p in pattern.patterns]
        return True if True in found else None if None in found else False
    return None


def _short(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
