"""Fixtures of the application tests."""

from pathlib import Path

import pytest


@pytest.fixture
def in_process_reward(monkeypatch):
    """``use(spec)``: the integrations (OpenRLHF's reward_func, verl's compute_score) score in-process with a fresh
    reward of ``spec``, closed again after the test."""
    from harness.integrations import _shared

    def use(spec: str) -> None:
        _shared.LOCAL.close()
        monkeypatch.delenv("HARNESS_REWARD_URL", raising=False)
        monkeypatch.setenv("HARNESS_REWARD", spec)

    yield use
    _shared.LOCAL.close()


def numeric_mathcheck_rows(n: int) -> list:
    """The first ``n`` MathCheck-GSM items whose reference is a number, with it as a float, as datasets store it
    (``60.0``): what trainers' clients send as labels."""
    from suites import build_suite

    rows = []
    for r in build_suite("mathcheck-gsm").load().rows:
        try:
            rows.append((r.item, float(r.item.reference)))
        except ValueError:
            continue
        if len(rows) == n:
            break
    return rows


def in_process_values(rows: list) -> list:
    """What ``harness eval`` gives the same items: the rule reward's values, in-process."""
    from rewards.rule import RuleReward

    with RuleReward(workers=2) as reward:
        return [s.value for s in reward.score([item for item, _ in rows])]


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory):
    """SmolLM2-135M-Instruct's tokenizer, converted once from the packaged GGUF into a folder."""
    from transformers import AutoTokenizer

    from ..models import require_packaged_smollm2

    gguf = Path(require_packaged_smollm2())
    folder = tmp_path_factory.mktemp("smollm2-tokenizer")
    AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tokenizer(tokenizer_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tokenizer_dir)


@pytest.fixture(scope="module")
def real_rows(data_root):
    """Thirty MathCheck-GSM items with numeric references, the label a float as datasets store it."""
    return numeric_mathcheck_rows(30)


@pytest.fixture(scope="module")
def eval_scores(real_rows):
    """What ``harness eval`` gives ``real_rows``."""
    return in_process_values(real_rows)


@pytest.fixture(scope="module")
def rule_server():
    """A real ``harness serve`` of the rule reward on loopback (deadline 30 s) for a module's tests: its base URL."""
    from harness.core.serving import free_port, serving

    port = free_port()
    with serving("rule", port, ["--deadline", "30"]):
        yield f"http://127.0.0.1:{port}"
