"""The cooper reward on a tiny real classifier: pairs from rule-verified rollouts, the pairwise update, the
three negative sources, checkpoints and resume."""

import pickle

import pytest

from rewards import Item, build_reward
from rewards.cooper import CooperReward, _group_by_prompt
from rewards.cooper_negatives import perturb_final_answer

from ..models import require_packaged_smollm2, tiny_classifier


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tiny_classifier(tmp_path_factory.mktemp("cooper-base"), seed=3)


def rollouts():
    """Two prompts with four rollouts each: some correct, some not (by the rule reward)."""
    q1, q2 = "Tom has 3 apples and buys 4 more. How many?", "What is 6 times 7?"
    return [
        Item(q1, "7", "3 + 4 = 7 apples.\n#### 7"),
        Item(q1, "7", "3 + 4 = 8 apples.\n#### 8"),
        Item(q1, "7", "He has \\boxed{7} apples."),
        Item(q1, "7", "I think \\boxed{12}."),
        Item(q2, "42", "6 * 7 = 42, so the answer is \\boxed{42}."),
        Item(q2, "42", "6 * 7 = 36, so \\boxed{36}."),
        Item(q2, "42", "Six sevens are 42.\n#### 42"),
        Item(q2, "42", "Not sure."),
    ]


@pytest.mark.parametrize("completion, expected", [
    ("so \\boxed{7}.", "so \\boxed{8}."),
    ("x \\boxed{\\frac{1}{2}} y", "x \\boxed{\\frac{3}{2}} y"),
    ("pick \\boxed{B}", "pick \\boxed{C}"),
    ("work\n#### 42", "work\n#### 43"),
    ("no answer here", None),
])
def test_perturb_final_answer(completion, expected):
    assert perturb_final_answer(completion) == expected


def test_groups_by_prompt_or_prompt_id():
    items = rollouts()
    assert _group_by_prompt(items) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    tagged = [Item("q", "r", "c", {"prompt_id": i % 2}) for i in range(4)]
    assert _group_by_prompt(tagged) == [[0, 2], [1, 3]]


@pytest.mark.parametrize("source", ["perturb", "group"])
def test_pairs_are_rule_correct_positives_and_rule_incorrect_negatives(base, source):
    reward = CooperReward(str(base), negatives=source)
    try:
        items = rollouts()
        verdicts = [s.verdict for s in reward.rule.score(items)]
        assert verdicts == [True, False, True, False, True, False, True, False]
        pairs = reward.make_pairs(items, _group_by_prompt(items), verdicts)
        assert [p.positive for p in pairs] == [items[0], items[4]]  # the first correct rollout of each group
        checks = reward.rule.score([p.negative for p in pairs])
        assert all(c.verdict is False for c in checks)
        if source == "group":
            assert [p.negative.completion for p in pairs] == [items[1].completion, items[5].completion]
    finally:
        reward.close()


@pytest.mark.parametrize("source", ["perturb", "group"])
def test_a_random_positive_is_a_rule_verified_rollout_of_its_group(base, source):
    """``positive=random`` draws among the rollouts the rule verifies (0 and 2 of the first group, 4 and 6 of the
    second), never a wrong one, and not always the first."""
    items = rollouts()
    groups = _group_by_prompt(items)
    verdicts = [True, False, True, False, True, False, True, False]
    drawn: set[int] = set()
    for seed in range(12):
        reward = CooperReward(str(base), negatives=source, positive="random", seed=seed)
        try:
            for pair in reward.make_pairs(items, groups, verdicts):
                index = next(i for i, it in enumerate(items) if it is pair.positive)
                assert verdicts[index], f"seed {seed}: the positive {pair.positive.completion!r} is wrong"
                drawn.add(index)
        finally:
            reward.close()
    assert drawn == {0, 2, 4, 6}


