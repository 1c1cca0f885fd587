"""OpenRLHF's command-line flags, read from its source with ``ast`` (never imported).

OpenRLHF's trainer cannot even be imported without GPUs and a CUDA build of flash-attn, yet every flag the
``openrlhf`` trainer generates must exist in the release it targets. So the flags are read from
``openrlhf/cli/train_ppo_ray.py`` as text: each ``parser.add_argument("--x.y", ...)``, including the
f-string flags declared in ``for prefix in ("actor", "critic")`` loops.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from harness.core.optional import MissingDependencyError


@dataclass(frozen=True)
class Flag:
    name: str
    takes_value: bool
    choices: tuple[str, ...] | None


def openrlhf_source() -> Path:
    """``train_ppo_ray.py`` of the installed openrlhf (install it with ``pip install --no-deps openrlhf``)."""
    spec = importlib.util.find_spec("openrlhf")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the openrlhf trainer needs the package 'openrlhf', which is not installed. Install it with: pip install "
            "'rl-reward-harness[openrlhf]' (on the GPU cluster); to check the command here with --dry-run, its "
            "source is enough: pip install --no-deps openrlhf==0.11.2")
    return Path(list(spec.submodule_search_locations)[0]) / "cli" / "train_ppo_ray.py"


def _flag_names(node: ast.expr, loops: dict[str, tuple[str, ...]]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        names = [""]
        for part in node.values:
            if isinstance(part, ast.Constant):
                names = [n + str(part.value) for n in names]
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name) and part.value.id in loops:
                names = [n + v for n in names for v in loops[part.value.id]]
            else:
                return []
        return names
    return []


def read_flags(source: Path | None = None) -> dict[str, Flag]:
    tree = ast.parse((source or openrlhf_source()).read_text())
    flags: dict[str, Flag] = {}

    def visit(node: ast.AST, loops: dict[str, tuple[str, ...]]) -> None:
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, (ast.Tuple, ast.List)):
            values = tuple(e.value for e in node.iter.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
            loops = {**loops, node.target.id: values}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            keywords = {k.arg: k.value for k in node.keywords}
            action = keywords.get("action")
            takes_value = not (isinstance(action, ast.Constant) and action.value in ("store_true", "store_false"))
            choices = None
            if isinstance(keywords.get("choices"), (ast.List, ast.Tuple)):
                choices = tuple(str(e.value) for e in keywords["choices"].elts if isinstance(e, ast.Constant))
            for arg in node.args:
                for name in _flag_names(arg, loops):
                    if name.startswith("--"):
                        flags[name] = Flag(name, takes_value, choices)
        for child in ast.iter_child_nodes(node):
            visit(child, loops)

    visit(tree, {})
    return flags


class FlagError(ValueError):
    pass


def check_command(args: list[str], flags: dict[str, Flag]) -> None:
    """Every ``--flag`` in ``args`` exists; flags that take a value have one, in their choices; switches have none."""
    problems = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            problems.append(f"unexpected value {arg!r}")
            i += 1
            continue
        flag = flags.get(arg)
        if flag is None:
            problems.append(f"unknown flag {arg}")
            i += 1
            continue
        if flag.takes_value:
            if i + 1 >= len(args) or args[i + 1].startswith("--"):
                problems.append(f"{arg} needs a value")
                i += 1
                continue
            if flag.choices and args[i + 1] not in flag.choices:
                problems.append(f"{arg} {args[i + 1]!r} is not one of {', '.join(flag.choices)}")
            i += 2
        else:
            i += 1
    if problems:
        raise FlagError("; ".join(problems))
