"""Achieved FLOP/s of VerifyRM scoring on real token counts, against this machine's matmul FLOP/s.

Useful work is counted on each item's real (unpadded) tokens: 2 * non-embedding parameters per token plus
attention (4 * layers * hidden * tokens^2 per sequence). Three schedules score the same items with the same
model: the reward's length-bucketed batches, and naive fixed-size batches in input order padded to their
longest item. Run after installing the rm extra:

    python benchmarks/verifyrm_flops.py [--model minilm-l6] [--items 512] [--dtype auto|float32|bfloat16]

It prints the CPU model with its bfloat16 instructions and both matmul peaks, float32 and bfloat16, so that each
figure says which machine it came from.
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from harness.core.precision import cpu_description
from rewards.classifier import ClassifierConfig, SequenceClassifier, plan_batches
from rewards.verifyrm import VerifyRMFormat
from suites import build_suite


def matmul_flops(dtype: torch.dtype, n: int = 2048, repeats: int = 10) -> float:
    a, b = torch.randn(n, n, dtype=dtype), torch.randn(n, n, dtype=dtype)
    torch.matmul(a, b)
    start = time.perf_counter()
    for _ in range(repeats):
        torch.matmul(a, b)
    return 2 * n**3 * repeats / (time.perf_counter() - start)


def useful_flops(model, lengths: list[int]) -> float:
    embed = sum(p.numel() for name, p in model.named_parameters() if "embed" in name)
    params = sum(p.numel() for p in model.parameters()) - embed
    cfg = model.config
    return sum(2 * params * t + 4 * cfg.num_hidden_layers * cfg.hidden_size * t * t for t in lengths)


def real_texts(n: int) -> list[str]:
    fmt = VerifyRMFormat()
    rows = build_suite("processbench").load().rows + build_suite("verifybench-hard").load(
        "verifier/verifybench_hard_subset_longjudgebench").rows
    step = max(1, len(rows) // n)
    return [fmt.render(r.item.question, r.item.reference, r.item.completion) for r in rows[::step][:n]]


def timed(clf: SequenceClassifier, encoded: list[list[int]], plan: list[list[int]]) -> float:
    start = time.perf_counter()
    with torch.inference_mode():
        for batch in plan:
            clf.forward([encoded[i] for i in batch])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="minilm-l6")
    parser.add_argument("--items", type=int, default=512)
    parser.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16"])
    parser.add_argument("--naive-batch", type=int, default=32)
    args = parser.parse_args()
    os.environ.setdefault("HARNESS_DATA_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))

    clf = SequenceClassifier(ClassifierConfig(args.model, device="cpu", dtype=args.dtype))
    clf.load()
    encoded = clf.encode(real_texts(args.items))
    lengths = [len(e) for e in encoded]
    work = useful_flops(clf.model, lengths)
    peaks = {"float32": matmul_flops(torch.float32), "bfloat16": matmul_flops(torch.bfloat16)}
    chosen = clf.precision.dtype
    peak = peaks[chosen]
    print(f"CPU {cpu_description()}: matmul peak float32 {peaks['float32'] / 1e9:.0f} GFLOP/s, bfloat16 "
          f"{peaks['bfloat16'] / 1e9:.0f} GFLOP/s; dtype={args.dtype} runs in {chosen} ({clf.precision.reason})")
    naive = [list(range(i, min(i + args.naive_batch, len(encoded)))) for i in range(0, len(encoded), args.naive_batch)]
    schedules = {
        "length-bucketed (16k tokens/batch)": plan_batches(lengths, 16384, 64),
        "length-bucketed (8k tokens/batch)": plan_batches(lengths, 8192, 64),
        f"naive: {args.naive_batch} per batch, padded to longest": naive,
    }
    timed(clf, encoded, schedules["length-bucketed (8k tokens/batch)"][:2])  # warm up
    print(f"model {args.model} ({chosen}), {len(encoded)} real items, mean {sum(lengths) / len(lengths):.0f} "
          f"tokens (max {max(lengths)}); matmul peak {peak / 1e9:.1f} GFLOP/s; torch threads {torch.get_num_threads()}")
    print(f"{'schedule':<44}{'padded tokens':>14}{'seconds':>9}{'items/s':>9}{'GFLOP/s':>9}{'of peak':>9}")
    for name, plan in schedules.items():
        padded = sum(len(b) * max(lengths[i] for i in b) for b in plan)
        seconds = timed(clf, encoded, plan)
        achieved = work / seconds
        print(f"{name:<44}{padded:>14}{seconds:>9.2f}{len(encoded) / seconds:>9.1f}{achieved / 1e9:>9.1f}"
              f"{achieved / peak:>9.2f}")


if __name__ == "__main__":
    main()
