"""Generation backends against real models: SmolLM2-135M through transformers, and the OpenAI-compatible
client against a real llama.cpp server on loopback (opt-in: ``tox -e llm-server``)."""

import os
import socket
import subprocess
import sys
import time

import pytest

from harness.core.generation import GENERATORS, SamplingParams, build_generator
from harness.core.optional import MissingDependencyError
from harness.core.serving import free_port

from ..models import require_packaged_smollm2

CHAT = [{"role": "user", "content": "What is 2+2? Reply with just the number."}]


def test_registry_lists_backends_without_importing_them():
    assert {"transformers", "openai", "vllm"} <= set(GENERATORS.names())
    assert "vllm" not in sys.modules


def test_sampling_params_validation():
    with pytest.raises(ValueError):
        SamplingParams(n=0)
    with pytest.raises(ValueError):
        SamplingParams(top_p=0)


def test_openai_backend_needs_a_server(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="base_url"):
        build_generator("openai")


def test_vllm_backend_says_how_to_install():
    generator = build_generator("vllm:model=some/model")
    with pytest.raises(MissingDependencyError, match=r"rl-reward-harness\[vllm\]"):
        generator.generate(["hi"], SamplingParams())


@pytest.fixture(scope="module")
def smollm():
    require_packaged_smollm2()
    return build_generator("transformers:model=smollm2-135m")


def test_transformers_chat_and_text_prompts(smollm):
    out = smollm.generate([CHAT, "The capital of France is"], SamplingParams(max_tokens=8, top_logprobs=3))
    assert len(out) == 2 and all(len(c) == 1 for c in out)
    chat, text = out[0][0], out[1][0]
    assert "4" in chat.text
    assert "Paris" in text.text
    assert len(text.top_logprobs) == len(text.tokens) > 0 and len(text.top_logprobs[0]) == 3
    assert "".join(text.tokens).strip().startswith(text.text.strip()[:5])


def test_transformers_sampling_n_stop_and_seed(smollm):
    params = SamplingParams(n=3, temperature=1.0, max_tokens=12, stop=("\n",), seed=7)
    first = smollm.generate(["Once upon a time"], params)[0]
    assert len(first) == 3 and all("\n" not in c.text for c in first)
    again = smollm.generate(["Once upon a time"], params)[0]
    assert [c.text for c in again] == [c.text for c in first]


@pytest.fixture(scope="module")
def llama_server():
    if not os.environ.get("HARNESS_TEST_LLM_SERVER"):
        pytest.skip("starts a llama.cpp server; run with tox -e llm-server")
    gguf_path = require_packaged_smollm2()
    python = os.environ.get("HARNESS_TEST_LLM_SERVER_PYTHON", sys.executable)  # an env holding llama-cpp-python
    port = free_port()
    proc = subprocess.Popen(
        [python, "-m", "llama_cpp.server", "--model", gguf_path, "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "2048", "--model_alias", "smollm2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail("the llama.cpp server exited at start")
            time.sleep(0.5)
    yield f"http://127.0.0.1:{port}/v1"
    proc.terminate()
    proc.wait(timeout=30)


def test_openai_backend_against_a_real_server(llama_server):
    generator = build_generator(f"openai:base_url={llama_server},max_concurrency=2")
    out = generator.generate([CHAT, "The capital of France is"], SamplingParams(max_tokens=8, top_logprobs=2))
    assert generator.model == "smollm2"
    assert "4" in out[0][0].text and "Paris" in out[1][0].text
    assert out[0][0].tokens and out[0][0].top_logprobs


def test_judge_over_the_openai_backend(llama_server):
    from rewards import Item, build_reward

    reward = build_reward(f"judge:backend=openai,model=smollm2,base_url={llama_server},max_tokens=48")
    scores = reward.score([Item("What is 2+3?", "5", "The answer is 5.")])
    assert scores[0].reason in ("judge", "unparsed")


def test_an_option_the_backend_does_not_take_is_an_error_not_dropped():
    from harness.core.generation import generator_from_options
    from harness.core.spec import SpecError

    with pytest.raises(SpecError, match="'transformers' generation backend takes no base_url"):
        generator_from_options("transformers", model="m", base_url="http://127.0.0.1:1/v1")
    built = generator_from_options("transformers", {"batch_size": 3, "max_concurrency": 9}, model="m", base_url="")
    assert built.batch_size == 3  # a hint it takes; the other hint and the empty option are left out
