"""What the run store holds, as the rest of the harness reads and writes it: a run's kind and status, what it is
begun with (:class:`NewRun`), its numbers (:class:`Metric`) and items (:class:`ItemRow`), its typed settings per
kind, and the stored run (:class:`RunRecord`). Plain records with no storage in them; :mod:`harness.core.store`
keeps them in SQLite."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any


class RunStatus(str, Enum):
    """Where a run is: ``running`` until it ends; ``complete`` with its numbers, or ``failed`` / ``interrupted``
    without them. A ``str`` enum: stored as its value and equal to it."""

    RUNNING = "running"
    COMPLETE = "complete"
    FAILED = "failed"
    INTERRUPTED = "interrupted"

    def __str__(self) -> str:
        return self.value



class RunKind(str, Enum):
    """What a run is; its value is what the store holds."""

    REWARD_EVAL = "reward-eval"  # a reward scored on a labelled suite (harness eval)
    POLICY_EVAL = "policy-eval"  # a policy's accuracy on math benchmarks (harness eval-policy)
    TRAIN = "train"  # a policy trained with a reward (harness train, or a recorded served run)
    RM_TRAIN = "rm-train"  # a reward model trained (harness train-rm)
    SFT = "sft"  # a supervised warm-up (harness sft)

    def __str__(self) -> str:
        return self.value


def content_hash(data: bytes | str) -> str:
    """The short content hash a run records for its data (sha256, 16 hex digits)."""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:16]


@dataclass(frozen=True)
class Metric:
    """One number of a run, as suites compute it and the store keeps it. ``n`` is how many items it aggregates;
    ``group`` sorts metrics into tables (``overall``, ``by_category``, ``confusion``, ``health``, ``training``);
    ``low`` and ``high`` bound its 95% interval where it has one (:mod:`harness.core.uncertainty` says which)."""

    name: str
    value: float | None
    higher_is_better: bool | None
    n: int
    group: str = "overall"
    low: float | None = None
    high: float | None = None

    @property
    def interval(self) -> tuple[float, float] | None:
        return None if self.low is None or self.high is None else (self.low, self.high)


@dataclass(frozen=True)
class ItemRow:
    idx: int
    uid: str | None
    category: str | None
    label: bool | None
    value: float | None
    verdict: bool | None
    reason: str
    answer: str | None
    latency_s: float | None
    detail: str = ""


@dataclass(frozen=True)
class ItemText:
    """What an item was scored on, kept where nothing else can give it again: a policy's generations (the
    question it was asked, the reference, and what it wrote). An evaluation run reads its texts from its suite."""

    question: str
    reference: str
    completion: str


@dataclass(frozen=True)
class ProbeScore:
    """What a training run's reward paid for one item of its labelled probe at one step."""

    idx: int
    category: str | None
    label: bool | None
    value: float | None


@dataclass(frozen=True)
class Artifact:
    """A file a run wrote outside the store (a reward model's weights at an update), named by its SHA-256, so that
    a figure read from it can be tied to the exact bytes."""

    step: int
    name: str
    path: str
    sha256: str


@dataclass(frozen=True)
class NewRun:
    """What a caller says about a run when it begins it. ``data_hash`` is a content hash of the data ('' when the
    run has no data file of its own); ``n_items`` counts what the run scores or trains on (items, prompts)."""

    kind: RunKind
    reward: str
    suite: str
    data_source: str
    data_hash: str
    n_items: int
    config: dict[str, Any]
    versions: dict[str, str]


@dataclass(frozen=True)
class EvalSettings:
    """What a reward evaluation (``reward-eval``) was run with."""

    limit: int | None = None
    batch_size: int = 64
    data: str | None = None
    category_name: str = ""


@dataclass(frozen=True)
class PolicyEvalSettings:
    """What a policy evaluation (``policy-eval``) was run with, and which training it scored."""

    model: str = ""
    limit: int | None = None
    base_policy: str = ""
    trained_with: str = ""


@dataclass(frozen=True)
class TrainingSettings:
    """What every training run (``train``, ``sft``, ``rm-train``) records and its readers use: where its model went
    and its seed; for GRPO, the policy it started from and the alarm's window. A trainer's full config is kept
    too (``RunRecord.config``); these are the fields read back."""

    output: str = ""
    seed: int = 0
    policy: str = ""
    alarm_window: int = 10


_SETTINGS: dict[str, type] = {
    RunKind.REWARD_EVAL.value: EvalSettings, RunKind.POLICY_EVAL.value: PolicyEvalSettings,
    RunKind.TRAIN.value: TrainingSettings, RunKind.SFT.value: TrainingSettings, RunKind.RM_TRAIN.value: TrainingSettings,
}


@dataclass(frozen=True)
class RunRecord(NewRun):
    """A stored run as every report reads it: what it was begun with, and what became of it."""

    id: str = ""
    status: RunStatus = RunStatus.RUNNING
    created_at: str = ""
    finished_at: str | None = None
    wall_seconds: float | None = None
    error: str | None = None
    metrics: list[Metric] = field(default_factory=list)
    orphaned: bool = False  # ``running``, but the process that ran it on this machine is gone: it will never end

    @property
    def status_text(self) -> str:
        """The status as listings show it: ``running (process gone)`` for an orphaned run."""
        return f"{self.status} (process gone)" if self.orphaned else str(self.status)

    @property
    def settings(self) -> Any:
        """The run's configuration as its kind's typed settings (:class:`EvalSettings`, :class:`PolicyEvalSettings`,
        :class:`TrainingSettings`): stored keys it does not name are left out, missing ones take their defaults
        (runs stored by older versions read the same way)."""
        cls = _SETTINGS[RunKind(self.kind).value]
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in self.config.items() if k in names and v is not None})

    @property
    def category_name(self) -> str:
        """What the run's categories are ("answer type", "attack family"), as its suite names them: only a reward
        evaluation has a suite that does; other kinds say '' (a training run's categories are held-out sources)."""
        settings = self.settings
        return settings.category_name if isinstance(settings, EvalSettings) else ""

    def metric(self, name: str) -> float | None:
        for m in self.metrics:
            if m.name == name:
                return m.value
        return None
