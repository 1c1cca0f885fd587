"""The ``harness`` command: the group and every command of :mod:`harness.commands`, added in the order
``harness --help`` lists them."""

from harness.commands.catalog import ls_command, validate_command
from harness.commands.common import main
from harness.commands.evaluation import eval_command, label_command, probe_hacking_command
from harness.commands.policy import eval_policy_command
from harness.commands.runs import compare_command, plot_command, runs_command, show_command, tables_command
from harness.commands.serving import serve_command
from harness.commands.training import sft_command, train_command, train_rm_command

for _command in (ls_command, validate_command, eval_command, probe_hacking_command, label_command, runs_command, show_command, compare_command, tables_command, plot_command, train_rm_command, train_command, sft_command, serve_command, eval_policy_command):
    main.add_command(_command)

__all__ = ["main"]
