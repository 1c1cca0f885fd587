"""GRPO through TRL on the CPU with a tiny real policy (SmolLM2-135M) and each kind of reward; the hacking
alarm; configuration precedence."""

import pytest

from harness.core.store import RunStore
from rewards.inputs import completion_text
from trainers.grpo import GRPORunConfig, RewardBridge, StepRecords
from trainers.hacking import HackingAlarm, slope
from trainers.trl_backend import TRLRunConfig

from ..models import require_packaged_smollm2, tiny_classifier


def test_config_precedence_and_unknown_keys():
    merged = GRPORunConfig.merged({"reward": "rule", "max_steps": 5, "beta": 0.01}, {"max_steps": 7, "beta": None})
    assert (merged.reward, merged.max_steps, merged.beta, merged.num_generations) == ("rule", 7, 0.01, 16)
    with pytest.raises(ValueError, match="trainer 'trl' does not take max_stpes"):
        GRPORunConfig.merged({"reward": "rule", "max_stpes": 3}, {})
    with pytest.raises(ValueError, match="needs a reward"):
        GRPORunConfig.merged({}, {})


def test_alarm_fires_when_reward_rises_and_accuracy_falls():
    assert slope([0, 1, 2, 3]) == pytest.approx(1.0) and slope([5]) == 0.0
    alarm = HackingAlarm(window=5)
    fired = [alarm.observe(s, 0.5 + 0.05 * s, 0.6 - 0.04 * s) for s in range(8)]
    assert fired.index(True) == 4 and fired.count(True) == 1 and alarm.fired_at == 4
    honest = HackingAlarm(window=5)
    assert not any(honest.observe(s, 0.5 + 0.05 * s, 0.3 + 0.04 * s) for s in range(10))


def test_reward_bridge_scores_measures_rule_accuracy_and_lets_cooper_learn(rule_reward):
    class Learning:
        learned = 0

        def score(self, items):
            from rewards import Score
            return [Score(0.9, True, "always") for _ in items]

        def learn(self, items, scores):
            Learning.learned += len(items)
            return {"loss": 0.5}

    records = StepRecords()
    bridge = RewardBridge(Learning(), records, rule=rule_reward)
    prompts = [[{"role": "user", "content": "What is 2+2?"}]] * 2
    completions = [[{"role": "assistant", "content": "\\boxed{4}"}], [{"role": "assistant", "content": "\\boxed{5}"}]]
    assert bridge(prompts, completions, reference=["4", "4"]) == [0.9, 0.9]
    values = records.drain()
    assert values["rule_accuracy"] == 0.5 and values["agreement"] == 0.5 and values["rm_loss"] == 0.5
    assert Learning.learned == 2 and completion_text(completions[0]) == "\\boxed{4}"
    assert records.drain() == {}


@pytest.fixture(scope="module")
def policy():
    require_packaged_smollm2()
    return "smollm2-135m"


def _train(tmp_path, reward, policy, steps=2, **options):
    from trainers.trl_backend import TRLTrainer

    store = RunStore(tmp_path / "runs.sqlite")
    config = TRLRunConfig(reward=reward, policy=policy, max_steps=steps, num_generations=4, max_completion_length=16,
                           limit=8, output=str(tmp_path / "out"), save_steps=1, warmup_steps=0, **options)
    run = TRLTrainer(config, warn=lambda m: None).run(store)
    return store, run


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["rule", pytest.param("cascade", marks=pytest.mark.training),
                                  pytest.param("cooper", marks=pytest.mark.training)])
def test_grpo_runs_with_every_reward_kind(tmp_path, policy, kind, data_root):
    """rule; a composite (a cascade whose second stage is a VerifyRM: the verifyrm kind runs inside it); cooper."""
    spec = {"rule": "rule:workers=1"}.get(kind)
    if spec is None:
        model = tiny_classifier(tmp_path / "rm")
        spec = (f"cascade:first=[rule:workers=1],then=[verifyrm:model={model}]" if kind == "cascade"
                else f"cooper:model={model},negatives=perturb")
    tracked = {"report_to": "tensorboard"} if kind == "rule" else {}
    store, run = _train(tmp_path, spec, policy, **tracked)
    assert run.status == "complete" and run.kind == "train" and run.metric("steps") == 2.0
    if tracked:  # the tracker holds the store's numbers, read back with TensorBoard's own reader
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        events = EventAccumulator(str(tmp_path / "out" / "tensorboard"))
        events.Reload()
        written = {tag[len("harness/"):]: {e.step: e.value for e in events.Scalars(tag)}
                   for tag in events.Tags()["scalars"] if tag.startswith("harness/")}
        stored = {(name, step): value for step, values in store.steps(run.id).items() for name, value in values.items()}
        assert {(name, step): pytest.approx(value, rel=1e-6) for name, by_step in written.items()
                for step, value in by_step.items()} == stored
        assert any(not tag.startswith("harness/") for tag in events.Tags()["scalars"])  # TRL's own numbers too
    steps = store.steps(run.id)
    assert sorted(steps) == [1, 2]
    for values in steps.values():
        assert {"train_reward", "rule_accuracy", "agreement", "kl", "response_chars"} <= set(values)
        assert 0.0 <= values["rule_accuracy"] <= 1.0
        if kind == "cooper":
            assert "rm_valid_pairs" in values and "rm_groups" in values
    assert (tmp_path / "out" / "final" / "config.json").is_file()
    # one checkpoint kept by default (saved every step here): 1.6 GB each for this policy
    assert [p.name for p in (tmp_path / "out").glob("checkpoint-*")] == ["checkpoint-2"]


