"""What every ``harness`` command shares: the command group, its ``--store`` and ``--plugin`` options, user errors as
one-line messages, progress on a terminal or in a log, and tables printed to fit wherever the output goes."""

from __future__ import annotations

import functools
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import MISSING
from pathlib import Path
from typing import Any

import click

from harness import __version__
from harness.core.errors import UserError
from harness.core.plugins import ENV as _PLUGINS_ENV
from harness.core.plugins import PluginError, load_plugins, plugins_from_env
from harness.core.store import STORE_ENV, RunStore, StoreError, Terminated
from harness.report import (
    Table,
    render_csv,
    render_text,
    to_rich,
)


def friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the library's user-facing errors into one clean message and exit code 1, without a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def make_console(stderr: bool = False):
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:  # rich exits with status 1 here; the command group ends with 0
            raise BrokenPipeError

    return _Console(stderr=stderr, soft_wrap=False)


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time of the record (test runners swap it)."""

    @property
    def stream(self):  # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def _configure_logging() -> None:
    """The ``harness`` logger to stderr: progress lines and choices at INFO when stderr is not a terminal (a job's
    log), warnings only when it is (a bar shows progress there)."""
    logger = logging.getLogger("harness")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S"))
        logger.addHandler(handler)
    logger.setLevel(logging.WARNING if sys.stderr.isatty() else logging.INFO)
    if not sys.stderr.isatty():  # a log: the harness's own progress lines, not the libraries' bars and colours
        quiet_libraries()


# What the libraries the harness loads read when they are imported: no progress bars (tqdm redraws a line a
# character at a time, which a log keeps as one long line of carriage returns) and no load reports in terminal
# colours. A variable the user set is theirs.
QUIET_LIBRARIES = {
    "TQDM_DISABLE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1", "DATASETS_VERBOSITY": "error",
}


def quiet_libraries() -> None:
    for name, value in QUIET_LIBRARIES.items():
        os.environ.setdefault(name, value)


@contextmanager
def progress(label: str, unit: str = "items") -> Iterator[Callable[..., None]]:
    """``update(done, total=None, phase=None)``: a bar on a terminal, and progress lines in the log at a steady
    interval (:class:`harness.core.progress.ProgressLog`), which show when stderr is not a terminal."""
    from harness.core.progress import ProgressLog

    lines = ProgressLog(label, unit)
    if not sys.stderr.isatty():
        with lines.heartbeat():  # a line within 30 s even while the first batch is still running
            yield lambda done, total=None, phase=None: lines.update(done, total, phase)
        return
    with progress_bar() as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int | None = None, phase: str | None = None) -> None:
            bar.update(task, completed=done, total=total, description=phase or label)
            lines.update(done, total, phase)

        yield update


def progress_bar(label: str = "{task.description}"):
    """A transient progress bar on stderr, so tables and JSON on stdout stay clean."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=make_console(stderr=True), transient=True)


def emit(tables: list[Table], fmt: str) -> None:
    if fmt == "table":
        from rich.text import Text

        console = make_console()
        for table in tables:
            shown = to_rich(table, console.width, plain=not console.is_terminal)
            console.print(shown, soft_wrap=isinstance(shown, Text))
    elif fmt == "json":  # one parseable document, whatever the number of tables
        click.echo(json.dumps([json.loads(render_text(table, fmt)) for table in tables], indent=2))
    elif fmt == "csv":  # one table, whatever the number of tables: a reader loads it whole
        click.echo(render_csv(tables), nl=False)
    else:
        click.echo("\n\n".join(render_text(table, fmt).rstrip("\n") for table in tables))


class _Commands(click.Group):
    """The command group; a reader that stops reading (``harness runs | head``) ends the command quietly, with
    status 0, as other Unix tools do, instead of click's status 1.

    Commands may be registered by where they live (:meth:`add_lazy`) and are imported when named: ``harness
    eval`` does not pay for the server's, the trainers' or the figures' imports (a fifth of a second)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy: dict[str, str] = {}

    def add_lazy(self, name: str, target: str) -> None:
        """Register the command ``name`` as ``module:attribute``, imported on first use."""
        self._lazy[name] = target

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self._lazy.pop(cmd_name, None)
        if target is not None:
            import importlib

            module, attribute = target.split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        previous = _stop_on_sigterm()
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _silence_stdout()
            ctx.exit(0)
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: what was running was stopped and marked; say so
            click.echo(f"stopped: {str(exc) or 'interrupted by the user'} (any run it was recording is marked "
                       "interrupted; harness runs lists it)", err=True)
            ctx.exit(143 if isinstance(exc, Terminated) else 130)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _stop_on_sigterm() -> Any:
    """SIGTERM raises :class:`Terminated` in the main thread, so ``finally`` blocks run: child servers and
    launchers are stopped and the run is marked, instead of the process vanishing and leaving them behind."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def terminated(signum: int, frame: Any) -> None:
        raise Terminated("terminated by SIGTERM")

    return signal.signal(signal.SIGTERM, terminated)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit does not raise a second time on the closed pipe."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test runner's buffer)
        pass
    finally:
        os.close(devnull)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harness")
