"""What is registered, and whether a spec would work: the library side of ``harness ls`` and ``validate``."""

from __future__ import annotations

from harness.core.registry import Entry
from harness.core.spec import ComponentSpec, bind_options


def catalog(kind: str = "all") -> list[tuple[str, list[Entry]]]:
    """(title, entries) per registry; ``kind`` is ``rewards``, ``suites``, ``trainers``, ``generators`` or ``all``."""
    from harness.core.generation import GENERATORS
    from rewards import REWARDS
    from suites import SUITES
    from trainers import TRAINERS

    registries = {"rewards": REWARDS, "suites": SUITES, "trainers": TRAINERS, "generators": GENERATORS}
    chosen = registries if kind == "all" else {kind: registries[kind]}
    listed = [(title, reg.entries()) for title, reg in chosen.items()]
    if "suites" in chosen:
        listed.insert(list(chosen).index("suites") + 1, ("policy benchmarks (eval-policy --suites)", policy_benchmarks()))
    return listed


def policy_benchmarks() -> list[Entry]:
    """The math benchmarks ``harness eval-policy`` scores policies on, from their declarations (no code)."""
    from suites.declarations import declarations

    return [Entry(name, "suites.math_benchmarks", f"{d.display}: {', '.join(d.files)}", "builtin (suites.yaml)")
            for name, d in declarations().policy.items()]


def validate(reward_spec: str | None, suite_spec: str | None, data: str | None = None) -> list[str]:
    """Check a reward spec's options and a suite's data; returns human-readable lines, raises on problems."""
    from rewards import REWARDS
    from suites import build_suite

    lines = []
    if reward_spec:
        spec = ComponentSpec.parse(reward_spec)
        bind_options(REWARDS.get(spec.name), spec.options, what=f"reward {spec.name!r}")
        lines.append(f"reward {spec}: ok")
    if suite_spec:
        loaded = build_suite(suite_spec).load(data)
        positives = sum(r.label for r in loaded.rows)
        lines.append(
            f"suite {suite_spec}: {len(loaded.rows)} items ({positives} labelled correct) from {loaded.source}; "
            f"categories: {', '.join(loaded.categories)}"
        )
    return lines
