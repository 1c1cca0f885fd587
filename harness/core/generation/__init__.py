"""Generation backends: "generate text for these prompts or chat messages", one registry (:data:`GENERATORS`).

Used by the ``judge`` reward, Cooper's assistant LLM and policy evaluation. Backends: ``transformers``
(local, CPU or GPU), ``openai`` (any OpenAI-compatible server: ``vllm serve``, SGLang, llama.cpp, a hosted
API) and ``vllm`` (offline ``vllm.LLM``, on a GPU or vLLM's CPU build). A backend whose package is missing fails with the exact
install command.
"""

from __future__ import annotations

from harness.core.generation.contract import Completion, Generator, Prompt, SamplingParams
from harness.core.registry import Registry
from harness.core.spec import ComponentSpec, build

GENERATORS: Registry = Registry("generator", entry_point_group="harness.generators", list_command="harness ls generators")
GENERATORS.add_lazy("transformers", "harness.core.generation.hf:TransformersGenerator", "local transformers model (CPU or GPU)")
GENERATORS.add_lazy("openai", "harness.core.generation.openai_api:OpenAIGenerator", "any OpenAI-compatible HTTP server")
GENERATORS.add_lazy("vllm", "harness.core.generation.vllm_offline:VLLMGenerator", "offline vllm.LLM (GPU or vLLM's CPU build)")


def build_generator(spec: str | ComponentSpec) -> Generator:
    return build(GENERATORS, spec)


def generator_from_options(backend: str, hints: dict[str, object] | None = None, **options: object) -> Generator:
    """The ``backend`` generator built from the options that were given; empty values are left out so the
    backend's own defaults (and environment variables, for ``openai``) apply. Rewards that own a generator
    (``judge``, ``cooper``'s assistant) take flat options such as ``model`` and ``base_url`` this way. An option
    given a value that the backend does not take is an error naming it (it was silently dropped: a judge told
    ``base_url=...`` on the ``transformers`` backend ran a local model instead). ``hints`` (a batch size) go to
    the backends that take them and are left out for the others."""
    from harness.core.spec import SpecError, option_types

    factory = GENERATORS.get(backend)
    accepted = option_types(factory)
    given = {k: v for k, v in options.items() if v not in ("", None)}
    unused = sorted(set(given) - set(accepted))
    if unused:
        raise SpecError(f"the {backend!r} generation backend takes no {', '.join(unused)} (it takes "
                        f"{', '.join(sorted(accepted))}); choose another backend or leave the option out")
    given.update({k: v for k, v in (hints or {}).items() if k in accepted and k not in given})
    return factory(**given)


__all__ = ["GENERATORS", "Completion", "Generator", "Prompt", "SamplingParams", "build_generator", "generator_from_options"]
