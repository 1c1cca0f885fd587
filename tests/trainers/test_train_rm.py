"""harness train-rm on real labelled data with a tiny model: split, checkpoints, resume, stored run."""

import json

from rewards import build_reward
from trainers.reward_model import RMTrainConfig, VerifyRMTrainer
from trainers.rm_data import load_training_rows, split_by_question

from ..models import tiny_classifier


def test_split_keeps_questions_apart(data_root):
    rows = load_training_rows([], ["mathcheck-gsm"])
    train, val = split_by_question(rows, 0.2, seed=0)
    assert not {r.item.question for r in train} & {r.item.question for r in val}
    assert 0.1 < len(val) / len(rows) < 0.3
    assert split_by_question(rows, 0.2, seed=0) == (train, val)
    assert split_by_question(rows, 0.2, seed=1) != (train, val)


def test_train_resume_and_score(tmp_path, store, data_root):
    base = tiny_classifier(tmp_path / "base")
    rows = load_training_rows([], ["mathcheck-gsm"], limit=60, seed=0)
    out = tmp_path / "rm"
    config = RMTrainConfig(base=str(base), output=out, epochs=1, batch_size=8, max_length=128, save_every=3,
                           report_to="tensorboard")
    run = VerifyRMTrainer(config).train(rows, store, source="mathcheck-gsm")
    assert run.kind == "rm-train" and run.status == "complete" and run.metric("accuracy") is not None
    assert (out / "checkpoint" / "state.json").is_file() and (out / "verifyrm.json").is_file()
    first = json.loads((out / "training.json").read_text())["history"]
    assert len(first) == 1

    # a second run with more epochs resumes after the first epoch instead of starting over
    resumed = VerifyRMTrainer(RMTrainConfig(**{**config.__dict__, "epochs": 2})).train(rows, store, source="x")
    history = json.loads((out / "training.json").read_text())["history"]
    assert [h["epoch"] for h in history] == [1, 2] and history[0] == first[0]
    assert resumed.id != run.id
    # --report-to: each epoch's numbers, as training.json holds them, read back with TensorBoard's reader
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(out / "tensorboard"))
    events.Reload()
    written = {(tag[len("harness/"):], e.step): e.value for tag in events.Tags()["scalars"] for e in events.Scalars(tag)}
    expected = {(k, h["epoch"]): v for h in history for k, v in h.items() if k != "epoch" and v is not None}
    assert written.keys() == expected.keys() and "train_loss" in {k for k, _ in written}
    assert all(abs(written[key] - expected[key]) <= 1e-6 * max(1.0, abs(expected[key])) for key in expected)

    reward = build_reward(f"verifyrm:model={out}")
    heldout = [json.loads(line) for line in (out / "heldout.jsonl").read_text().splitlines()]
    from rewards import Item

    scores = reward.score([Item(h["question"], h["reference"], h["completion"]) for h in heldout])
    assert len(scores) == len(heldout) and all(0 <= s.value <= 1 for s in scores)


def test_train_rm_options_are_the_config_fields_and_bad_values_are_usage_errors(tmp_path):
    from dataclasses import fields

    from click.testing import CliRunner

    from harness.cli import main
    from rewards.verifyrm import VerifyRMFormat

    help_text = CliRunner().invoke(main, ["train-rm", "--help"]).output
    names = [f.name for f in fields(RMTrainConfig) if f.name != "format"] + [f.name for f in fields(VerifyRMFormat)]
    for name in names:  # every field is an option, with its default shown once, from the dataclass
        assert "--" + name.replace("_", "-") in help_text, name
    assert "--learning-rate, --lr" in help_text and "[default: 2e-05]" in help_text
    config = RMTrainConfig.from_options({"base": "b", "output": "o", "learning_rate": 1e-4, "epochs": None,
                                         "max_chars": 900})
    assert (config.learning_rate, config.epochs, config.format.max_chars, config.format.tail_chars) == (1e-4, 3, 900, 1000)
    store = ["--store", str(tmp_path / "s.sqlite")]
    for args, message in ((["--output", "o"], "train-rm needs --base"),
                          (["--base", "b", "--output", "o", "--epochs", "0"], "epochs must be at least 1, got 0"),
                          (["--base", "b", "--output", "o", "--dtype", "float8"], "dtype must be auto")):
        result = CliRunner().invoke(main, [*store, "train-rm", "--suite", "sample", *args])
        assert result.exit_code == 2 and message in result.output, result.output


def test_the_same_seed_trains_the_same_reward_model_from_an_encoder_without_a_head(tmp_path, data_root):
    """An encoder saved without a classification head (as MiniLM ships) gets a new one when training starts: its
    weights must be drawn from the seed, or two runs of one command give two different reward models."""
    import hashlib

    import torch
    from transformers import BertModel

    base = tiny_classifier(tmp_path / "with-head")
    torch.manual_seed(1)
    BertModel.from_pretrained(base).save_pretrained(tmp_path / "encoder")  # the encoder alone, no head
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        if (base / name).exists():
            (tmp_path / "encoder" / name).write_bytes((base / name).read_bytes())
    rows = load_training_rows([], ["mathcheck-gsm"], limit=24, seed=0)
    digests = []
    for k in range(2):
        torch.manual_seed(100 + k)  # whatever the process drew before, the seed decides
        out = tmp_path / f"rm{k}"
        VerifyRMTrainer(RMTrainConfig(base=str(tmp_path / "encoder"), output=out, epochs=1, batch_size=8,
                                      max_length=64, seed=3)).train(rows)
        digests.append(hashlib.sha256((out / "model.safetensors").read_bytes()).hexdigest())
    assert digests[0] == digests[1]
