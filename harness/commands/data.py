"""Getting the public data the suites read: ``harness data list`` and ``harness data fetch``."""

from __future__ import annotations

import os
from pathlib import Path

import click

from harness.commands.common import friendly, store_option


def fetch_root(root: str | None) -> Path:
    """Where fetched data goes: ``--root``, else the data root the suites read (``HARNESS_DATA_ROOT``, else an
    existing ``./shared/data`` or ``../shared/data``), else ``./shared/data``, where the suites will find it."""
    from suites.loading import DATA_ROOT_ENV, data_root

    if root:
        return Path(root).expanduser()
    if os.environ.get(DATA_ROOT_ENV):
        return Path(os.environ[DATA_ROOT_ENV]).expanduser()
    return data_root() or Path.cwd() / "shared" / "data"


@click.group("data")
def data_command() -> None:
    """The public data sets the suites read: list them, fetch them into the data root."""


@data_command.command("list")
@store_option
def list_command() -> None:
    """Each fetchable set: its name, its files and what it is."""
    from harness.datasets.fetch import data_sets

    for data_set in data_sets().values():
        n = len(data_set.files) + len(data_set.builds)
        click.echo(f"{data_set.name:<26}{n:>3} file{'s' if n > 1 else ' '}  {data_set.summary}")


@data_command.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--root", default=None, help="Folder to fetch into (default: the data root the suites read, "
                                           "HARNESS_DATA_ROOT, else ./shared/data).")
@click.option("--mirror", default=None, help="Base URL laid out as REPO/COMMIT/PATH (default: "
                                             "https://raw.githubusercontent.com).")
@click.option("--timeout", "timeout_s", type=float, default=60.0, show_default=True, help="Seconds per download.")
@friendly
@store_option
def fetch_command(names: tuple[str, ...], root: str | None, mirror: str | None, timeout_s: float) -> None:
    """Download the named sets (all when none is named) from their public repositories at fixed commits,
    check every file's git blob SHA-1, and build the derived files from them. Files already there with the
    right hash are kept; nothing unchecked is ever written."""
    from harness.datasets.fetch import GITHUB_RAW, fetch

    target = fetch_root(root)

    def report(done) -> None:
        click.echo(f"{done.action:<11}{done.path}  ({done.origin})")

    results = fetch(names, target, mirror=mirror or GITHUB_RAW, timeout_s=timeout_s, report=report)
    counts = {a: sum(r.action == a for r in results) for a in ("downloaded", "built", "present")}
    click.echo(f"{len(results)} files in {target}: {counts['downloaded']} downloaded, {counts['built']} built, "
               f"{counts['present']} already there, every one checked by its git blob SHA-1")