def test_groups_without_a_correct_rollout_are_masked(base):
    reward = CooperReward(str(base), negatives="perturb")
    try:
        wrong_only = [Item("q", "5", "\\boxed{6}"), Item("q", "5", "\\boxed{4}")]
        assert reward.learn(wrong_only, reward.score(wrong_only)) == {
            "groups": 1.0, "valid_pairs": 0.0, "groups_without_positive": 1.0, "groups_without_negative": 0.0,
            "negatives_asked": 0.0, "negatives_wrong": 0.0, "negatives_wrong_boxed": 0.0}
        # a right rollout whose answer cannot be perturbed (no final answer to change): a group without a negative
        unmarked = [Item("q", "5", "\\boxed{6}"), Item("q", "5", "2 + 3 = 5"), Item("r", "2", "\\boxed{2}")]
        assert [s.verdict for s in reward.rule.score(unmarked)] == [False, True, True]
        metrics = reward.learn(unmarked, reward.score(unmarked))
        assert {k: metrics[k] for k in ("groups", "valid_pairs", "groups_without_positive", "groups_without_negative")} \
            == {"groups": 2.0, "valid_pairs": 1.0, "groups_without_positive": 0.0, "groups_without_negative": 1.0}
    finally:
        reward.close()


def test_updates_widen_the_margin_and_resume_from_checkpoint(base, tmp_path):
    ckpt = tmp_path / "cooper-ckpt"
    reward = build_reward(f"cooper:model={base},negatives=perturb,learning_rate=1e-2,checkpoint_dir={ckpt},checkpoint_every=1,"
                          "dtype=float32")  # bfloat16 rounding is larger than the margins of a tiny model
    try:
        items = rollouts()
        pairs = reward.make_pairs(items, _group_by_prompt(items), [s.verdict for s in reward.rule.score(items)])

        def margin() -> float:  # positive minus negative logit, in eval mode: no dropout noise, whatever ran before
            pos = reward.classifier.logits(reward.format.render_items([p.positive for p in pairs]))
            neg = reward.classifier.logits(reward.format.render_items([p.negative for p in pairs]))
            return sum(a - b for a, b in zip(pos, neg)) / len(pairs)

        untrained = margin()
        first = reward.learn(items, reward.score(items))
        for _ in range(5):
            reward.learn(items, reward.score(items))
        assert first["valid_pairs"] == 2.0 and margin() > untrained + 1e-4  # a tiny model: small, but no longer zero
        assert reward.step == 6 and (ckpt / "state.json").is_file()
        before = [s.value for s in reward.score(items)]
    finally:
        reward.close()
    resumed = CooperReward(str(base), negatives="perturb", checkpoint_dir=str(ckpt), dtype="float32")
    try:
        assert [s.value for s in resumed.score(items)] == pytest.approx(before, abs=1e-5)
        resumed.learn(items, resumed.score(items))
        assert resumed.step == 7  # counted on from the checkpoint, optimizer state restored
    finally:
        resumed.close()


def test_state_saved_beside_a_policy_checkpoint_restores_weights_count_and_sampler(base, tmp_path):
    """What a trainer resumes from: ``load_state(folder)`` gives back the weights, the update count and the
    sampler's position; ``load_state(None)`` (a policy back at step 0) gives back the configured model even when
    the reward's own ``checkpoint_dir`` holds a later one."""
    own, beside = tmp_path / "own", tmp_path / "checkpoint-1" / "reward_state"
    spec = (f"cooper:model={base},negatives=perturb,positive=random,learning_rate=1e-2,checkpoint_dir={own},"
            "checkpoint_every=1,dtype=float32")
    items = rollouts()
    reward = build_reward(spec)
    try:
        untrained = [s.value for s in reward.score(items)]
        reward.learn(items, reward.score(items))
        reward.save_state(beside)
        trained = [s.value for s in reward.score(items)]
        draw = reward.rng.random()
    finally:
        reward.close()
    assert trained != untrained
    again = build_reward(spec)
    try:
        assert again.step == 1  # its own checkpoint, as when served without a trainer
        again.load_state(None)
        assert again.step == 0 and [s.value for s in again.score(items)] == pytest.approx(untrained, abs=1e-6)
        again.load_state(beside)
        assert again.step == 1 and [s.value for s in again.score(items)] == pytest.approx(trained, abs=1e-6)
        assert again.rng.random() == draw
        again.learn(items, again.score(items))
        assert again.step == 2  # optimizer state restored: the update goes on from the saved one
        with pytest.raises(FileNotFoundError, match="no cooper checkpoint"):
            again.load_state(tmp_path)
    finally:
        again.close()


