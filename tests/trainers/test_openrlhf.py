"""The openrlhf trainer's command line, checked against OpenRLHF 0.11's own argument definitions."""

import json
import shlex

import pytest
from click.testing import CliRunner

from harness.cli import main
from trainers.openrlhf_backend import OpenRLHFRunConfig, OpenRLHFTrainer, openrlhf_args
from trainers.openrlhf_flags import FlagError, check_command, openrlhf_source, read_flags


@pytest.fixture(scope="module")
def flags():
    try:
        source = openrlhf_source()
    except ImportError as exc:
        pytest.fail(f"{exc} (tox installs it)")
    return read_flags(source)


def test_flags_are_read_from_the_release_source(flags):
    assert "--reward.remote_url" in flags and "--rollout.n_samples_per_prompt" in flags
    assert "--actor.adam.lr" in flags and "--critic.adam.lr" in flags  # from the for-prefix loop's f-strings
    assert flags["--algo.kl.use_loss"].takes_value is False
    assert "group_norm" in flags["--algo.advantage.estimator"].choices


def test_generated_command_passes_the_check(flags, tmp_path):
    cfg = OpenRLHFRunConfig(reward="cooper:model=m", policy="Qwen/Qwen2.5-1.5B-Instruct", output=str(tmp_path))
    args = openrlhf_args(cfg, "http://127.0.0.1:8000/get_reward", tmp_path / "prompts.jsonl")
    check_command(args, flags)
    assert args[args.index("--algo.advantage.estimator") + 1] == "group_norm"
    assert args[args.index("--rollout.n_samples_per_prompt") + 1] == "16"
    tracked = openrlhf_args(OpenRLHFRunConfig(reward="rule", output=str(tmp_path), report_to="tensorboard"),
                            "http://127.0.0.1:8000/get_reward", tmp_path / "prompts.jsonl")
    check_command(tracked, flags)  # OpenRLHF's own logger flag, in the release's parser
    assert tracked[tracked.index("--logger.tensorboard_dir") + 1] == str(tmp_path / "tensorboard")
    check_command(openrlhf_args(OpenRLHFRunConfig(reward="rule", output=str(tmp_path), report_to="wandb"),
                                "http://127.0.0.1:8000/get_reward", tmp_path / "prompts.jsonl"), flags)


@pytest.mark.parametrize("bad, message", [
    (["--reward.remote_uri", "x"], "unknown flag --reward.remote_uri"),
    (["--algo.advantage.estimator", "grpo"], "not one of"),
    (["--rollout.n_samples_per_prompt"], "needs a value"),
])
def test_check_catches_mistakes(flags, bad, message):
    with pytest.raises(FlagError, match=message):
        check_command(bad, flags)


def test_dry_run_writes_prompts_with_labels(flags, tmp_path, data_root, capsys):
    out = tmp_path / "orl"
    result = CliRunner().invoke(main, ["--store", str(tmp_path / "s.sqlite"), "train", "--trainer", "openrlhf",
                                       "--reward", "rule", "--policy", "Qwen/Qwen2.5-1.5B-Instruct", "--limit", "5",
                                       "--output", str(out), "--dry-run"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "prompts.jsonl").read_text().splitlines()]
    assert len(rows) == 5 and rows[0]["label"] == "72" and rows[0]["prompt"][0]["role"] == "user"
    # a person reads it: a note, then one flag a line, which a shell still reads as the checked command
    note, *command = result.output.strip().splitlines()
    assert note.startswith("# 5 prompts written to") and all(len(line) < 120 for line in command)
    words = shlex.split(" ".join(line.rstrip("\\") for line in command))
    check_command(words[words.index("--actor.model_name_or_path"):], flags)
    assert words[words.index("--data.prompt_dataset") + 1] == str(out / "prompts.jsonl")
    assert "--reward.remote_url http://127.0.0.1:PORT/get_reward" in result.output


def test_every_trainer_honours_the_contract_and_a_broken_one_is_named(tmp_path):
    from harness.core.store import RunStore
    from trainers import TRAINERS
    from trainers.contract import DryRunnable, Trainer, train

    cfg = OpenRLHFRunConfig(reward="rule", output=str(tmp_path))
    for name in ("trl", "openrlhf"):
        assert isinstance(TRAINERS.get(name)(cfg), Trainer)
    assert isinstance(OpenRLHFTrainer(cfg), DryRunnable) and not isinstance(TRAINERS.get("trl")(cfg), DryRunnable)

    class ReturnsAProcess:  # what the openrlhf backend once did: hand back subprocess.run's result
        config_class = OpenRLHFRunConfig

        def run(self, store):
            import subprocess

            return subprocess.CompletedProcess(["x"], 0)

    with pytest.raises(TypeError, match="ReturnsAProcess.run returned CompletedProcess, not the stored run"):
        train(ReturnsAProcess(), RunStore(tmp_path / "s.sqlite"))


def test_options_are_generated_per_trainer_and_a_trainer_refuses_those_it_does_not_take(tmp_path, data_root):
    from dataclasses import fields

    from trainers.trl_backend import TRLRunConfig

    store = ["--store", str(tmp_path / "s.sqlite")]
    help_text = CliRunner().invoke(main, ["train", "--help"]).output
    for name in {f.name for f in fields(TRLRunConfig)} | {f.name for f in fields(OpenRLHFRunConfig)}:
        assert "--" + name.replace("_", "-") in help_text  # every field of every trainer's config is an option
    refused = CliRunner().invoke(main, [*store, "train", "--trainer", "openrlhf", "--reward", "rule",
                                        "--eval-every", "5", "--probe", "sample", "--dry-run"])
    assert refused.exit_code == 2 and "trainer 'openrlhf' does not take eval_every, probe" in refused.output
    config_file = tmp_path / "c.yaml"
    config_file.write_text("trainer: trl\nreward: rule\nlauncher: ray job submit\n")
    from_file = CliRunner().invoke(main, [*store, "train", "--config", str(config_file)])
    assert from_file.exit_code == 2 and "trainer 'trl' does not take launcher" in from_file.output
    gpus = CliRunner().invoke(main, [*store, "train", "--trainer", "openrlhf", "--reward", "rule", "--dataset",
                                     "gsm8k", "--limit", "2", "--output", str(tmp_path / "o"), "--gpus-per-node", "2",
                                     "--dry-run"])
    assert gpus.exit_code == 0, gpus.output
    assert "--actor.num_gpus_per_node 2" in gpus.output and "--vllm.num_engines 2" in gpus.output
