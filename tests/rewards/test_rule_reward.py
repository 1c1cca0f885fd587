"""The rule reward end to end: worker processes, deadlines, resource attacks, threads, pickling."""

import pickle
import threading

import pytest

from rewards import REWARDS, Item, build_reward
from rewards.rule import RuleReward

POWER_TOWER = "\\boxed{5^{5^{5^{5^5}}}}"
# Survives every fast path and keeps sympy busy for seconds: the case that needs the pool's kill.
SLOW_FOR_SYMPY = "\\boxed{(10^{8})! + x}"


def items(pairs):
    return [Item("q", ref, comp, {"uid": str(i)}) for i, (ref, comp) in enumerate(pairs)]


def test_registered_and_satisfies_contract():
    reward = build_reward("rule:workers=1,timeout=5")
    assert isinstance(reward, RuleReward)
    scores = reward.score(items([("2", "\\boxed{2}"), ("2", "\\boxed{3}")]))  # the contract, by what it does
    assert [(s.value, s.verdict) for s in scores] == [(1.0, True), (0.0, False)]
    assert REWARDS.get("rule") is RuleReward
    assert reward.timeout == 5 and reward.workers == 1
    reward.close()


def test_scores_in_input_order(rule_reward):
    pairs = [(str(i), f"The answer is {i if i % 3 else i + 1}") for i in range(30)]
    scores = rule_reward.score(items(pairs))
    assert [s.verdict for s in scores] == [i % 3 != 0 for i in range(30)]
    assert all(s.reason in ("verified", "mismatch") for s in scores)


@pytest.mark.parametrize(
    "name, completion",
    [
        ("power tower", POWER_TOWER),
        ("megabyte completion", "Let me think. " * 80_000 + "The answer is 7"),
        ("50,000-digit integer", "\\boxed{" + "9" * 50_000 + "}"),
        ("50,000-digit product", "\\boxed{" + "9" * 50_000 + " \\cdot " + "7" * 50_000 + "}"),
        ("deep nesting", "\\boxed{" + "{" * 5_000 + "1" + "}" * 5_000 + "}"),
        ("unbalanced braces", "\\boxed{" * 100_000),
        ("huge factorial", "\\boxed{(10^{8})!}"),
        ("huge factorial plus a symbol", SLOW_FOR_SYMPY),
    ],
)
def test_resource_attacks_return_a_verdict(rule_reward, name, completion):
    [score] = rule_reward.score(items([("7" if name != "huge factorial plus a symbol" else "x+1", completion)]))
    # decided by a rule, or stopped at its own deadline (one kill), never left to run
    assert not score.is_failure or score.detail == f"killed after {rule_reward.timeout:g}s"
    if name == "megabyte completion":
        assert score.verdict is True
    else:
        assert score.verdict is False and score.value == 0.0


@pytest.mark.parametrize(
    "reference, completion",
    [
        ("4", "So the result is 9^9^9^9"),  # no anchor: math-verify reads the tail, then a numeric check
        ("9^{9^{9^9}}", "The answer is 4"),  # the same tower as the reference
        ("4", "The answer is (10^{10^{10}})!"),
    ],
)
def test_towers_never_raise_to_the_caller(rule_reward, reference, completion):
    scores = rule_reward.score(items([(reference, completion), ("4", "The answer is 4")]))
    assert [(s.value, s.verdict) for s in scores] == [(0.0, False), (1.0, True)]


def test_item_past_its_deadline_is_killed_and_batch_mates_are_scored():
    # A 0.5 s deadline is shorter than math-verify's own 1 s alarm, so the pool must kill the slow item.
    with RuleReward(workers=2, timeout=0.5) as reward:
        batch = items([("3", "\\boxed{3}"), ("x+1", SLOW_FOR_SYMPY), ("x+1", "\\boxed{1+x}"), ("4", "\\boxed{5}")])
        scores = reward.score(batch)
    assert [s.reason for s in scores] == ["verified", "timeout", "verified", "mismatch"]
    assert [s.verdict for s in scores] == [True, False, True, False]
    assert scores[1].detail == "killed after 0.5s"  # the cause stays with the item


def test_safe_to_call_from_several_threads(rule_reward):
    results: dict[int, list] = {}

    def work(k):
        pairs = [(str(k * 10 + i), f"\\boxed{{{k * 10 + i}}}") for i in range(10)]
        results[k] = [s.verdict for s in rule_reward.score(items(pairs))]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert results == {k: [True] * 10 for k in range(4)}


