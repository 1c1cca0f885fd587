"""Property-based fuzzing of the rule reward: no input crashes or hangs a caller.

Hypothesis generates hostile completions and references (towers of powers with and without braces, factorials,
huge literals, deep nesting, unbalanced braces and ``\\left(`` without ``\\right)``, unicode look-alikes and
combining marks, control characters, leniently decoded random bytes, code, megabyte strings) in the contexts an
answer is read from (a box, "the answer is", ``####``, a bare tail, after ``</think>``), and scores them in
batches with real items from ../shared/data. Properties: one score per item; every value is 0 or 1; ``score``
never raises and no input crashes a worker (it scores, or fails by its deadline); the batch is answered within a bound derived from the per-item deadline; the real items score as
they do alone.

The default run tries a bounded number of batches. ``tox -e fuzz`` runs many more (``HARNESS_FUZZ_BATCHES``),
prints how many inputs it tried, and appends every failing batch to ``HARNESS_FUZZ_RECORD``; the batches in
``tests/data/fuzz_regressions.jsonl`` are replayed by every run.
"""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewards import Item
from rewards.contract import REASON_CRASHED
from rewards.rule import RuleReward

DEADLINE_S = 2.0
WORKERS = 2
BATCHES = int(os.environ.get("HARNESS_FUZZ_BATCHES", "25"))
RECORD = os.environ.get("HARNESS_FUZZ_RECORD")
REGRESSIONS = Path(__file__).resolve().parents[1] / "data" / "fuzz_regressions.jsonl"
TRIED = {"inputs": 0, "batches": 0, "failures": 0}

digits = st.integers(min_value=0, max_value=99).map(str)
small = st.integers(min_value=2, max_value=12).map(str)


@st.composite
def towers(draw) -> str:
    """``9^9^9^9``, ``9^{9^{9^9}}``, ``{9^9}^9``, mixed braces and parentheses."""
    depth = draw(st.integers(min_value=2, max_value=6))
    parts = [draw(small) for _ in range(depth)]
    style = draw(st.sampled_from(["bare", "braced", "paren", "left"]))
    if style == "bare":
        return "^".join(parts)
    if style == "braced":
        return "".join(f"{p}^{{" for p in parts[:-1]) + parts[-1] + "}" * (depth - 1)
    if style == "paren":
        return "".join(f"{p}^(" for p in parts[:-1]) + parts[-1] + ")" * (depth - 1)
    return "{" * (depth - 1) + parts[0] + "".join(f"^{p}}}" for p in parts[1:])


@st.composite
def factorials(draw) -> str:
    base = draw(st.sampled_from(["99", "(10^{8})", "(10^{10^{10}})", "1000000", "(9^9^9)", "x"]))
    bangs = "!" * draw(st.integers(min_value=1, max_value=6))
    return draw(st.sampled_from([f"{base}{bangs}", f"({base}{bangs})!", f"\\Gamma({base})", f"{base}!+x"]))


@st.composite
def huge_literals(draw) -> str:
    n = draw(st.integers(min_value=300, max_value=60_000))
    digit = draw(st.sampled_from("123456789"))
    tail = draw(st.sampled_from(["", ".5", " \\cdot 7", "^{99}", "!", " \\times 10^{-400}"]))
    return digit * n + tail


@st.composite
def nesting(draw) -> str:
    k = draw(st.integers(min_value=50, max_value=4000))
    kind = draw(st.sampled_from(["braces", "frac", "sqrt", "paren", "unbalanced", "left", "boxes"]))
    return {
        "braces": "{" * k + "1" + "}" * k,
        "frac": "\\frac{" * min(k, 300) + "1" + "}{2}" * min(k, 300),
        "sqrt": "\\sqrt{" * min(k, 500) + "2" + "}" * min(k, 500),
        "paren": "(" * k + "1" + ")" * k,
        "unbalanced": "{" * k + "1",
        "left": "\\left(" * min(k, 2000) + "1",
        "boxes": "\\boxed{" * k,
    }[kind]


