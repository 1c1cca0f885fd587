"""Figures the papers published, and which stored run is "the same row" as each.

``harness tables`` shows a paper's figure beside a run's only where both describe the same system: the same
reward kind (and judge model) for the reward tables, the same base policy trained with the same reward kind for
Cooper's Table 3. The figures live in a data file (``harness/data/published.yaml``, or a user's own file of the
same shape) so that they are reviewed as data, checked by a test, and never computed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

from harness.core.errors import UserError
from harness.core.spec import ComponentSpec, SpecError
from harness.core.store import RunKind, RunRecord

MATCH_KEYS = ("reward", "model", "policy")


class PublishedDataError(UserError, ValueError):
    """The published-figures file is malformed; the message names the row and what to fix."""


@dataclass(frozen=True)
class Source:
    key: str
    cite: str
    url: str = ""
    note: str = ""


@dataclass(frozen=True)
class Average:
    """How a layout's last column follows from the others (a weighted mean), for checking transcriptions."""

    of: tuple[str, ...]
    weights: tuple[float, ...]
    tolerance: float


@dataclass(frozen=True)
class LayoutColumns:
    columns: tuple[str, ...]
    average: Average | None = None
    suite: str = ""  # a run matches only if it ran this suite (the paper's benchmark), when set
    items: int = 0  # how many items the paper's figures are over, when known
    counts: tuple[int, ...] = ()  # per column, the items each figure is a share of (its interval's n), when known


@dataclass(frozen=True)
class PublishedRow:
    system: str
    source: Source
    match: Mapping[str, str]
    values: Mapping[str, Mapping[str, float]]  # layout -> column -> percent, as printed
    note: str = ""

    def matches(self, identity: Mapping[str, str]) -> bool:
        return all(identity.get(key, "").lower() == value.lower() for key, value in self.match.items())


@dataclass(frozen=True)
class Published:
    layouts: Mapping[str, LayoutColumns]
    rows: tuple[PublishedRow, ...] = field(default_factory=tuple)

    def for_layout(self, layout: str) -> list[PublishedRow]:
        return [row for row in self.rows if layout in row.values]

    def matching(self, layout: str, run: RunRecord) -> PublishedRow | None:
        suite = self.layouts[layout].suite if layout in self.layouts else ""
        if suite and run.suite != suite:
            return None  # the same system on other data is not the same row
        identity = run_identity(run)
        for row in self.for_layout(layout):
            if row.matches(identity):
                return row
        return None


def caveats(published: Published, layout: str, run: RunRecord) -> list[str]:
    """Why a run's figures and the paper's beside them may differ for reasons other than the system itself."""
    spec = published.layouts.get(layout)
    out = []
    if spec is not None and spec.items and run.kind == RunKind.REWARD_EVAL and run.n_items != spec.items:
        out.append(f"{run.reward} scored {run.n_items} items of {basename(run.data_source)}; the paper's figures "
                   f"are over {spec.items}.")
    limit = run.settings.limit if run.kind == RunKind.POLICY_EVAL else None
    if limit:
        out.append(f"{basename(run.settings.base_policy or run.data_source)} trained with "
                   f"{run.settings.trained_with or 'nothing'} was scored on a sample of {limit} problems of each "
                   "benchmark; the paper's figures are over the full test sets.")
    return out


def basename(name: str) -> str:
    """``Qwen/Qwen3-4B`` and ``/models/Qwen3-4B/`` are both ``Qwen3-4B``."""
    return PurePosixPath(name.replace("\\", "/").rstrip("/")).name if name else ""


def _reward_kind(spec: str) -> tuple[str, dict[str, str]]:
    try:
        parsed = ComponentSpec.parse(spec)
    except SpecError:
        return spec, {}
    return parsed.name, dict(parsed.options)


def run_identity(run: RunRecord) -> dict[str, str]:
    """What a published row can match on, read from a stored run."""
    if run.kind == RunKind.POLICY_EVAL:
        trained_with = run.settings.trained_with
        policy = run.settings.base_policy or run.data_source
        return {"policy": basename(policy), "reward": _reward_kind(trained_with)[0] if trained_with else "none"}
    kind, options = _reward_kind(run.reward)
    return {"reward": kind, "model": basename(options.get("model", ""))}


def _require(mapping: Any, key: str, where: str) -> Any:
    if not isinstance(mapping, Mapping) or key not in mapping:
        raise PublishedDataError(f"{where}: missing {key!r}")
    return mapping[key]


