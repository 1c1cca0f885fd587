"""One offline vLLM engine: how it is started (its memory options) and how it is stopped, for every part of the
harness that holds one (generation for judges, verifier protocols and policies; VerifyRM's pooling runner).

Memory. ``gpu_memory_utilization`` is a share: of a GPU's memory, and on vLLM's CPU build of the machine's memory,
where the KV cache is what is left of that share once the engine process has loaded (its resident size, which
varies by run). On a 23 GiB machine with a share of 0.15 a judge that needs 0.18 GiB of KV cache for its 4k
context started when run alone and refused to start after other tests (0.15 GiB left for the cache).
``kv_cache_memory_bytes`` sizes the KV cache in bytes instead (vLLM's own option, on both builds): the same cache
whatever else the machine holds.

Stopping. ``vllm.LLM`` has no ``close``; its engine core runs in a child process, which talks to workers of its
own through shared-memory queues, and all of it lasts until the garbage collector reaches the engine, which may be
never in a long process (a test session, a server that swaps rewards). :func:`stop_engine` shuts the engine core
down at once and gives it the time it needs to end its workers and unlink its shared memory.
"""

from __future__ import annotations

from typing import Any

from harness.core.optional import require


def engine_options(gpu_memory_utilization: float, kv_cache_memory_bytes: int, max_model_len: int,
                   dtype: str) -> dict[str, Any]:
    """``vllm.LLM``'s memory and precision options; 0 leaves vLLM's own sizing (the KV cache from the share, the
    model's own context length)."""
    if kv_cache_memory_bytes < 0:
        raise ValueError(f"kv_cache_memory_bytes must be 0 (size it from gpu_memory_utilization) or a number of "
                         f"bytes, got {kv_cache_memory_bytes}")
    options: dict[str, Any] = {"gpu_memory_utilization": gpu_memory_utilization, "dtype": dtype}
    if kv_cache_memory_bytes:
        options["kv_cache_memory_bytes"] = kv_cache_memory_bytes
    if max_model_len:
        options["max_model_len"] = max_model_len
    return options


def start_engine(model: str, purpose: str, **options: Any) -> Any:
    """A ``vllm.LLM`` of ``model``; ``purpose`` names what needs vLLM when it is missing."""
    vllm = require("vllm", purpose)
    return vllm.LLM(model=model, **options)


# How long the engine core may take to stop before it is killed. Its own shutdown stops its workers first (5 s for
# them to leave, then SIGTERM and 4 s more) and takes longer than vLLM's default of 5 s on a loaded CPU; a process
# killed part-way leaves its shared memory until the Python process that started it ends.
STOP_TIMEOUT_S = 120.0


def stop_engine(llm: Any) -> None:
    """Shut ``llm``'s engine core down now (its process and its shared memory); nothing when it is None."""
    if llm is not None:
        llm.llm_engine.engine_core.shutdown(timeout=STOP_TIMEOUT_S)
