"""VerifyRM scoring through vLLM against transformers, on the same weights and the same real items, in one run.

The model is the CPU-sized VerifyRM shape: MiniLM-L6 (packaged, offline) with a one-logit head (drawn fresh here:
speed does not depend on what the head learned). Items: MathCheck-GSM, rendered in VerifyRM's input format. Each
engine scores the items once to warm up, then again timed; loading is reported apart. Needs vLLM (``tox -e vllm``
has its CPU build).

    python -m benchmarks.verifyrm_engines [--items 512] [--dtype float32]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time


def build_model(folder: str) -> str:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from rewards.base_models import resolve_model

    torch.manual_seed(0)
    base = resolve_model("minilm-l6")
    AutoModelForSequenceClassification.from_pretrained(base, num_labels=1).save_pretrained(folder)
    AutoTokenizer.from_pretrained(base).save_pretrained(folder)
    return folder


def timed(spec: str, items: list) -> dict:
    from rewards import build_reward
    from rewards.contract import close_reward

    began = time.perf_counter()
    reward = build_reward(spec)
    reward.logits(items[:8])  # loads the model (and starts vLLM's engine)
    loaded = time.perf_counter() - began
    reward.logits(items)  # warm
    began = time.perf_counter()
    logits = reward.logits(items)
    seconds = time.perf_counter() - began
    close_reward(reward)
    return {"load_s": loaded, "seconds": seconds, "items_per_s": len(items) / seconds, "logits": logits}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=512)
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--memory", default="0.05", help="vLLM's gpu_memory_utilization (a share of RAM on CPU)")
    args = parser.parse_args()
    os.environ.setdefault("HARNESS_DATA_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    from suites import build_suite

    items = [r.item for r in build_suite("mathcheck-gsm").load().rows[: args.items]]
    with tempfile.TemporaryDirectory() as folder:
        model = build_model(folder)
        results = {
            "transformers": timed(f"verifyrm:model={model},dtype={args.dtype}", items),
            "vllm": timed(f"verifyrm:model={model},backend=vllm,dtype={args.dtype},"
                          f"gpu_memory_utilization={args.memory}", items),
        }
    hf, vl = results["transformers"], results["vllm"]
    gap = max(abs(a - b) for a, b in zip(hf["logits"], vl["logits"]))
    print(f"VerifyRM (MiniLM-L6, one-logit head), {len(items)} MathCheck-GSM items, {args.dtype}, "
          f"{os.cpu_count()} CPU cores")
    print(f"{'engine':<14}{'load s':>8}{'items/s':>10}{'scoring s':>11}")
    for name, r in results.items():
        print(f"{name:<14}{r['load_s']:>8.1f}{r['items_per_s']:>10.1f}{r['seconds']:>11.2f}")
    print(f"vllm against transformers: {vl['items_per_s'] / hf['items_per_s']:.2f}x items/s; "
          f"largest logit difference {gap:.2e}")


if __name__ == "__main__":  # vLLM starts its engine in spawned processes, which import this module
    main()
