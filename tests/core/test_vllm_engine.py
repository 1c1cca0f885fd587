"""How every holder of an offline vLLM engine sizes and stops it (:mod:`harness.core.generation.vllm_engine`),
checked without vLLM: the options each reward's spec gives the engine, and that closing the reward stops an engine
it started. ``tox -e vllm`` runs the same code on vLLM's CPU build and checks that no engine process and no shared
memory are left after each test."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from harness.core.generation.vllm_engine import engine_options, stop_engine
from rewards import build_reward

GIB = 2 ** 30


def test_the_kv_cache_is_sized_in_bytes_only_when_asked():
    assert engine_options(0.15, 0, 0, "float32") == {"gpu_memory_utilization": 0.15, "dtype": "float32"}
    assert engine_options(0.15, GIB, 4096, "auto") == {"gpu_memory_utilization": 0.15, "dtype": "auto",
                                                       "kv_cache_memory_bytes": GIB, "max_model_len": 4096}
    with pytest.raises(ValueError, match="kv_cache_memory_bytes must be 0"):
        engine_options(0.15, -1, 0, "auto")


# each reward that can hold an offline vLLM engine, and where it keeps the engine's holder
SPECS = {
    "judge": lambda r: r.generator,
    "compassverifier": lambda r: r.generator,
    "xverify": lambda r: r.generator,
    "general-verifier": lambda r: r.generator,
    "tinyv": lambda r: r.generator,
    "verifyrm": lambda r: r.classifier,
}


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_each_vllm_reward_takes_its_kv_cache_in_bytes_from_its_spec(kind):
    context = "max_length" if kind == "verifyrm" else "max_model_len"  # VerifyRM's name: it cuts inputs there too
    reward = build_reward(f"{kind}:model=some/model,backend=vllm,kv_cache_memory_bytes={GIB // 2},{context}=2048")
    options = SPECS[kind](reward).options
    assert options["kv_cache_memory_bytes"] == GIB // 2 and options["max_model_len"] == 2048
    plain = SPECS[kind](build_reward(f"{kind}:model=some/model,backend=vllm")).options
    assert "kv_cache_memory_bytes" not in plain  # vLLM's own sizing, from the share


class _Engine:
    """What :func:`stop_engine` reaches of a ``vllm.LLM``: ``llm_engine.engine_core.shutdown()``."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []
        self.llm_engine = SimpleNamespace(engine_core=SimpleNamespace(shutdown=self._shutdown))

    def _shutdown(self, timeout: float | None = None) -> None:
        self.timeouts.append(timeout)

    @property
    def stopped(self) -> int:
        return len(self.timeouts)


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_closing_a_vllm_reward_stops_the_engine_it_started_once(kind):
    reward = build_reward(f"{kind}:model=some/model,backend=vllm")
    holder = SPECS[kind](reward)
    reward.close()  # no engine started: nothing to stop, no vLLM needed
    engine = holder._llm = _Engine()
    reward.close()
    reward.close()
    assert engine.stopped == 1 and holder._llm is None
    # vLLM's default of 5 s kills an engine core that is still stopping its workers, leaving its shared memory
    assert engine.timeouts[0] is not None and engine.timeouts[0] >= 60


def test_stopping_no_engine_is_nothing():
    stop_engine(None)


def test_closing_cooper_stops_its_assistants_engine(tmp_path):
    """Cooper's assistant LLM (its negatives) on the vllm backend holds an engine as a judge does."""
    from ..models import tiny_classifier

    reward = build_reward(f"cooper:model={tiny_classifier(tmp_path)},negatives=assistant,assistant=some/model,"
                          "assistant_backend=vllm")
    assistant = reward.assistant
    engine = assistant._llm = _Engine()
    reward.close()
    assert engine.stopped == 1 and assistant._llm is None