@st.composite
def long_runs(draw) -> str:
    """A long run of one separator inside an answer's shape: spaces after "=", commas in a list, equals signs in
    a chain, LaTeX spaces; the patterns that read these must not try the run from each of its positions."""
    k = draw(st.integers(min_value=1_000, max_value=60_000))
    run = draw(st.sampled_from([" ", ",", "=", "\\,", "\\quad", "-", "."])) * k
    shape = draw(st.sampled_from([
        "x ={}1 <", "\\text{{Volume}} ={}40 \\text{{ cm}}", "1{}2", "x = 1 = 2{}<", "(1,{}2)", "\\frac{{1}}{{{}}}",
        "{}", "p = 3,{}q = 5", "40{}\\text{{ cm}}^2",
    ]))
    return shape.format(run)


lookalikes = st.text(
    alphabet=st.sampled_from(
        list("АВСЕНКМОРТХаеорсух") + list("٠١٢٣٤٥٦٧٨٩") + list("①②③④⑤") + list("０１２３４５６７８９")
        + ["\u0301", "\u0308", "\u200b", "\u202e", "\ufeff", "²", "³", "√", "π", "−", "∞", "°"]
    ),
    max_size=40,
)
control = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=31), max_size=40)
random_bytes = st.binary(max_size=300).map(lambda b: b.decode("utf-8", errors="replace"))
code = st.sampled_from([
    "def f(n):\n    return n ** n ** n\nprint(f(9))  # 4",
    "```python\nwhile True:\n    x = 9 ** 9 ** 9\n```",
    "import math; print(math.factorial(10**8))",
    "for (i = 0; i < n; i++) { s += i; }  // 4",
    "SELECT 4 FROM answers; -- \\boxed{",
])
megabyte = st.sampled_from(["x", "9", "{", "\\", "$", "Let me think. "]).map(lambda s: s * (1_000_000 // len(s)))
plain = st.text(max_size=200)
# the forms that once crashed or fooled the reader: complex ends in a pair or an interval (a ValueError in sympy),
# JSON answer fields, qualifiers and non-analytic functions, with a random inside
forms = st.builds(lambda template, inner: template.replace("@", inner), st.sampled_from([
    "(\\frac{3}{2}, 1 \\pm 2i)", "(2,5),\\left(\\tfrac{3}{2},\\;@ + 2i\\right)", "[i, @i]", "(@, 2i]",
    '{"answer": "@"}', '```json\n{"final_answer": [@, "@"]}\n```', '{"answer": "@', '"answer": @}',
    "(3, m) \\text{ for every } m \\ge @", "\\text{for all } @", "@ \\text{ where } @", "\\forall x: @",
    "\\max(x, @)", "|x + @| - @", "\\left\\lfloor @ \\right\\rfloor", "\\text{Yes, @}", "No, @ or yes",
]), st.one_of(digits, small, st.text(max_size=12), towers()))

hostile = st.one_of(
    towers(), factorials(), huge_literals(), nesting(), long_runs(), lookalikes, control, random_bytes, code, plain,
    forms,
    st.builds(lambda a, b: a + b, towers(), lookalikes),
    # megabyte strings are slow to build and read: one draw in about forty
    st.integers(0, 3).flatmap(lambda k: megabyte if k == 0 else st.sampled_from(["", "4", "{}"])),
)


@st.composite
def in_context(draw, inner) -> str:
    """The hostile text where an answer is read from."""
    text = draw(inner)
    return draw(st.sampled_from([
        "{}", "\\boxed{{{}}}", "The answer is {}", "So the result is {}", "#### {}", "$${}$$",
        "<think>{}</think>\\boxed{{4}}", "Reasoning...</think>{}", "\\boxed{{4}} or \\boxed{{{}}}",
        "The final answer is $\\boxed{{{}}}$.<|im_end|>",
    ])).format(text, text)


references = st.one_of(st.just("4"), st.just("\\frac{1}{2}"), st.just("x+1"), st.just("C"), st.just("(1, 2)"),
                       hostile.filter(lambda s: len(s) < 20_000))


@pytest.fixture(scope="module")
def reward():
    with RuleReward(workers=WORKERS, timeout=DEADLINE_S) as r:
        yield r
    if BATCHES > 100:
        print(f"\nfuzz: {TRIED['inputs']} hostile inputs in {TRIED['batches']} batches, "
              f"{TRIED['failures']} failing batch(es) kept")


@pytest.fixture(scope="module")
def real_items(data_root) -> list[Item]:
    """Real (question, reference, completion) items: the batch-mates of every hostile batch."""
    from suites import build_suite

    rows = build_suite("mathcheck-gsm").load(None, 6).rows
    return [Item(r.item.question, r.item.reference, r.item.completion, {"real": True}) for r in rows]


@pytest.fixture(scope="module")
def alone(reward, real_items) -> list:
    """The real items' scores when they are scored by themselves."""
    return reward.score(real_items)


def _check(reward: RuleReward, batch: list[Item], alone: list) -> None:
    """Score ``batch`` in a thread and check every property; raise AssertionError on a violation."""
    result: dict = {}

    def run() -> None:
        try:
            result["scores"] = reward.score(batch)
        except BaseException as exc:  # noqa: BLE001 - any escape is the failure being looked for
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    # Each item may use its deadline twice (once in a chunk, once alone), two workers share the batch; the
    # caller's own checks are linear and take a fraction of that.
    bound = 2 * DEADLINE_S * math.ceil(len(batch) / WORKERS) + 20
    thread.join(bound)
    assert not thread.is_alive(), f"the batch was not answered within {bound:.0f}s"
    assert "error" not in result, f"score raised {result.get('error')!r}"
    scores = result["scores"]
    assert len(scores) == len(batch)
    # 0 or 1, or an abstention on a reference that states no value it can read (never a failure to score)
    assert all(s.value in (0.0, 1.0) or (s.value, s.reason) == (None, "unparsable_reference") for s in scores), \
        [(s.value, s.reason) for s in scores]
    crashed = [(it.reference[:80], it.completion[:80], s.detail[:200]) for s, it in zip(scores, batch)
               if s.reason == REASON_CRASHED]
    assert not crashed, f"an input crashed the reward (it must score, or fail by its deadline): {crashed}"
    mates = [s for s, it in zip(scores, batch) if it.metadata.get("real")]
    assert [(s.value, s.reason) for s in mates] == [(s.value, s.reason) for s in alone]


def _record(batch: list[Item]) -> None:
    TRIED["failures"] += 1
    if RECORD and TRIED["failures"] <= 20:
        with open(RECORD, "a", encoding="utf-8") as fh:
            fh.write(json.dumps([[it.question, it.reference, it.completion] for it in batch if not it.metadata.get("real")],
                                ensure_ascii=False) + "\n")


@settings(max_examples=BATCHES, deadline=None, derandomize=BATCHES <= 100, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(st.lists(st.tuples(references, in_context(hostile)), min_size=2, max_size=6))
def test_hostile_batches_are_scored_safely(reward, real_items, alone, pairs):
    hostile_items = [Item("Compute it.", ref, comp) for ref, comp in pairs]
    batch = real_items[:3] + hostile_items + real_items[3:]
    TRIED["inputs"] += len(hostile_items)
    TRIED["batches"] += 1
    if BATCHES > 100 and TRIED["batches"] % 500 == 0:  # a long run shows it is alive, and how far it has come
        print(f"fuzz: {TRIED['inputs']} inputs in {TRIED['batches']} batches, {TRIED['failures']} failing",
              flush=True)
    try:
        _check(reward, batch, alone)
    except AssertionError:
        _record(hostile_items)
        raise


def _regressions() -> list[list[list[str]]]:
    lines = REGRESSIONS.read_text(encoding="utf-8").splitlines() if REGRESSIONS.exists() else []
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("kept", _regressions())
def test_kept_failures_stay_fixed(reward, real_items, alone, kept):
    _check(reward, real_items + [Item(q, r, c) for q, r, c in kept], alone)
