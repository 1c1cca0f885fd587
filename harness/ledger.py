"""The verdict ledger: what each model-free verifier says of every labelled item the project can read, committed,
so that a change that moves a verdict is seen and explained rather than found later in a trainer's curve.

A change to a grader can refuse a whole format of correct answers while every accuracy figure stays within its
interval: the sets it was measured on may simply lack that format. The ledger holds one line per item (set, id,
label, verdict, reason) for each reward in :data:`LEDGER_REWARDS` over each set in :data:`LEDGER_SETS`; a test
recomputes it and lists every moved item with its old and new verdict, and ``tox -e ledger`` rewrites it, with a
summary per set (right to wrong, wrong to right) for the commit that says why each moved.

The files are tab-separated text, sorted, so that ``git diff`` of a rewrite shows exactly the items that moved.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import UserError
from harness.core.items import Score
from harness.core.spec import build
from harness.core.uncertainty import wilson
from rewards import REWARDS
from rewards.contract import Reward
from suites import build_suite
from suites.contract import LabelledItem


@dataclass(frozen=True)
class LedgerSet:
    """A labelled set the ledger covers: a suite spec, and where its data lies when that is not the suite's
    default."""

    name: str
    suite: str
    data: str | None = None


# Every labelled set the project can read without a model or the network, in a fixed order.
LEDGER_SETS: tuple[LedgerSet, ...] = (
    LedgerSet("processbench", "processbench"),
    LedgerSet("mathcheck-gsm", "mathcheck-gsm"),
    LedgerSet("verifybench-hard-subset", "verifybench-hard", "verifier/verifybench_hard_subset_longjudgebench"),
    LedgerSet("answer-equivalence", "answer-equivalence"),
    LedgerSet("real-formats", "real-formats"),
    LedgerSet("sample", "sample"),
    LedgerSet("robustness", "robustness"),
    LedgerSet("hacking", "hacking"),
)


@dataclass(frozen=True)
class LedgerReward:
    """A reward the ledger records: its spec, and the file its lines go to."""

    spec: str
    file: str


# The verifiers that need no model, and the composite of them the docs use.
LEDGER_REWARDS: tuple[LedgerReward, ...] = (
    LedgerReward("rule", "rule.tsv"),
    LedgerReward("mathverify", "mathverify.tsv"),
    LedgerReward("cascade:first=rule,then=mathverify", "cascade-rule-mathverify.tsv"),
)

_HEADER = "set\tid\tcategory\tlabel\tverdict\treason"
_VERDICT_TEXT = {True: "1", False: "0", None: "-"}
_VERDICT_OF = {text: verdict for verdict, text in _VERDICT_TEXT.items()}


class LedgerError(UserError):
    """A ledger file that cannot be read as written by :func:`write_ledger`."""


@dataclass(frozen=True)
class Entry:
    """One item's line: its set, its id and category (a subset, an answer type, a format) in that set, the set's
    label, the reward's verdict (None: abstained) and reason."""

    set: str
    id: str
    label: bool | None
    verdict: bool | None
    reason: str
    category: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return self.set, self.id

    @property
    def right(self) -> bool | None:
        """Whether the verdict agrees with the label; an abstention counts as "not correct", as the suites count
        it."""
        if self.label is None:
            return None
        return (self.verdict is True) == self.label

    def line(self) -> str:
        return "\t".join((_clean(self.set), _clean(self.id), _clean(self.category), _VERDICT_TEXT[self.label],
                          _VERDICT_TEXT[self.verdict],
                          _clean(self.reason)))


