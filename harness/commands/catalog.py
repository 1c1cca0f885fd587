"""Listing what is registered, and checking a spec before any work."""

from __future__ import annotations

import click

from harness.commands.common import (
    friendly,
    store_option,
)
from harness.report import (
    Table,
    as_lines,
)


@click.command("ls")
@click.argument("kind", type=click.Choice(["rewards", "suites", "trainers", "generators", "all"]), default="all")
@store_option
def ls_command(kind: str) -> None:
    """List registered rewards, suites, trainers and generation backends (plugins included) without importing them."""
    from harness.catalog import catalog

    for title, entries in catalog(kind):
        rows = [[e.name, e.summary, e.origin] for e in entries] or [["(none registered)", "", ""]]
        # one name a line for every kind alike, whatever the width: readable in a terminal and through a pipe
        click.echo(as_lines(Table(title, ["name", "summary", "origin"], rows)))


@click.command("validate")
@click.option("--reward", "reward_spec", help="Reward spec to check, e.g. rule or rule:timeout=5.")
@click.option("--suite", "suite_spec", help="Suite spec to check; its data is loaded and counted.")
@click.option("--data", default=None, help="Local data file or folder for the suite.")
@friendly
@store_option
def validate_command(reward_spec: str | None, suite_spec: str | None, data: str | None) -> None:
    """Check specs and data without scoring anything."""
    from harness.catalog import validate

    if not reward_spec and not suite_spec:
        raise click.UsageError("give --reward and/or --suite to validate")
    for line in validate(reward_spec, suite_spec, data):
        click.echo(line)
