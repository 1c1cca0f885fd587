"""Generation backends: "generate text for these prompts or chat messages", one registry (:data:`GENERATORS`).

Used by the ``judge`` reward, Cooper's assistant LLM and policy evaluation. Backends: ``transformers``
(local, CPU or GPU), ``openai`` (any OpenAI-compatible server: ``vllm serve``, SGLang, llama.cpp, a hosted
API) and ``vllm`` (offline ``vllm.LLM`` on a GPU). A backend whose package is missing fails with the exact
install command.
"""

from __future__ import annotations

from harness.generation.contract import Completion, Generator, Prompt, SamplingParams
from harness.registry import Registry
from harness.spec import ComponentSpec, build

GENERATORS: Registry = Registry("generator", entry_point_group="harness.generators", list_command="harness ls generators")
GENERATORS.add_lazy("transformers", "harness.generation.hf:TransformersGenerator", "local transformers model (CPU or GPU)")
GENERATORS.add_lazy("openai", "harness.generation.openai_api:OpenAIGenerator", "any OpenAI-compatible HTTP server")
GENERATORS.add_lazy("vllm", "harness.generation.vllm_offline:VLLMGenerator", "offline vllm.LLM (GPU)")


def build_generator(spec: str | ComponentSpec) -> Generator:
    return build(GENERATORS, spec)


def generator_from_options(backend: str, **options: object) -> Generator:
    """The ``backend`` generator given whichever of ``options`` it accepts; empty values are left out so the
    backend's own defaults (and environment variables, for ``openai``) apply. Rewards that own a generator
    (``judge``, ``cooper``'s assistant) take flat options such as ``model`` and ``base_url`` this way."""
    from harness.spec import option_types

    factory = GENERATORS.get(backend)
    accepted = option_types(factory)
    return factory(**{k: v for k, v in options.items() if k in accepted and v not in ("", None)})


__all__ = ["GENERATORS", "Completion", "Generator", "Prompt", "SamplingParams", "build_generator", "generator_from_options"]
