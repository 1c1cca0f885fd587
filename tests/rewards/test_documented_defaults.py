"""The README's table of reward options is the contract a user reads: every default it gives in parentheses is the
constructor's default of each reward the row names."""

from __future__ import annotations

import inspect

from rewards import REWARDS

from ..readme_options import documented_defaults


def test_every_default_in_the_readmes_reward_table_is_the_constructors():
    checked = 0
    table = documented_defaults()
    for name, documented in table.items():
        parameters = inspect.signature(REWARDS.get(name)).parameters
        for option, value in documented.items():
            assert option in parameters, f"the README documents {name}'s {option}, which it does not take"
            assert parameters[option].default == value, (name, option, value, parameters[option].default)
            checked += 1
    documented = {(name, option) for name, options in table.items() for option in options}
    # the table's rows are read: a change to its layout that hid them would leave nothing checked
    assert {("cooper", "snapshot_every"), ("cooper", "seed"), ("rule", "timeout"), ("remote", "threshold"),
            ("judge", "temperature"), ("cooper", "discrete")} <= documented and checked >= 30
