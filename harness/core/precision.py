"""Which floating-point type model work runs in: the one this machine runs fast, measured, not assumed.

``dtype=auto`` (the default of ``verifyrm``, ``cooper``, ``judge``, ``train-rm``, ``sft``, ``train`` and the
generation backends) means: on a GPU, bfloat16 where the GPU supports it, else float32; on a CPU, bfloat16 only
when a short matmul probe shows it faster than float32. CPUs differ by an order of magnitude here: with AMX or
AVX-512 BF16 instructions bfloat16 matmuls run at several times the float32 rate, and without them they fall back
to scalar code and run a hundred times slower (a 1024x1024 bfloat16 matmul at 0.9 GFLOP/s against 156 GFLOP/s
in float32 on an AMD EPYC without them). The probe runs once per process (about a third of a second) and the
choice is logged with the rates it was made on. An explicit ``bfloat16`` on a CPU that runs it slowly still
runs, with a warning giving both rates.

On a CPU, bfloat16 means float32 weights with the matmuls under ``torch.autocast`` (what training needs: the
optimizer keeps float32 master weights); inference-only paths may load bfloat16 weights directly.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("harness")

DTYPES = ("auto", "float32", "bfloat16", "float16")
# bfloat16 must beat float32 by this factor to be chosen: a tie is not worth the reduced precision
MARGIN = 1.2


@dataclass(frozen=True)
class Precision:
    """The chosen type for a device, why, and the rates (GFLOP/s by type) it was chosen on, when measured."""

    dtype: str
    device: str
    reason: str
    rates: Mapping[str, float] = field(default_factory=dict)

    @property
    def bf16(self) -> bool:
        return self.dtype == "bfloat16"

    def torch_dtype(self, torch: Any) -> Any:
        return getattr(torch, self.dtype)


def matmul_rates(torch: Any, size: int = 512, seconds: float = 0.1, rounds: int = 3) -> dict[str, float]:
    """GFLOP/s of square ``size`` matmuls in float32 and bfloat16 on this process's CPU threads: the best of
    ``rounds`` interleaved timings per type, so that load from other processes (which only ever slows a timing
    down) lands on both types alike and does not flip the choice."""
    pairs = {name: (torch.randn(size, size, dtype=getattr(torch, name)),) * 2 for name in ("float32", "bfloat16")}
    for a, b in pairs.values():
        a @ b  # warm-up: the first call selects the kernel
    rates = dict.fromkeys(pairs, 0.0)
    for _ in range(rounds):
        for name, (a, b) in pairs.items():
            n, began = 0, time.perf_counter()
            while True:
                a @ b
                n += 1
                elapsed = time.perf_counter() - began
                if elapsed >= seconds / rounds and n >= 2:
                    break
            rates[name] = max(rates[name], 2 * size**3 * n / elapsed / 1e9)
    return rates


def cpu_description() -> str:
    """This machine's CPU model and its bfloat16 instructions, e.g. ``AMD EPYC (avx512_bf16)``: the machine a
    figure was measured on."""
    import platform

    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    model = value.strip()
                elif key.strip() in ("flags", "Features"):
                    flags = set(value.split())
                    break
    except OSError:
        pass
    bf16 = sorted(flags & {"avx512_bf16", "amx_bf16", "amx_tile", "bf16", "sve_bf16"})
    return f"{model} ({', '.join(bf16) if bf16 else 'no bfloat16 instructions'})"


class PrecisionChooser:
    """Chooses a :class:`Precision`; measures the CPU once and remembers it (``reset()`` forgets, for tests)."""

    def __init__(self, probe: Callable[[Any], dict[str, float]] = matmul_rates) -> None:
        self._probe = probe
        self._cpu_rates: dict[str, float] | None = None

    def reset(self) -> None:
        self._cpu_rates = None

    def cpu_rates(self, torch: Any) -> dict[str, float]:
        if self._cpu_rates is None:
            self._cpu_rates = self._probe(torch)
            r = self._cpu_rates
            log.info("CPU matmul probe on %s: float32 %.0f GFLOP/s, bfloat16 %.0f GFLOP/s", cpu_description(),
                     r["float32"], r["bfloat16"])
        return self._cpu_rates

    def choose(self, requested: str, device: str, torch: Any) -> Precision:
        if requested not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, not {requested!r}")
        if device.startswith("cuda"):
            if requested != "auto":
                return Precision(requested, device, "requested")
            supported = bool(torch.cuda.is_bf16_supported())
            return Precision("bfloat16" if supported else "float32", device,
                             "GPU with bfloat16 support" if supported else "GPU without bfloat16 support")
        if requested in ("float32", "float16"):
            return Precision("float32" if requested == "float16" else requested, device,
                             "requested" if requested == "float32" else "float16 is not used on a CPU: float32")
        rates = self.cpu_rates(torch)
        measured = f"bfloat16 {rates['bfloat16']:.0f} GFLOP/s, float32 {rates['float32']:.0f} GFLOP/s on this CPU"
        fast = rates["bfloat16"] > MARGIN * rates["float32"]
        if requested == "bfloat16":
            if not fast:
                warnings.warn(f"dtype=bfloat16 was asked for, but this CPU runs it slowly ({measured}); "
                              "dtype=auto would choose float32", stacklevel=3)
            return Precision("bfloat16", device, f"requested ({measured})", rates)
        choice = "bfloat16" if fast else "float32"
        log.info("dtype=auto on the CPU: %s (%s)", choice, measured)
        return Precision(choice, device, f"measured: {measured}", rates)


CHOOSER = PrecisionChooser()


def choose_precision(requested: str, device: str, torch: Any | None = None) -> Precision:
    """The type to run in for ``requested`` (``auto``, ``float32``, ``bfloat16``, ``float16``) on ``device``."""
    if torch is None:
        import torch
    return CHOOSER.choose(requested, device, torch)