class AntiAnswer:
    """A deliberately exploitable reward: it pays for *not* stating the reference answer."""

    def score(self, items):
        from rewards import Score

        return [Score.correct() if it.reference not in it.completion else Score.incorrect() for it in items]


@pytest.mark.slow
@pytest.mark.training
def test_hacking_alarm_fires_and_stops_a_run_built_to_be_hacked(tmp_path, policy):
    from rewards import REWARDS
    from trainers.trl_backend import TRLTrainer

    data = tmp_path / "easy.jsonl"
    data.write_text("\n".join(
        '{"question": "What is %d + %d?", "answer": "%d"}' % (a, a, 2 * a) for a in (2, 3, 5, 1)
    ))
    REWARDS.register("anti-answer-for-test", AntiAnswer)
    warnings = []
    try:
        store = RunStore(tmp_path / "runs.sqlite")
        config = TRLRunConfig(reward="anti-answer-for-test", policy=policy, dataset=str(data), max_steps=8,
                               num_generations=4, max_completion_length=24, learning_rate=1e-4, warmup_steps=0,
                               beta=0.0, alarm_window=4, stop_on_hack=True, save_steps=100,
                               output=str(tmp_path / "out"))
        run = TRLTrainer(config, warn=warnings.append).run(store)
    finally:
        REWARDS.unregister("anti-answer-for-test")
    steps = store.steps(run.id)
    alarm_step = run.metric("hacking_alarm_step")
    assert alarm_step is not None and steps[int(alarm_step)]["hacking_alarm"] == 1.0
    assert max(steps) == int(alarm_step) < 8  # stopped at the alarm
    window = [steps[s] for s in range(int(alarm_step) - 3, int(alarm_step) + 1)]
    assert window[-1]["train_reward"] > window[0]["train_reward"] or window[-1]["rule_accuracy"] < window[0]["rule_accuracy"]
    assert warnings and "reward-hacking alarm" in warnings[0]


@pytest.mark.slow
@pytest.mark.training
def test_resume_with_the_learning_rewards_state_and_heldout_accuracy(tmp_path, policy, data_root):
    """A rerun resumes the policy and a learning reward (Cooper) from the same checkpoint: a reward checkpoint
    of its own, saved ahead of a policy that has none (a run stopped between the two saves), does not leak into a
    run that starts over; a resumed run takes the reward's state saved in the policy's checkpoint."""
    import json

    from rewards.checkpoint import read_state
    from rewards.cooper import CooperReward
    from trainers.trl_backend import TRLTrainer

    store = RunStore(tmp_path / "runs.sqlite")
    model, own = tiny_classifier(tmp_path / "rm"), tmp_path / "own"
    ahead = CooperReward(str(model), negatives="perturb", checkpoint_dir=str(own))
    ahead.step = 40
    ahead.save_checkpoint()
    ahead.close()
    base = dict(reward=f"cooper:model={model},negatives=perturb,checkpoint_dir={own},checkpoint_every=1",
                policy=policy, num_generations=4, max_completion_length=16, limit=8, output=str(tmp_path / "out"),
                save_steps=1, warmup_steps=0, eval_every=1, eval_limit=2, eval_max_tokens=16)
    first = TRLTrainer(TRLRunConfig(max_steps=1, **base), warn=lambda m: None).run(store)
    saved = tmp_path / "out" / "checkpoint-1" / "reward_state"
    assert read_state(saved)["step"] <= 1  # started from the configured model, not from update 40
    steps = store.steps(first.id)
    assert 0.0 <= steps[1]["heldout_accuracy"] <= 1.0
    (saved / "state.json").write_text(json.dumps({**read_state(saved), "step": 20}))  # a mark to find again
    second = TRLTrainer(TRLRunConfig(max_steps=2, **base), warn=lambda m: None).run(store)
    assert sorted(store.steps(second.id)) == [2]  # resumed after step 1 instead of starting over
    assert read_state(tmp_path / "out" / "checkpoint-2" / "reward_state")["step"] >= 20  # and the reward with it
