"""The packages stand on each other in one direction: the foundation (``harness.core``), then ``rewards`` and
``suites`` (on the foundation only, not on each other), then ``trainers``, then the application (the rest of
``harness``). Every import is read with ``ast``, those inside functions too; one that points up a floor fails.
Inside ``rewards.math`` the same holds for the grader's stages: the readers, then extraction, rejection and
decision, then the symbolic step and the grader; a module imports only stages below its own, so none forms a
circle. Tests import no benchmark script and no other test module."""

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


# The stages of rewards.math, lowest first: a module may import only modules of a lower stage.
MATH_STAGES = {
    # values and text forms, on nothing else here
    "numeric": 0, "latex_numbers": 0, "choices": 0, "prediction": 0, "dfa": 0,
    # reading numbers, math segments and words; rewriting forms (a tuple's parts split as numbers split them);
    # values of sympy trees, intervals, quantities
    "reading": 1, "normalization": 1, "sympy_values": 1, "intervals": 1, "quantities": 1,
    # where the answer is, and what of it is the answer (a family, not its qualifier)
    "extraction": 2, "qualifiers": 2,
    # what a sentence states (a reference's or an answer's value), read with the answer phrases of extraction
    "references": 3,
    "rejection": 3,
    "decision": 4,
    "identities": 5,
    "symbolic": 6,
    "grader": 7,
}


def math_stage_violations() -> list[str]:
    found = []
    root = REPO / "rewards" / "math"
    for path in sorted(root.rglob("*.py")):
        if path.parent == root and path.name == "__init__.py":
            continue
        stage = path.relative_to(root).parts[0].removesuffix(".py")
        if stage not in MATH_STAGES:
            found.append(f"rewards/math/{stage} has no stage in MATH_STAGES: place it")
            continue
        for line, target in imports(path):
            if not target.startswith("rewards.math."):
                continue
            other = target.split(".")[2]
            if other == stage or other not in MATH_STAGES:
                continue
            if MATH_STAGES[other] >= MATH_STAGES[stage]:
                found.append(f"{path.relative_to(REPO)}:{line} ({stage}, stage {MATH_STAGES[stage]}) imports "
                             f"{target} (stage {MATH_STAGES[other]})")
    return found


def test_no_module_of_rewards_math_imports_its_own_stage_or_a_later_one():
    assert math_stage_violations() == []


def test_the_stage_check_can_fail():
    """A helper imported across stages, as rejection once imported decision's segment reader, is found."""
    probe = REPO / "rewards" / "math" / "extraction_probe.py"
    probe.write_text("def f():\n    from rewards.math.decision import same_text\n    return same_text\n")
    MATH_STAGES["extraction_probe"] = MATH_STAGES["extraction"]
    try:
        assert math_stage_violations() == [
            "rewards/math/extraction_probe.py:2 (extraction_probe, stage 2) imports rewards.math.decision (stage 4)"]
    finally:
        probe.unlink()
        del MATH_STAGES["extraction_probe"]


def test_tests_import_no_benchmark_script_and_no_other_test_module():
    offenders = []
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        for line, target in imports(path):
            leaf = target.split(".")[-1]
            if target.startswith("benchmarks") or (leaf.startswith("test_") and target.startswith("tests")):
                offenders.append(f"{path.relative_to(REPO)}:{line} imports {target}")
    assert offenders == []
