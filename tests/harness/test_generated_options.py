"""Options generated from a config class read its fields' types whether or not the class's module postponed its
annotations: this module does not, so its annotations are classes, not strings (a plugin's config is often so)."""

from dataclasses import dataclass, field, fields

import click
from click.testing import CliRunner

from harness.commands.common import options_from_fields


@dataclass(frozen=True)
class PluginConfig:
    stop: bool = field(default=False, metadata={"help": "Stop early."})
    steps: int = field(default=3, metadata={"help": "Steps."})
    rate: float = field(default=0.5, metadata={"help": "Rate."})
    name: str = field(default="x", metadata={"help": "Name."})


def test_bool_int_and_float_fields_become_typed_options_without_postponed_annotations():
    seen = {}

    @click.command()
    @options_from_fields([("plugin", list(fields(PluginConfig)))])
    def command(**options):
        seen.update(options)

    result = CliRunner().invoke(command, ["--no-stop", "--steps", "5", "--rate", "0.25", "--name", "y"])
    assert result.exit_code == 0, result.output
    assert seen == {"stop": False, "steps": 5, "rate": 0.25, "name": "y"}
    assert CliRunner().invoke(command, ["--steps", "five"]).exit_code == 2  # an int option refuses a word
