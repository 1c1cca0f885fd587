"""The answer-equivalence fixtures, built from the four libraries' own test files.

Each case is a (gold, prediction, expected) triple that a grader's maintainers wrote into their tests. The test
files are read as data with :mod:`ast`; nothing in them is imported or run. The records keep what the source says
about each case: its line, its test, the call that checks it and that call's literal options, the comments above
it, and whether it is commented out. Two layouts are read:

- pytest's ``@pytest.mark.parametrize("gold, pred, expected", [...])`` (Math-Verify, lighteval). A commented-out
  tuple inside the list is a disabled case; other comment lines are the comment of the case below them. A call
  with literal arguments in a test without parameters (Math-Verify's ``test_precision``) is one case, named by its
  line.
- unittest methods that set ``test_in`` and ``test_out`` and then assert (MARIO_EVAL, hendrycks/math), including
  a loop over a ``test_pairs`` list, whose inline comments are kept.

The one value that is not a literal, an f-string over ``math`` (Math-Verify's ``test_float_precision``), is
computed from a short list of ``math`` functions, never by ``eval``, and its record says so.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

# math functions an f-string case may call; any other expression is not a case
_MATH_FUNCTIONS = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log, "sin": math.sin, "cos": math.cos,
                   "tan": math.tan}
_F_STRING_NOTE = "gold is the value of the f-string {} in the source (evaluated when converting)"
_DISABLED_NOTE = "commented out (disabled) in the source"


class NotALiteral(ValueError):
    """A parameter the fixtures cannot hold (an enum member, a name): its case is left out."""


def _f_string(node: ast.JoinedStr) -> str:
    """An f-string whose parts are literals and ``math.f(number)`` calls, with literal format specs."""
    out = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            out.append(part.value)
            continue
        if not isinstance(part, ast.FormattedValue) or part.conversion != -1:
            raise NotALiteral(ast.unparse(node))
        value = part.value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and isinstance(value.func.value, ast.Name) and value.func.value.id == "math"
                and callable(_MATH_FUNCTIONS.get(value.func.attr)) and not value.keywords):
            raise NotALiteral(ast.unparse(node))
        number = _MATH_FUNCTIONS[value.func.attr](*(ast.literal_eval(a) for a in value.args))
        spec = "" if part.format_spec is None else _f_string(part.format_spec)
        out.append(format(number, spec))
    return "".join(out)


def _value(node: ast.expr, source: str) -> tuple[Any, str | None]:
    """A parameter's value, and the f-string's source text when it was one."""
    try:
        return ast.literal_eval(node), None
    except ValueError:
        if isinstance(node, ast.JoinedStr):  # noted only when it computes something: f"{{x}}" is a plain string
            computes = any(isinstance(part, ast.FormattedValue) for part in node.values)
            return _f_string(node), ast.get_source_segment(source, node) if computes else None
        raise NotALiteral(ast.unparse(node)) from None


def _comments(lines: Sequence[str], first: int, stop: int) -> list[str]:
    """The text of each comment line from line ``first`` up to (not including) ``stop``, 1-based."""
    return [line.strip()[1:].strip() for line in lines[first - 1 : stop - 1] if line.strip().startswith("#")]


def _commented_case(text: str, width: int) -> tuple | None:
    """A comment that is a whole parameter tuple (a case the source disabled), else None."""
    try:
        value = ast.literal_eval(text.rstrip(","))
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, tuple) and len(value) == width else None


def _call_kwargs(call: ast.Call) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for keyword in call.keywords:
        try:
            kwargs[str(keyword.arg)] = ast.literal_eval(keyword.value)
        except ValueError:
            kwargs[str(keyword.arg)] = {"expr": ast.unparse(keyword.value)}
    return kwargs


def _checking_call(function: ast.FunctionDef) -> ast.Call | None:
    """The call in a test's body that compares gold with pred (``compare_strings(...)`` or ``verify(...)``)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("compare_strings",
                                                                                                "verify"):
            return node
    return None


