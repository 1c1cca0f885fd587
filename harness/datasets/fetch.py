"""Fetching the data root: every public file a suite reads, from its repository at a fixed commit, checked by its
git blob SHA-1, and the derived files built from them (:mod:`harness.datasets.builds`).

The sets, their files and their hashes are listed in ``harness/data/data_sources.yaml``. A file is written
only whole and only once its hash is right (downloaded beside its place, checked, then renamed), so an
interrupted or tampered fetch leaves nothing a suite would read; a file already there with the right hash is
kept as it is. Sets share files (ProcessBench's references are GSM8K's test set): each is fetched once.
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from harness.datasets.builds import BUILDERS
from suites.loading import DataError

GITHUB_RAW = "https://raw.githubusercontent.com"


class FetchError(DataError):
    """A file that could not be fetched or built right; the message says which, from where and what to do."""


@dataclass(frozen=True)
class Upstream:
    """One file of a public repository at a commit, and where it goes under the data root."""

    path: str
    repo: str
    commit: str
    source: str
    blob: str

    def url(self, mirror: str) -> str:
        return f"{mirror.rstrip('/')}/{self.repo}/{self.commit}/{self.source}"


@dataclass(frozen=True)
class Build:
    """A derived file, made by ``builder`` from upstream files already under the data root."""

    path: str
    builder: str
    blob: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DataSet:
    name: str
    summary: str
    files: tuple[Upstream, ...]
    builds: tuple[Build, ...] = ()


@dataclass(frozen=True)
class Fetched:
    """What happened to one file: ``downloaded``, ``built``, or ``present`` (there already, with the right hash)."""

    path: str
    action: str
    origin: str


def git_blob_sha1(data: bytes) -> str:
    """The hash ``git hash-object`` gives these bytes: what SOURCE.md records and a repository's tree holds."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def data_sets() -> dict[str, DataSet]:
    """The fetchable sets, by name, in the order the manifest lists them."""
    import yaml

    text = (resources.files("harness") / "data" / "data_sources.yaml").read_text(encoding="utf-8")
    sets = yaml.safe_load(text)["sets"]
    return {name: DataSet(name, entry["summary"],
                          tuple(Upstream(**f) for f in entry["files"]),
                          tuple(Build(**b) for b in entry.get("builds", ())))
            for name, entry in sets.items()}


def _has(path: Path, blob: str) -> bool:
    return path.is_file() and git_blob_sha1(path.read_bytes()) == blob


def _write(path: Path, data: bytes, blob: str, origin: str, *, built: bool = False) -> None:
    """``data`` at ``path`` if its hash is ``blob``: written beside it, then renamed over it."""
    got = git_blob_sha1(data)
    if got != blob:
        why = ("This harness builds it differently from the published file: report it, with the harness version"
               if built else "The source changed or a proxy altered it: fetch again, or from another --mirror")
        raise FetchError(f"{path}: {origin} gave {len(data):,} bytes with git blob SHA-1 {got}, not {blob}; "
                         f"nothing was written. {why}")
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    os.replace(part, path)


def _download(url: str, timeout_s: float) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:  # noqa: S310 - http(s) from the manifest
            return response.read()
    except urllib.error.HTTPError as exc:
        raise FetchError(f"{url}: HTTP {exc.code} {exc.reason}; the server does not hold this file at this commit "
                         "(a --mirror must be laid out as REPO/COMMIT/PATH)") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f"{url}: {reason}; check the network, or fetch from a mirror with --mirror URL "
                         "(laid out as REPO/COMMIT/PATH)") from None


def fetch(names: Iterable[str], root: Path, *, mirror: str = GITHUB_RAW, timeout_s: float = 60.0,
          report: Callable[[Fetched], None] = lambda fetched: None) -> list[Fetched]:
    """Fetch the named sets (all when ``names`` is empty) into ``root``; returns what was done with each file,
    and passes each to ``report`` as it happens. Stops at the first file that cannot be fetched or checked,
    with a :class:`FetchError` naming it; the files done before it stay (each is whole and checked)."""
    known = data_sets()
    wanted = list(names) or list(known)
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise FetchError(f"no data set named {', '.join(unknown)}; the sets are: {', '.join(known)}")
    done: dict[str, Fetched] = {}
    for name in wanted:
        for upstream in known[name].files:
            if upstream.path not in done:
                done[upstream.path] = _fetch_file(upstream, root, mirror, timeout_s)
                report(done[upstream.path])
        for build in known[name].builds:
            if build.path not in done:
                done[build.path] = _build_file(build, root)
                report(done[build.path])
    return list(done.values())


def _fetch_file(upstream: Upstream, root: Path, mirror: str, timeout_s: float) -> Fetched:
    path = root / upstream.path
    origin = f"{upstream.repo}@{upstream.commit[:8]}:{upstream.source}"
    if _has(path, upstream.blob):
        return Fetched(upstream.path, "present", origin)
    url = upstream.url(mirror)
    _write(path, _download(url, timeout_s), upstream.blob, url)
    return Fetched(upstream.path, "downloaded", origin)


def _build_file(build: Build, root: Path) -> Fetched:
    path = root / build.path
    origin = f"built by {build.builder}"
    if _has(path, build.blob):
        return Fetched(build.path, "present", origin)
    builder = BUILDERS[build.builder]
    try:
        lines = builder(root, build.args)
    except (KeyError, ValueError, OSError, SyntaxError) as exc:
        raise FetchError(f"{build.path}: the {build.builder} build failed on its inputs ({exc!r}); "
                         "fetch its set again") from None
    _write(path, "".join(lines).encode("utf-8"), build.blob, origin, built=True)
    return Fetched(build.path, "built", origin)