def test_the_trainer_probe_is_the_rewards_accuracy_after_each_update(base, data_root):
    from trainers.grpo import RewardBridge, StepRecords
    from trainers.probe import Probe

    reward = CooperReward(str(base), negatives="group")
    records = StepRecords()
    bridge = RewardBridge(reward, records, probe=Probe.from_spec("sample", 10))
    try:
        items = rollouts()
        bridge([it.question for it in items], [it.completion for it in items], [it.reference for it in items])
        values = records.drain()
        assert 0.0 <= values["rm_probe_accuracy"] <= 1.0 and values["rm_valid_pairs"] == 2.0
    finally:
        bridge.rule.close()
        reward.close()


def test_released_options_discrete_reward_and_negative_checked_against_the_positive(base):
    reward = CooperReward(str(base), negatives="perturb", discrete=True, negative_check="positive", warmup_updates=4)
    try:
        assert {s.value for s in reward.score(rollouts())} <= {0.0, 1.0}
        # the released check: a negative is valid when it differs from the positive's answer
        positive = Item("What is 3+4?", "7", "3 + 4 = 7, so \\boxed{7}")
        assert reward._check_item(positive, "\\boxed{8}").reference == positive.completion
        metrics = reward.learn(rollouts(), reward.score(rollouts()))
        assert metrics["valid_pairs"] == 2.0 and reward.optimizer.param_groups[0]["lr"] == pytest.approx(1e-5 / 4)
    finally:
        reward.close()


def test_configuration_errors_and_single_owner(base):
    with pytest.raises(ValueError, match="assistant=MODEL"):
        CooperReward(str(base))
    reward = CooperReward(str(base), negatives="group")
    try:
        with pytest.raises(TypeError, match="owns its weights"):
            pickle.dumps(reward)
    finally:
        reward.close()


@pytest.mark.slow
@pytest.mark.training
def test_assistant_negatives_from_a_real_small_llm(base):
    require_packaged_smollm2()
    reward = CooperReward(str(base), negatives="assistant", assistant="smollm2-135m", assistant_max_tokens=64, max_tries=2)
    try:
        items = rollouts()
        verdicts = [s.verdict for s in reward.rule.score(items)]
        pairs = reward.make_pairs(items, _group_by_prompt(items), verdicts)
        assert len(pairs) <= 2
        assert all(c.verdict is False for c in reward.rule.score([p.negative for p in pairs]))
        assert all(p.negative.completion != p.positive.completion for p in pairs)
    finally:
        reward.close()


def test_update_steps_takes_that_many_optimizer_steps_per_update(base):
    reward = CooperReward(str(base), negatives="perturb", update_steps=3, learning_rate=1e-3)
    try:
        items = rollouts()
        first = reward.learn(items, reward.score(items))
        steps = {int(state["step"]) for state in reward.optimizer.state.values()}
        assert steps == {3} and reward.step == 1 and first["valid_pairs"] == 2.0
        with pytest.raises(ValueError, match="update_steps"):
            CooperReward(str(base), negatives="perturb", update_steps=0)
    finally:
        reward.close()


def test_an_update_whose_gradient_is_not_finite_changes_nothing_and_is_not_counted(base):
    reward = CooperReward(str(base), negatives="perturb", learning_rate=1e-2, dtype="float32")
    try:
        items = rollouts()
        torch = reward.classifier.torch
        weight = next(p for n, p in reward.classifier.model.named_parameters() if "classifier" in n or "score" in n)
        scores = reward.score(items)
        with torch.no_grad():  # a NaN in the head: every logit, loss and gradient of the update is NaN
            saved = weight.detach().clone()
            weight.view(-1)[0] = float("nan")
        before = {n: p.detach().clone() for n, p in reward.classifier.model.named_parameters()}
        metrics = reward.learn(items, scores)
        assert reward.step == 0 and metrics["step"] == 0.0  # no update counted
        assert metrics["valid_pairs"] == 2.0 and metrics["skipped_steps"] == 1.0
        after = dict(reward.classifier.model.named_parameters())
        assert all(torch.equal(before[n].nan_to_num(), after[n].detach().nan_to_num()) for n in before)
        with torch.no_grad():
            weight.copy_(saved)
        metrics = reward.learn(items, reward.score(items))
        assert metrics["skipped_steps"] == 0.0 and reward.step == 1
    finally:
        reward.close()