def _record(origin: Mapping[str, str], case_id: str, line: int, test: str, gold: Any, pred: Any, expected: Any,
            extra: dict[str, Any], checked_by: str, call_kwargs: dict[str, Any], comment: list[str],
            disabled: bool, assertion: str | None = None) -> dict[str, Any]:
    record = {"id": case_id, "source_repo": origin["repo"], "commit": origin["commit"], "path": origin["source"],
              "line": line, "test_function": test, "gold": gold, "pred": pred, "expected_equivalent": bool(expected),
              "expected_raw": expected, "extra_params": extra, "checked_by": checked_by, "call_kwargs": call_kwargs}
    if assertion is not None:
        record["assertion"] = assertion
    return {**record, "comment": comment, "disabled_in_source": disabled}


def parametrized_cases(source: str, origin: Mapping[str, str]) -> Iterator[dict[str, Any]]:
    """The cases of a pytest file, test by test in file order."""
    tree, lines = ast.parse(source), source.splitlines()
    name = origin["source"].rsplit("/", 1)[-1]
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        call = _checking_call(function)
        marks = [d for d in function.decorator_list
                 if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.parametrize"]
        if not marks:
            yield from _literal_calls(function, origin, name)
            continue
        if call is None:
            continue
        params = [p.strip() for p in ast.literal_eval(marks[0].args[0]).split(",")]
        expected_name = next(p for p in params if p in ("expected", "result"))
        listing = marks[0].args[1]
        if not isinstance(listing, ast.List):
            continue  # cases made by code, not written out: nothing to read
        common = {"test": function.name, "checked_by": ast.unparse(call), "call_kwargs": _call_kwargs(call)}

        def case(case_id: str, line: int, values: dict[str, Any], comment: list[str], disabled: bool,
                 expected_name: str = expected_name, common: dict[str, Any] = common) -> dict:
            return _record(origin, case_id, line, gold=values["gold"], pred=values["pred"],
                           expected=values[expected_name], comment=comment, disabled=disabled,
                           extra={p: v for p, v in values.items() if p not in ("gold", "pred", expected_name)},
                           **common)

        above = listing.lineno + 1
        for index, element in enumerate(listing.elts):
            comments = _comments(lines, above, element.lineno)
            above = element.end_lineno + 1  # type: ignore[operator]
            if not isinstance(element, ast.Tuple):
                continue
            try:
                values, f_strings = {}, []
                for param, node in zip(params, element.elts):
                    values[param], written = _value(node, source)
                    if written is not None:
                        f_strings.append(_F_STRING_NOTE.format(written))
            except NotALiteral:
                continue
            disabled, notes = [], []
            for text in comments:
                old = _commented_case(text, len(params))
                if old is None:
                    notes.append(text)
                else:
                    disabled.append(old)
            for k, old in enumerate(disabled):
                yield case(f"{name}::{function.name}[disabled-before-{index}.{k}]", element.lineno,
                           dict(zip(params, old)), [_DISABLED_NOTE], True)
            yield case(f"{name}::{function.name}[{index}]", element.lineno, values, notes + f_strings, False)


def _literal_calls(function: ast.FunctionDef, origin: Mapping[str, str], name: str) -> Iterator[dict[str, Any]]:
    """``assert compare_strings("gold", "pred", ...) == expected`` with literal arguments, in a test without
    parameters: one case each, named by its line."""
    for node in ast.walk(function):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call)
                and ast.unparse(node.left.func) == "compare_strings"):
            continue
        call = node.left
        try:
            gold, pred = ast.literal_eval(call.args[0]), ast.literal_eval(call.args[1])
            expected = ast.literal_eval(node.comparators[0])
        except ValueError:
            continue
        yield _record(origin, f"{name}::{function.name}@L{call.lineno}", call.lineno, function.name, gold, pred,
                      expected, {}, ast.unparse(call), _call_kwargs(call), [], False)