def _layouts(raw: Any, where: str) -> dict[str, LayoutColumns]:
    out = {}
    for name, spec in (raw or {}).items():
        columns = tuple(str(c) for c in _require(spec, "columns", f"{where}: layout {name}"))
        average = None
        if spec.get("average"):
            avg = spec["average"]
            of, weights = tuple(avg.get("of", ())), tuple(float(w) for w in avg.get("weights", ()))
            if len(of) != len(weights) or not set(of) <= set(columns):
                raise PublishedDataError(f"{where}: layout {name}: average needs one weight per column it averages")
            average = Average(of, weights, float(avg.get("tolerance", 0.01)))
        counts = tuple(int(n) for n in spec.get("counts", ()))
        if counts and (len(counts) != len(columns) or min(counts) < 1):
            raise PublishedDataError(f"{where}: layout {name}: counts needs one positive item count per column")
        out[str(name)] = LayoutColumns(columns, average, str(spec.get("suite", "")), int(spec.get("items", 0)), counts)
    return out


def parse_published(data: Any, where: str = "published figures") -> Published:
    if not isinstance(data, Mapping):
        raise PublishedDataError(f"{where}: expected a mapping with sources, layouts and rows")
    sources = {
        str(key): Source(str(key), str(_require(src, "cite", f"{where}: source {key}")), str(src.get("url", "")),
                         str(src.get("note", "")))
        for key, src in (data.get("sources") or {}).items()
    }
    layouts = _layouts(data.get("layouts"), where)
    rows = []
    for i, raw in enumerate(data.get("rows") or []):
        here = f"{where}: row {i + 1}"
        system = str(_require(raw, "system", here))
        here = f"{here} ({system})"
        source_key = str(_require(raw, "source", here))
        if source_key not in sources:
            raise PublishedDataError(f"{here}: unknown source {source_key!r}; sources: {', '.join(sources) or 'none'}")
        match = {str(k): str(v) for k, v in (_require(raw, "match", here) or {}).items()}
        unknown = sorted(set(match) - set(MATCH_KEYS))
        if not match or unknown:
            raise PublishedDataError(f"{here}: match keys are {', '.join(MATCH_KEYS)} (got {', '.join(unknown) or 'none'})")
        values: dict[str, dict[str, float]] = {}
        for layout, spec in layouts.items():
            if layout not in raw:
                continue
            given = raw[layout]
            if not isinstance(given, Sequence) or len(given) != len(spec.columns):
                raise PublishedDataError(f"{here}: {layout} needs {len(spec.columns)} values: {', '.join(spec.columns)}")
            try:
                values[layout] = {c: float(v) for c, v in zip(spec.columns, given)}
            except (TypeError, ValueError):
                raise PublishedDataError(f"{here}: {layout} values must be numbers, got {given!r}") from None
        stray = sorted(set(raw) - {"system", "source", "match", "note", *layouts})
        if stray:
            raise PublishedDataError(f"{here}: unknown key(s) {', '.join(stray)}; layouts: {', '.join(layouts)}")
        if not values:
            raise PublishedDataError(f"{here}: no values for any layout ({', '.join(layouts)})")
        rows.append(PublishedRow(system, sources[source_key], match, values, str(raw.get("note", ""))))
    return Published(layouts, tuple(rows))


def load_published(path: str | Path | None = None) -> Published:
    """The packaged figures, or a user's file of the same shape."""
    import yaml

    if path is None:
        text = (resources.files("harness") / "data" / "published.yaml").read_text(encoding="utf-8")
        where = "harness/data/published.yaml"
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise PublishedDataError(f"cannot read published figures {path}: {exc.strerror or exc}") from None
        where = str(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PublishedDataError(f"{where}: not valid YAML: {exc}") from None
    return parse_published(data, where)


def average_mismatches(published: Published) -> list[tuple[PublishedRow, str, float]]:
    """Rows whose printed average differs from the weighted mean of their columns: (row, layout, recomputed)."""
    out = []
    for row in published.rows:
        for layout, values in row.values.items():
            spec = published.layouts[layout]
            if spec.average is None:
                continue
            avg = spec.average
            mean = sum(values[c] * w for c, w in zip(avg.of, avg.weights)) / sum(avg.weights)
            if abs(mean - values[spec.columns[-1]]) > avg.tolerance:
                out.append((row, layout, mean))
    return out