def test_pickle_round_trip_scores_the_same(rule_reward):
    copy = pickle.loads(pickle.dumps(rule_reward))
    try:
        assert copy.config == rule_reward.config and copy._pool is None
        batch = items([("1/2", "\\boxed{0.5}"), ("2", "\\boxed{3}")])
        assert copy.score(batch) == rule_reward.score(batch)
    finally:
        copy.close()


def test_items_pickle():
    item = Item("q", "r", "c", {"uid": "7", "answer_type": "A1"})
    back = pickle.loads(pickle.dumps(item))
    assert back == item and back.uid == "7"


def test_the_calling_process_never_loads_sympy():
    """Items the pure rules decide are scored here, the rest in workers: sympy, ANTLR and math-verify (a fifth of
    a second of every command's start-up) load only in the workers."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from rewards import Item, build_reward\n"
        "with build_reward('rule:workers=1') as r:\n"
        "    s = r.score([Item('What is 2+2?', '4', 'It is 4.'), Item('', 'x+1', '\\\\boxed{1+x}')])\n"
        "assert [x.verdict for x in s] == [True, True], s\n"
        "heavy = [m for m in ('math_verify', 'sympy', 'latex2sympy2_extended') if m in sys.modules]\n"
        "print(heavy); sys.exit(1 if heavy else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_items_decided_here_are_scored_while_the_workers_start():
    """The first item that needs a worker does not hold up the items after it that the calling process decides:
    their scores are handed out while the pool is still starting, and the worker's comes once it is up."""
    with RuleReward(workers=1) as reward:
        pool = reward.pool
        ready = threading.Event()

        class Starting:  # the real pool, but its start (the fork server importing sympy) lasts until ready
            def submit(self, fn, arg_tuples):
                ready.wait(60)
                return pool.submit(fn, arg_tuples)

            def outcomes(self, task):
                return pool.outcomes(task)

        reward._pool = Starting()
        batch = items([("x+1", "\\boxed{1+x}"), ("3", "\\boxed{3}"), ("4", "\\boxed{5}")])
        assert reward._decide_here(batch[0]) is None and reward._decide_here(batch[1]) is not None
        scored: dict[int, bool] = {}
        both = threading.Event()

        def on_score(i, score, seconds):
            scored[i] = score.verdict
            if {1, 2} <= set(scored):
                both.set()

        worker = threading.Thread(target=reward.score_each, args=(batch, on_score))
        worker.start()
        decided_while_starting = both.wait(20)
        ready.set()
        worker.join(120)
        reward._pool = pool
    assert decided_while_starting
    assert scored == {0: True, 1: True, 2: False}


def test_an_item_scored_lately_is_not_graded_twice_but_a_failure_is_tried_again(monkeypatch):
    from rewards import Score

    items = [Item("q", "1/2", "\\boxed{0.5}"), Item("q", "x^2+1", "\\boxed{1+x^2}"), Item("q", "3", "\\boxed{4}")]
    with RuleReward(workers=1, timeout=5) as reward:
        first = reward.score(items)
        assert [s.verdict for s in first] == [True, True, False]
        graded = reward.decided_here + reward.sent_to_workers
        assert graded == 3
        assert reward.score(list(reversed(items))) == list(reversed(first))  # the same scores, in the new order
        assert reward.decided_here + reward.sent_to_workers == graded  # none graded again
        hung = Item("q", "2", "\\boxed{2}")
        calls = []

        def timed_out(batch):  # the worker's deadline passed: what the pool reports for a hung item
            calls.append(len(batch))
            return [(Score.failed("timeout", "over 5s"), 5.0) for _ in batch]

        monkeypatch.setattr(reward, "score_timed", timed_out)
        assert reward.score([hung])[0].is_failure and reward.score([hung])[0].is_failure
        assert calls == [1, 1]  # tried again: a failure is not a verdict to keep
        monkeypatch.undo()
        assert reward.score([hung])[0].verdict is True


@pytest.mark.parametrize("reference, answer", [
    ("\\pi^3", "(-\\pi)^3"), ("8", "(-2)^3"), ("\\pi^{5}", "(-\\pi)^{5}"), ("-\\pi^3", "\\pi^3"),
])
def test_an_odd_power_keeps_the_sign_of_a_negative_base(rule_reward, reference, answer):
    """(-x)^3 is -x^3: the numeric evaluator's power of a negative base keeps its sign for odd exponents."""
    [score] = rule_reward.score([Item("", reference, f"The answer is $\\boxed{{{answer}}}$.")])
    assert score.verdict is False, score
    [same] = rule_reward.score([Item("", reference, f"The answer is $\\boxed{{{reference}}}$.")])
    assert same.verdict is True