def test_weights_are_kept_every_few_updates_and_named_by_their_hash(base, tmp_path):
    from rewards.checkpoint import weights_digest

    snapshots = tmp_path / "snapshots"
    reward = CooperReward(str(base), negatives="perturb", learning_rate=1e-2, dtype="float32",
                          snapshot_dir=str(snapshots), snapshot_every=2)
    try:
        items = rollouts()
        values = []
        for _ in range(5):
            reward.learn(items, reward.score(items))
            values.append([s.value for s in reward.score(items)])
        kept = reward.artifacts()
        assert [(a.step, a.name) for a in kept] == [(2, "update-0002"), (4, "update-0004")]
        assert all(a.sha256 == weights_digest(snapshots / a.name) for a in kept)
        assert kept[0].sha256 != kept[1].sha256  # the weights moved between the two
    finally:
        reward.close()
    # a snapshot loads as a static reward model and scores as the online model did right after that update
    static = build_reward(f"verifyrm:model={snapshots / 'update-0004'},dtype=float32")
    assert [s.value for s in static.score(items)] == pytest.approx(values[3], abs=1e-5)
    assert values[3] != pytest.approx(values[4], abs=1e-7)


def test_a_group_negative_is_a_rollout_the_rule_calls_wrong_never_another_right_one(base):
    reward = CooperReward(str(base), negatives="group")
    try:
        q = "What is 6 times 7?"
        items = [Item(q, "42", "\\boxed{42}"), Item(q, "42", "6 * 7 = 42, so \\boxed{42}."),
                 Item(q, "42", "Six sevens: \\boxed{42}"), Item(q, "42", "\\boxed{36}")]
        verdicts = [s.verdict for s in reward.rule.score(items)]
        assert verdicts == [True, True, True, False]
        [pair] = reward.make_pairs(items, _group_by_prompt(items), verdicts)
        assert pair.positive == items[0] and pair.negative.completion == "\\boxed{36}"
        all_right = items[:3]
        assert reward.make_pairs(all_right, _group_by_prompt(all_right), verdicts[:3]) == []
    finally:
        reward.close()


def test_under_a_trainer_each_rollout_is_checked_once_by_the_runs_rule_reward(base):
    from rewards.rule import RuleReward
    from trainers.grpo import RewardBridge, StepRecords

    reward = CooperReward(str(base), negatives="group")
    own = reward.rule
    with RuleReward(workers=1) as rule:
        bridge = RewardBridge(reward, StepRecords(), rule=rule)
        assert reward.rule is rule and own._pool is None  # its own pool closed before it started
        items = rollouts()
        bridge([it.question for it in items], [it.completion for it in items], [it.reference for it in items])
        assert rule.decided_here + rule.sent_to_workers == len(items)  # the trainer's check and Cooper's: one
        reward.close()
        assert rule.score(items[:1])[0].verdict is True  # Cooper does not close what it was handed


def test_a_checkpoint_is_written_every_checkpoint_every_updates_and_not_between(base, tmp_path):
    import json

    ckpt = tmp_path / "cooper-ckpt"
    reward = CooperReward(str(base), negatives="perturb", learning_rate=1e-2, checkpoint_dir=str(ckpt),
                          checkpoint_every=2, dtype="float32")
    try:
        items = rollouts()
        reward.learn(items, reward.score(items))
        assert reward.step == 1 and not (ckpt / "state.json").exists()
        reward.learn(items, reward.score(items))
        assert json.loads((ckpt / "state.json").read_text())["step"] == 2
    finally:
        reward.close()


def test_closing_cooper_closes_only_the_rule_reward_it_owns(base):
    from rewards.rule import RuleReward

    class CountsCloses(RuleReward):
        closes = 0

        def close(self) -> None:
            type(self).closes += 1
            super().close()

    reward = CooperReward(str(base), negatives="group")
    own = reward.rule
    own.start()  # its own pool runs
    assert own._pool is not None
    with CountsCloses(workers=1) as handed:
        reward.use_rule(handed)
        assert own._pool is None  # its own pool is closed when it is handed the run's
        reward.close()
        assert CountsCloses.closes == 0  # the run's rule reward is the run's to close
    assert CountsCloses.closes == 1


