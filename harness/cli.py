"""The ``harness`` command: the group and where each command of :mod:`harness.commands` lives; a command's module
is imported only when that command runs (or ``harness --help`` lists them all)."""

from harness.commands.common import main

_COMMANDS = {
    "ls": "harness.commands.catalog:ls_command",
    "validate": "harness.commands.catalog:validate_command",
    "eval": "harness.commands.evaluation:eval_command",
    "probe-hacking": "harness.commands.evaluation:probe_hacking_command",
    "label": "harness.commands.evaluation:label_command",
    "rescore": "harness.commands.evaluation:rescore_command",
    "runs": "harness.commands.runs:runs_command",
    "show": "harness.commands.runs:show_command",
    "compare": "harness.commands.runs:compare_command",
    "tables": "harness.commands.runs:tables_command",
    "plot": "harness.commands.runs:plot_command",
    "train-rm": "harness.commands.training:train_rm_command",
    "train": "harness.commands.training:train_command",
    "sft": "harness.commands.training:sft_command",
    "serve": "harness.commands.serving:serve_command",
    "eval-policy": "harness.commands.policy:eval_policy_command",
    "data": "harness.commands.data:data_command",
}
for _name, _target in _COMMANDS.items():
    main.add_lazy(_name, _target)

__all__ = ["main"]
