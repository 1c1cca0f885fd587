"""The verifyrm reward on a tiny real classifier: input format, length-bucketed batching, thread safety."""

import pickle
import threading

import pytest

from rewards import Item, build_reward
from rewards.classifier import plan_batches
from rewards.verifyrm import VerifyRMFormat, VerifyRMReward

from ..models import tiny_classifier


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_classifier(tmp_path_factory.mktemp("tiny-rm"))


def test_input_format_and_cut_as_released():
    fmt = VerifyRMFormat()
    long = "a" * 600 + "b" * 400 + "c" * 1000
    assert fmt.shorten("x" * 1500) == "x" * 1500
    assert fmt.shorten(long) == "a" * 500 + "c" * 1000
    text = fmt.render("Q?", "42", "so 42")
    assert text == "<question>Q?</question>\n<reference_answer>42</reference_answer>\n<completion>so 42</completion>"


@pytest.mark.parametrize("lengths, max_tokens, max_items", [
    ([5, 100, 7, 90, 3, 50], 200, 8), ([10] * 17, 45, 100), ([300, 1, 1], 100, 2), ([], 10, 2),
])
def test_plan_batches_respects_the_token_budget(lengths, max_tokens, max_items):
    plan = plan_batches(lengths, max_tokens, max_items)
    assert sorted(i for b in plan for i in b) == list(range(len(lengths)))
    for batch in plan:
        assert len(batch) <= max_items
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= max_tokens


def items(n):
    return [Item(f"What is {i}+{i}?", str(2 * i), ("work " * (i * 7 % 60)) + f"so {2 * i}") for i in range(n)]


def test_batched_scores_match_one_by_one_in_input_order(model_dir):
    reward = build_reward(f"verifyrm:model={model_dir},max_tokens_per_batch=600,max_batch_size=5")
    batch = items(23)
    together = reward.score(batch)
    alone = [reward.score([it])[0] for it in batch]
    assert [round(s.value, 4) for s in together] == [round(s.value, 4) for s in alone]
    assert all(0.0 < s.value < 1.0 and s.verdict == (s.value >= 0.5) for s in together)
    assert len({round(s.value, 6) for s in together}) > 1  # the inputs matter


def test_threshold_and_pickle(model_dir):
    reward = VerifyRMReward(str(model_dir), threshold=0.0)
    assert all(s.verdict for s in reward.score(items(3)))
    copy = pickle.loads(pickle.dumps(reward))
    assert copy.classifier._model is None
    assert [s.value for s in copy.score(items(3))] == pytest.approx([s.value for s in reward.score(items(3))])
    with pytest.raises(ValueError):
        VerifyRMReward(str(model_dir), threshold=1.5)


def test_concurrent_callers(model_dir):
    reward = VerifyRMReward(str(model_dir))
    expected = [s.value for s in reward.score(items(8))]
    results = []
    threads = [threading.Thread(target=lambda: results.append([s.value for s in reward.score(items(8))])) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(results) == 3 and all(r == pytest.approx(expected) for r in results)


def test_missing_model_is_a_clear_error(tmp_path):
    reward = VerifyRMReward(str(tmp_path / "no-such-model"))
    with pytest.raises(OSError, match="could not load a sequence classifier"):
        reward.score(items(1))


def test_vllm_paths_say_how_to_install():
    from harness.core.optional import MissingDependencyError

    reward = VerifyRMReward("some/model", backend="vllm")
    with pytest.raises(MissingDependencyError, match=r"rl-reward-harness\[vllm\]"):
        reward.score(items(1))
    served = VerifyRMReward("served-model", server="http://127.0.0.1:9/v1")
    assert served.classifier.url == "http://127.0.0.1:9/v1/classify"
