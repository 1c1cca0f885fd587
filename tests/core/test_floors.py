"""The packages stand on each other in one direction: the foundation (``harness.core``), then ``rewards`` and
``suites`` (on the foundation only, not on each other), then ``trainers``, then the application (the rest of
``harness``). Every import is read with ``ast``, those inside functions too; one that points up a floor fails.
Tests import no benchmark script and no other test module."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "rewards", "suites", "trainers")


def floor(module: str) -> tuple[int, str]:
    """(height, name) of a module's floor; modules of the same height and another name must not meet."""
    if module == "harness.core" or module.startswith("harness.core."):
        return 0, "foundation"
    top = module.split(".")[0]
    return {"rewards": (1, "rewards"), "suites": (1, "suites"), "trainers": (2, "trainers")}.get(top, (3, "application"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((node.lineno, target))
            # "from harness import core" names a module too
            out += [(node.lineno, f"{target}.{alias.name}") for alias in node.names if target in PACKAGES]
    return out


def violations() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            here = floor(module_name(path))
            for line, target in imports(path):
                if target.split(".")[0] not in PACKAGES or target in PACKAGES:
                    continue
                there = floor(target)
                if there[0] > here[0] or (there[0] == here[0] and there[1] != here[1]):
                    found.append(f"{path.relative_to(REPO)}:{line} ({here[1]}) imports {target} ({there[1]})")
    return found


def test_no_import_points_up_a_floor():
    assert violations() == []


def test_the_check_can_fail(tmp_path, monkeypatch):
    """The same reading finds an upward import when there is one (a foundation module importing a reward)."""
    bad = REPO / "harness" / "core" / "_upward_probe.py"
    bad.write_text("def f():\n    from rewards.rule import RuleReward\n    return RuleReward\n")
    try:
        assert violations() == ["harness/core/_upward_probe.py:2 (foundation) imports rewards.rule (rewards)"]
    finally:
        bad.unlink()


def test_tests_import_no_benchmark_script_and_no_other_test_module():
    offenders = []
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        for line, target in imports(path):
            leaf = target.split(".")[-1]
            if target.startswith("benchmarks") or (leaf.startswith("test_") and target.startswith("tests")):
                offenders.append(f"{path.relative_to(REPO)}:{line} imports {target}")
    assert offenders == []