def _clean(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Moved:
    """An item whose line changed between two ledgers (``old`` or ``new`` None: the item came or went)."""

    old: Entry | None
    new: Entry | None

    @property
    def key(self) -> tuple[str, str]:
        entry = self.new if self.new is not None else self.old
        assert entry is not None
        return entry.key

    @property
    def kind(self) -> str:
        """``right to wrong``, ``wrong to right``, ``reason only`` (the verdict held), ``verdict, still wrong``
        (paid to abstained, say), ``added`` or ``removed``."""
        if self.old is None:
            return "added"
        if self.new is None:
            return "removed"
        before, after = self.old.right, self.new.right
        if before and not after:
            return "right to wrong"
        if after and not before:
            return "wrong to right"
        if self.old.verdict == self.new.verdict:
            return "reason only"
        return "verdict, still wrong" if not after else "verdict, still right"


MOVE_KINDS = ("right to wrong", "wrong to right", "verdict, still wrong", "verdict, still right", "reason only",
              "added", "removed")


def items_of(ledger_set: LedgerSet) -> list[LabelledItem]:
    """The set's labelled items, in the suite's order."""
    return build_suite(ledger_set.suite).load(ledger_set.data).rows


def _item_id(row: LabelledItem, index: int) -> str:
    uid = row.item.uid
    return _clean(uid) if uid else f"#{index}"


def entries_for(set_name: str, rows: Sequence[LabelledItem], scores: Sequence[Score]) -> list[Entry]:
    if len(rows) != len(scores):
        raise ValueError(f"{set_name}: {len(scores)} scores for {len(rows)} items")
    entries = [Entry(set_name, _item_id(row, k), row.label, score.verdict, score.reason, row.category)
               for k, (row, score) in enumerate(zip(rows, scores))]
    ids = Counter(e.id for e in entries)
    repeated = [i for i, n in ids.items() if n > 1]
    if repeated:
        raise ValueError(f"{set_name}: item ids repeat ({', '.join(repeated[:5])}): the ledger needs one line an item")
    return entries


def sample_rows(rows: Sequence[LabelledItem], share: float, seed: int = 0) -> list[int]:
    """A seeded sample of row indices (all of them when ``share`` is 1): the same indices for the same rows."""
    if share >= 1:
        return list(range(len(rows)))
    draw = random.Random(f"{seed}:{len(rows)}")
    return sorted(draw.sample(range(len(rows)), max(1, round(share * len(rows)))))


def compute(reward_spec: str, sets: Iterable[LedgerSet] = LEDGER_SETS, share: float = 1.0,
            reward: Reward | None = None) -> list[Entry]:
    """The reward's entries on every set (or on a seeded ``share`` of each set's items), in one scoring call so
    that the reward's workers start once. ``reward``: an instance already built from ``reward_spec`` (its
    workers running), else one is built and closed here."""
    plan: list[tuple[str, list[LabelledItem]]] = []
    for ledger_set in sets:
        rows = items_of(ledger_set)
        plan.append((ledger_set.name, [rows[k] for k in sample_rows(rows, share)]))
    items = [row.item for _, rows in plan for row in rows]
    if reward is not None:
        scores = reward.score(items)
    else:
        with build(REWARDS, reward_spec) as built:
            scores = built.score(items)
    entries: list[Entry] = []
    start = 0
    for name, rows in plan:
        entries += entries_for(name, rows, scores[start : start + len(rows)])
        start += len(rows)
    return entries


def write_ledger(path: Path, reward_spec: str, entries: Iterable[Entry]) -> None:
    """Write the entries sorted by set (in :data:`LEDGER_SETS` order) and id, whole or not at all."""
    order = {s.name: k for k, s in enumerate(LEDGER_SETS)}
    lines = [e.line() for e in sorted(entries, key=lambda e: (order.get(e.set, len(order)), e.set, e.id))]
    text = f"# reward: {reward_spec}\n{_HEADER}\n" + "".join(f"{line}\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def read_ledger(path: Path) -> tuple[str, list[Entry]]:
    """The reward spec a ledger file was written for, and its entries."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise LedgerError(f"no ledger at {path}: write it with `tox -e ledger`") from None
    if len(lines) < 2 or not lines[0].startswith("# reward: ") or lines[1] != _HEADER:
        raise LedgerError(f"{path} is not a ledger (it must start with '# reward: SPEC' and '{_HEADER}')")
    entries = []
    for number, line in enumerate(lines[2:], start=3):
        fields = line.split("\t")
        if len(fields) != 6 or fields[3] not in _VERDICT_OF or fields[4] not in _VERDICT_OF:
            raise LedgerError(f"{path}, line {number}: expected set, id, category, label, verdict (1, 0, -) and "
                              "reason")
        entries.append(Entry(fields[0], fields[1], _VERDICT_OF[fields[3]], _VERDICT_OF[fields[4]], fields[5],
                             fields[2]))
    return lines[0][len("# reward: "):], entries


def moved(old: Iterable[Entry], new: Iterable[Entry]) -> list[Moved]:
    """Every item whose line differs between the two ledgers, or that only one of them has."""
    before = {e.key: e for e in old}
    after = {e.key: e for e in new}
    out = []
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        if a != b:
            out.append(Moved(a, b))
    return out


def restricted(entries: Iterable[Entry], keys: set[tuple[str, str]]) -> list[Entry]:
    return [e for e in entries if e.key in keys]


def summary(changes: Sequence[Moved]) -> dict[str, Counter[str]]:
    """Per set, how many items moved of each kind (:data:`MOVE_KINDS`)."""
    out: dict[str, Counter[str]] = {}
    for change in changes:
        out.setdefault(change.key[0], Counter())[change.kind] += 1
    return out


def accuracy(entries: Iterable[Entry]) -> dict[tuple[str, str], tuple[int, int]]:
    """Per set (category ``""``) and per set and category, (items the verdict gets right, labelled items)."""
    out: dict[tuple[str, str], list[int]] = {}
    for entry in entries:
        if entry.label is None:
            continue
        for key in {(entry.set, ""), (entry.set, entry.category)}:
            counts = out.setdefault(key, [0, 0])
            counts[0] += bool(entry.right)
            counts[1] += 1
    return {key: (right, n) for key, (right, n) in out.items()}


def _verdict_words(entry: Entry | None) -> str:
    if entry is None:
        return "(absent)"
    return f"{_VERDICT_TEXT[entry.verdict]} {entry.reason}".rstrip()


def report(reward_spec: str, changes: Sequence[Moved], limit: int | None = None) -> Iterator[str]:
    """Lines for a person: the summary per set, then each moved item with its label, old and new verdict and
    reason (at most ``limit`` items)."""
    if not changes:
        yield f"{reward_spec}: no verdict moved"
        return
    yield f"{reward_spec}: {len(changes)} items moved"
    for set_name, kinds in summary(changes).items():
        parts = ", ".join(f"{kinds[k]} {k}" for k in MOVE_KINDS if kinds[k])
        yield f"  {set_name}: {parts}"
    shown = changes if limit is None else changes[:limit]
    for change in shown:
        entry = change.new if change.new is not None else change.old
        assert entry is not None
        label = _VERDICT_TEXT[entry.label]
        yield (f"  [{change.kind}] {entry.set} {entry.id} label {label}: "
               f"{_verdict_words(change.old)} -> {_verdict_words(change.new)}")
    if limit is not None and len(changes) > limit:
        yield f"  ... and {len(changes) - limit} more"


def _share(right: int, n: int) -> str:
    low, high = wilson(right, n) or (0.0, 1.0)
    return f"{right} / {n}: {100 * right / n:.1f} [{100 * low:.1f}, {100 * high:.1f}]"


def accuracy_markdown(ledgers: Mapping[str, Sequence[Entry]]) -> str:
    """The table of right / labelled items per set and per category of a set, for each reward, with the 95%
    Wilson interval: what :func:`summary_markdown` heads the ledger's README with, made from the ledgers alone."""
    per_reward = {spec: accuracy(entries) for spec, entries in ledgers.items()}
    keys = sorted({key for counts in per_reward.values() for key in counts},
                  key=lambda k: ([s.name for s in LEDGER_SETS].index(k[0]) if k[0] in {s.name for s in LEDGER_SETS}
                                 else len(LEDGER_SETS), k[0], k[1] != "", k[1]))
    lines = ["| set | category | " + " | ".join(f"`{spec}`" for spec in ledgers) + " |",
             "|---|---|" + "---:|" * len(ledgers)]
    for key in keys:
        if key[1] and sum(1 for k in keys if k[0] == key[0] and k[1]) < 2:
            continue  # a set of one category: its row says it
        cells = [_share(*per_reward[spec][key]) if key in per_reward[spec] else "-" for spec in ledgers]
        lines.append(f"| {key[0] if not key[1] else ''} | {key[1] or 'all'} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def summary_markdown(ledgers: Mapping[str, Sequence[Entry]], changes: Mapping[str, Sequence[Moved]]) -> str:
    """The ledger's README: accuracy per set and category for each reward, and what the last rewrite moved."""
    lines = ["# Verdict ledger", "",
             "What each model-free verifier says of every labelled item the project reads, one line an item (set, "
             "id, category, label, verdict, reason: `1` paid, `0` refused, `-` abstained). "
             "`tests/harness/test_ledger.py` recomputes it and fails on any moved verdict; `tox -e ledger` rewrites "
             "it and this page (`python -m tools.ledger --write`).", "",
             "## Right / labelled items (%, 95% Wilson interval)", "", accuracy_markdown(ledgers),
             "## What the last rewrite moved", ""]
    for spec, moves in changes.items():
        lines += [f"- {line}" if not line.startswith("  ") else f"  - {line.strip()}"
                  for line in report(spec, moves, limit=200)]
    return "\n".join(lines) + "\n"
