"""The one mark of an error whose message is meant for the person who ran the command.

Each such error subclasses :class:`UserError` where it is defined (beside its usual base: ``ValueError``,
``LookupError``, ...), so the command line prints it as one line and exits 1 without importing the modules that
raise it: a command pays at start-up only for the modules it uses.
"""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a state the user can change (a malformed spec, a missing run, data that does not load); its
    message says what to fix. Anything else that escapes a command is a bug and keeps its traceback."""