@click.option(
    "--store",
    "store_path",
    envvar="HARNESS_STORE",
    type=click.Path(dir_okay=False),
    default=None,
    help="SQLite run store (default: runs.sqlite in the user data directory; env HARNESS_STORE).",
)
@click.option("--plugin", "plugins", multiple=True, metavar="FILE_OR_MODULE",
              help=f"Import your own code first (a .py file or a module), so that rewards and suites it registers by "
                   f"decorator can be named; repeatable (env {_PLUGINS_ENV}, separated like PATH).")
@click.pass_context
def main(ctx: click.Context, store_path: str | None, plugins: tuple[str, ...]) -> None:
    """Evaluate and serve rewards for RL of LLMs on reasoning."""
    _configure_logging()
    ctx.obj = {"store_path": store_path}
    try:
        load_plugins([*plugins_from_env(), *plugins])
    except PluginError as exc:
        raise click.ClickException(str(exc)) from None


def plugin_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--plugin`` on a subcommand too (``harness eval --plugin F`` as well as ``harness --plugin F eval``): the
    code is imported as the option is read, before the command's body names any reward or suite."""

    def load(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> None:
        try:
            load_plugins(value)
        except PluginError as exc:
            raise click.BadParameter(str(exc), ctx=ctx, param=param) from None

    return click.option("--plugin", multiple=True, metavar="FILE_OR_MODULE", expose_value=False, callback=load,
                        help="Import your own code first (as the group option --plugin).")(command)


def flipped_option(default: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--flipped N``: how many of the items whose verdict changed between two paired runs to list."""
    return click.option("--flipped", type=click.IntRange(min=0), default=default, show_default=True,
                        help="List up to this many items whose verdict changed (0: all).")


def store_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--store`` (and ``--plugin``) on a subcommand too (``harness eval --store X`` as well as
    ``harness --store X eval``)."""

    def remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
        if value is not None:
            ctx.ensure_object(dict)["store_path"] = value

    command = plugin_option(command)
    return click.option("--store", type=click.Path(dir_okay=False), default=None, expose_value=False,
                        callback=remember, help="SQLite run store (as the group option --store).")(command)


def run_store(ctx: click.Context, *, existing: bool = False, writes: bool = False) -> RunStore:
    """The run store of ``--store``, ``HARNESS_STORE`` or the user's default. ``existing``: a command that reads
    refuses a store that does not exist (a mistyped ``--store``) rather than creating an empty one, and opens it
    read-only unless it ``writes`` too (``rescore`` records new runs beside the one it reads)."""
    path = ctx.obj["store_path"]
    if existing:
        return RunStore.existing(path, readonly=not writes)
    if path:  # a store the user named (--store, HARNESS_STORE) goes into a folder that exists: none made by a typo
        folder = Path(path).expanduser().parent
        if not folder.is_dir():
            raise StoreError(f"store {path} (--store or {STORE_ENV}): the folder {folder} does not exist; create it "
                             f"first (mkdir -p {folder}) or name a store in a folder that does")
    return RunStore(path)


def store_note(store: RunStore, ctx: click.Context) -> str:
    """Where the runs listed come from: the file, and whether it is this project's or the user's shared one."""
    if ctx.obj.get("store_path"):
        return f"store: {store.path} (given by --store)"
    if os.environ.get(STORE_ENV):
        return f"store: {store.path} (given by {STORE_ENV})"
    return (f"store: {store.path} (shared by every harness process that does not set --store or {STORE_ENV}; "
            "'latest' is the newest run in it)")




_NAMED_TYPES = {"bool": bool, "int": int, "float": float, "str": str}


def field_type(f: Any) -> type:
    """A config field's type, whether its class was written with ``from __future__ import annotations`` (the
    annotation is the string ``"bool"``) or without (the class ``bool``); anything else is read as text."""
    annotation = _NAMED_TYPES.get(f.type.strip(), str) if isinstance(f.type, str) else f.type
    return annotation if annotation in _NAMED_TYPES.values() else str


def options_from_fields(groups: list[tuple[str, list[Any]]]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Command-line options generated from config dataclass fields, one per field name, each with its field's help
    (``metadata["help"]``); ``groups`` are (owner, fields) pairs, and a field that not every owner has says whose
    it is. Every option defaults to None (not given), so a config file's value and the dataclass default show
    through: defaults < file < command line, decided once in the config class."""
    owners: dict[str, list[str]] = {}
    first: dict[str, Any] = {}
    for owner, fields in groups:
        for f in fields:
            owners.setdefault(f.name, []).append(owner)
            first.setdefault(f.name, f)

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for name in reversed(list(first)):
            f = first[name]
            help_text = f.metadata.get("help", "")
            if len(owners[name]) < len(groups):
                help_text = f"{'/'.join(owners[name])}: {help_text}"
            default = f.default
            if default is MISSING:
                help_text += " [required]"
            elif default not in ("", None) and not isinstance(default, bool):
                help_text += f" [default: {default}]"
            flag = "--" + name.replace("_", "-")
            kind = field_type(f)
            if kind is bool:
                command = click.option(f"{flag}/--no-{flag[2:]}", name, default=None, help=help_text)(command)
            else:  # metadata["aliases"]: shorter spellings kept for a field ("--lr" for --learning-rate)
                command = click.option(flag, *f.metadata.get("aliases", ()), name,
                                       type=kind, default=None, help=help_text)(command)
        return command

    return decorate