def unittest_cases(source: str, origin: Mapping[str, str]) -> Iterator[dict[str, Any]]:
    """The cases of a unittest file: each ``self.assertTrue/False(check(test_in, test_out, ...))`` with the values
    set before it, and each pair of a ``for test_in, test_out in test_pairs`` loop."""
    tree, lines = ast.parse(source), source.splitlines()
    name = origin["source"].rsplit("/", 1)[-1]
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        for method in (node for node in cls.body if isinstance(node, ast.FunctionDef)):
            test = f"{cls.name}.{method.name}"
            values: dict[str, Any] = {}
            pairs: list[tuple[Any, int]] = []
            index, above = 0, method.lineno + 1
            for statement in method.body:
                if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                    target = statement.targets[0].id
                    if target in ("test_in", "test_out"):
                        values[target] = ast.literal_eval(statement.value)
                    elif target == "test_pairs" and isinstance(statement.value, ast.List):
                        pairs = [(ast.literal_eval(e), e.lineno) for e in statement.value.elts]
                    continue
                if isinstance(statement, ast.For) and isinstance(statement.target, ast.Tuple):
                    assertion = statement.body[0]
                    check = _assertion(assertion)
                    if check is None:
                        continue
                    expected, call = check
                    names = ", ".join(ast.unparse(t) for t in statement.target.elts)
                    text = f"for ({names}) in {ast.unparse(statement.iter)}: {ast.unparse(assertion)}"
                    for (gold, pred), line in pairs:
                        _, hash_sign, note = lines[line - 1].partition("#")
                        yield _record(origin, f"{name}::{test}[{index}]", statement.lineno, test, gold, pred,
                                      expected, {}, ast.unparse(call.func), {}, [note.strip()] if hash_sign else [],
                                      False, assertion=text)
                        index += 1
                    above = statement.end_lineno + 1  # type: ignore[operator]
                    continue
                check = _assertion(statement)
                if check is not None:
                    expected, call = check
                    yield _record(origin, f"{name}::{test}[{index}]", statement.lineno, test, values["test_in"],
                                  values["test_out"], expected, {}, ast.unparse(call.func), {},
                                  _comments(lines, above, statement.lineno), False, assertion=ast.unparse(statement))
                    index += 1
                    above = statement.end_lineno + 1  # type: ignore[operator]


def _assertion(statement: ast.stmt) -> tuple[bool, ast.Call] | None:
    """``self.assertTrue(check(...))`` -> (True, the check call); False for ``assertFalse``; None otherwise."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return None
    method = ast.unparse(statement.value.func)
    if method not in ("self.assertTrue", "self.assertFalse") or not statement.value.args:
        return None
    call = statement.value.args[0]
    return (method == "self.assertTrue", call) if isinstance(call, ast.Call) else None


def _read(root: Path, origin: Mapping[str, str]) -> str:
    return (root / origin["path"]).read_text(encoding="utf-8")


def _lines(records: Sequence[Mapping[str, Any]]) -> list[str]:
    return [json.dumps(record, ensure_ascii=False) + "\n" for record in records]


def math_verify_fixtures(root: Path, args: Mapping[str, Any]) -> list[str]:
    """Math-Verify's cases, its test files in name order; the case computed from an f-string last."""
    records = [r for origin in sorted(args["sources"], key=lambda o: o["source"])
               for r in parametrized_cases(_read(root, origin), origin)]
    prefix = _F_STRING_NOTE.split("{}")[0]
    computed = [r for r in records if any(c.startswith(prefix) for c in r["comment"])]
    return _lines([r for r in records if r not in computed] + computed)


def lighteval_fixtures(root: Path, args: Mapping[str, Any]) -> list[str]:
    """lighteval's string cases whose (gold, pred) pair Math-Verify's tests do not already hold (most are copies
    of them); its multilingual cases, whose language is an enum member, are not strings and are left out."""
    with (root / args["math_verify"]).open(encoding="utf-8") as fh:
        known = {(r["gold"], r["pred"]) for r in map(json.loads, fh)}
    origin = args["source"]
    return _lines([r for r in parametrized_cases(_read(root, origin), origin) if (r["gold"], r["pred"]) not in known])


def unittest_fixtures(root: Path, args: Mapping[str, Any]) -> list[str]:
    """The cases of one unittest file (MARIO_EVAL's ``is_equiv`` tests, the MATH paper's ``is_equiv`` tests)."""
    origin = args["source"]
    return _lines(list(unittest_cases(_read(root, origin), origin)))