def test_the_negative_source_is_one_of_three_named_ones(base):
    from rewards.cooper import NegativeSource

    with pytest.raises(ValueError, match="not a valid NegativeSource"):
        CooperReward(str(base), negatives="groups")
    reward = CooperReward(str(base), negatives="perturb")
    try:
        assert reward.negatives is NegativeSource.PERTURB
    finally:
        reward.close()


class Checks:
    """A rule reward with a fixed answer for every text it is asked about (``True``, ``False``, or failed), that
    keeps what it was asked: what Cooper does with a candidate negative follows from the check alone."""

    def __init__(self, verdict: bool | None):
        self.verdict, self.asked = verdict, []

    def score(self, items):
        from rewards import Score

        self.asked += list(items)
        if self.verdict is None:
            return [Score.failed("crashed", "a check that failed") for _ in items]
        return [Score.correct() if self.verdict else Score.incorrect() for _ in items]

    def close(self) -> None:
        pass


def test_a_made_negative_is_kept_only_when_the_rule_calls_it_wrong_and_each_is_counted(base):
    """Perturbed negatives of the two positives (one ends in ``#### 7``, one in a box): a check that calls them
    wrong keeps both (one boxed), one that calls them right or fails keeps none; each is checked against the
    positive's reference (``negative_check=reference``)."""
    items = rollouts()
    groups, verdicts = _group_by_prompt(items), [True, False, True, False, True, False, True, False]
    for verdict, kept in ((False, 2), (True, 0), (None, 0)):
        reward = CooperReward(str(base), negatives="perturb")
        try:
            check = Checks(verdict)
            reward.use_rule(check)
            pairs = reward.make_pairs(items, groups, verdicts)
            assert len(pairs) == kept, verdict
            assert reward.negative_yield == {"negatives_asked": 2.0, "negatives_wrong": float(kept),
                                             "negatives_wrong_boxed": float(kept // 2)}
            assert [(it.reference, it.completion) for it in check.asked] == \
                [("7", "3 + 4 = 7 apples.\n#### 8"), ("42", "6 * 7 = 42, so the answer is \\boxed{43}.")]
        finally:
            reward.close()


class Assistant:
    """A stand-in assistant LLM with the generator's contract: it answers each call from a script (one list of
    texts per call; ``None`` for no output at all) and keeps the sampling parameters it was given."""

    def __init__(self, script):
        self.script, self.params = list(script), []

    def generate(self, prompts, params):
        from types import SimpleNamespace

        self.params.append(params)
        texts = self.script.pop(0)
        assert len(texts) == len(prompts)
        return [[] if text is None else [SimpleNamespace(text=text)] for text in texts]

    def close(self) -> None:
        pass


def test_assistant_negatives_are_asked_again_when_blank_or_missing_with_the_released_budget(base):
    """Two positives of 4 and 20 words: the first call asks for both with max(4, 20) + 500 = 520 tokens and gets a
    blank answer for one and a wrong answer for the other; the second asks for the first alone with 4 + 500
    tokens, under a cap of 510, and gets no output at all; the third gets a wrong answer. A blank or missing
    output is never a negative."""
    q1, q2 = "What is 3 + 4?", "What is 6 times 7?"
    items = [Item(q1, "7", "so it is \\boxed{7}"), Item(q1, "7", "\\boxed{9}"),
             Item(q2, "42", " ".join(["six", "sevens"] * 9) + " make \\boxed{42}"), Item(q2, "42", "\\boxed{41}")]
    assert [len(it.completion.split()) for it in items[::2]] == [4, 20]
    reward = CooperReward(str(base), negatives="assistant", assistant="stand-in", assistant_max_tokens=510,
                          max_tries=3)
    try:
        reward._assistant = Assistant([["   ", "the answer is \\boxed{40}"], [None], ["the answer is 8"]])
        pairs = reward.make_pairs(items, _group_by_prompt(items), [True, False, True, False])
        assert [params.max_tokens for params in reward._assistant.params] == [510, 504, 504]
        assert {p.positive.question: p.negative.completion for p in pairs} == {
            q2: "the answer is \\boxed{40}", q1: "the answer is 8"}
        assert reward.negative_yield == {"negatives_asked": 4.0, "negatives_wrong": 2.0, "negatives_wrong_boxed": 1.0}
    finally:
        reward.close()


def test_preflight_asks_the_assistant_only_when_negatives_come_from_it(base):
    class Lacking(Assistant):
        def preflight(self):
            return ["the assistant's model is not here"]

    for source, problems in (("assistant", ["the assistant's model is not here"]), ("perturb", []), ("group", [])):
        reward = CooperReward(str(base), negatives=source, assistant="stand-in")
        try:
            reward._assistant = Lacking([])
            assert reward.preflight() == problems, source
        finally:
            reward.close()
    perturbing = CooperReward(str(base), negatives="perturb")
    try:  # no assistant is built to be asked
        assert perturbing.preflight() == [] and perturbing._assistant is None
    finally:
        perturbing.close()


def test_an_update_reports_the_loss_and_margin_of_its_pairs_before_it(base):
    """The first step's loss is the mean of -log sigmoid(positive - negative) over the pairs and its margin the
    mean of positive - negative, both as the model scored them before the step (dropout off, float32)."""
    import math

    reward = CooperReward(str(base), negatives="perturb", dtype="float32")
    try:
        items = rollouts()
        pairs = reward.make_pairs(items, _group_by_prompt(items), [s.verdict for s in reward.rule.score(items)])
        reward.classifier.load()
        torch, model = reward.classifier.torch, reward.classifier.model
        with torch.no_grad():  # the untrained head's margins are about 1e-6: made a thousand times wider
            next(p for n, p in model.named_parameters() if n.startswith("classifier.weight")).mul_(1000)
        for module in model.modules():  # the step runs in train mode: no dropout noise in it
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
        pos = reward.classifier.logits(reward.format.render_items([p.positive for p in pairs]))
        neg = reward.classifier.logits(reward.format.render_items([p.negative for p in pairs]))
        diffs = [a - b for a, b in zip(pos, neg)]
        assert len(diffs) == 2 and min(abs(d) for d in diffs) > 1e-3, diffs
        metrics = reward.update(pairs)
        assert metrics["margin"] == pytest.approx(sum(diffs) / 2, rel=1e-4)
        assert metrics["loss"] == pytest.approx(sum(math.log1p(math.exp(-d)) for d in diffs) / 2, rel=1e-4)
    finally:
        reward.close()


def test_a_rollout_the_rule_could_not_check_is_neither_a_positive_nor_a_negative(base):
    """A timed-out check is no verdict: in a group of a right rollout, one whose check timed out and a wrong one,
    the negative is the wrong one; in a group whose only other rollout timed out there is no pair."""
    from rewards import Score

    q, r = "What is 6 times 7?", "42"
    verdicts = {"\\boxed{42}": Score.correct(), "\\boxed{36}": Score.failed("timeout", "over 10 s"),
                "\\boxed{41}": Score.incorrect(), "so \\boxed{42}": Score.correct()}

    class Decides(Checks):
        def score(self, items):
            return [verdicts[it.completion] for it in items]

    reward = CooperReward(str(base), negatives="group", dtype="float32")
    try:
        reward.use_rule(Decides(None))
        items = [Item(q, r, "\\boxed{42}"), Item(q, r, "\\boxed{36}"), Item(q, r, "\\boxed{41}")]
        metrics = reward.learn(items, reward.score(items))
        assert metrics["valid_pairs"] == 1.0
        [pair] = reward.make_pairs(items, _group_by_prompt(items), [True, None, False])
        assert pair.negative.completion == "\\boxed{41}"
        timed_out = [Item(q, r, "so \\boxed{42}"), Item(q, r, "\\boxed{36}")]
        metrics = reward.learn(timed_out, reward.score(timed_out))
        assert (metrics["valid_pairs"], metrics["groups_without_negative"]) == (0.0, 1.0)
    finally:
        reward.close()
