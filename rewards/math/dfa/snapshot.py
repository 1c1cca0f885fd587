"""A saved copy of the prediction automaton that ANTLR builds while latex2sympy's parser runs, loaded by each
rule-reward worker so that a new worker parses like one that has already met many answers.

ANTLR predicts each decision of a grammar by simulating its ATN on the tokens ahead, and caches what it learns as
a DFA: per decision, states (sets of ATN configurations) and edges (the token that leads from one to the next).
The cache is exact, an edge is taken only where the simulation would have come to the same state, and it is
what makes a warm parser fast: a worker that has parsed many answers takes edges, a new one runs the closures
that build them. In a worker that starts cold, that building was most of the parse's time, which was itself the
largest share of the worker's. The automaton lives on the generated parser class, so it is per process, and a
pickle of it is not the same automaton: ANTLR compares some of its objects by identity (the empty prediction
context, the absent semantic context), which a pickle duplicates.

So the snapshot is written in its own form (:func:`take`): prediction contexts and semantic contexts as tables,
each state as its edges, its verdict and its configurations, configurations by ATN state number. :func:`load`
puts it back into a fresh process's parser class in a few milliseconds by leaving each state's configurations
packed until ANTLR first reads them, which it does only when it must extend the automaton from that state or
compare a new state with it. States go back under their saved hashes (ANTLR's hashes of its configuration sets
are built from integers only, the same in every process); the hashes of a few states are recomputed from their
unpacked configurations at every load, and a mismatch loads nothing.

Nothing here changes what a parse returns: the states are the ones the same simulation made, and a snapshot that
does not match the installed grammar and runtime (its key), or that cannot be read, is ignored, leaving the
parser to build its automaton as before. The snapshot shipped with the package is built by
``tools/build_dfa_snapshot.py`` from a corpus of answers the project generates itself; see there.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import sys
import zlib
from importlib import metadata
from pathlib import Path
from typing import Any

from antlr4.atn.ATNConfig import ATNConfig
from antlr4.atn.ATNConfigSet import ATNConfigSet
from antlr4.atn.ATNSimulator import ATNSimulator
from antlr4.atn.SemanticContext import PrecedencePredicate, Predicate, SemanticContext
from antlr4.dfa.DFAState import DFAState
from antlr4.PredictionContext import ArrayPredictionContext, PredictionContext, SingletonPredictionContext

FORMAT = 1
SNAPSHOT = Path(__file__).with_name("latex_dfa.marshal")

_NO_STATE = -1
_ERROR_STATE = -2
_CHECKED_STATES = 4  # states whose hashes each load recomputes from their configurations
_EMPTY, _SINGLETON, _ARRAY = 0, 1, 2
_NO_PREDICATE, _PREDICATE, _PRECEDENCE = 0, 1, 2
_ABSENT_PREDICATE_HASH = 0x5E3A_271C  # any constant (see pin_hashes)
_CONFIG_FIELDS = 6  # ATN state, alternative, context, semantic context, outer-context reach, filter suppressed


class SnapshotError(ValueError):
    """The automaton holds something this form does not write (a DFA state with predicates, say)."""


def grammar_key(parser_class: type) -> str:
    """What a snapshot is valid for: the generated parser's serialized ATN, the ANTLR runtime that reads it, and
    the Python version (``marshal``'s format and the hashes the states are filed under are Python's own)."""
    atn = sys.modules[parser_class.__module__].serializedATN()
    digest = hashlib.sha256(repr(list(atn)).encode()).hexdigest()[:32]
    python = f"python-{sys.version_info.major}.{sys.version_info.minor}"
    return f"{parser_class.__name__}:{digest}:antlr4-{metadata.version('antlr4-python3-runtime')}:{python}"


def parser_class() -> type:
    """latex2sympy's generated parser class for the installed ANTLR runtime."""
    from latex2sympy2_extended.antlr_parser import PSParser

    return PSParser


def take(parser_cls: type) -> bytes:
    """The automaton of ``parser_cls`` as it stands in this process, in the form :func:`load` reads."""
    contexts = _ContextTable()
    semantics = _SemanticTable()
    decisions = []
    for dfa in parser_cls.decisionsToDFA:
        states = list(dfa.states)
        if not states:
            continue
        index = {id(state): k for k, state in enumerate(states)}
        index[id(ATNSimulator.ERROR)] = _ERROR_STATE

        def target(state: Any) -> int:
            return _NO_STATE if state is None else index[id(state)]

        rows = []
        for state in states:
            if state.predicates is not None or state.lexerActionExecutor is not None:
                raise SnapshotError(f"decision {dfa.decision}: a state with predicates")
            configs = state.configs
            packed = []
            for c in configs:
                packed += [c.state.stateNumber, c.alt, contexts.id(c.context), semantics.id(c.semanticContext),
                           c.reachesIntoOuterContext, int(c.precedenceFilterSuppressed)]
            edges = () if state.edges is None else tuple(
                (t, target(to)) for t, to in enumerate(state.edges) if to is not None)
            conflicting = None if configs.conflictingAlts is None else tuple(sorted(configs.conflictingAlts))
            rows.append((state.stateNumber, hash(configs), state.isAcceptState, state.prediction,
                         state.requiresFullContext, edges, configs.fullCtx, configs.uniqueAlt, conflicting,
                         configs.hasSemanticContext, configs.dipsIntoOuterContext,
                         zlib.compress(marshal.dumps(tuple(packed)))))
        if dfa.precedenceDfa:
            start: Any = tuple(target(s) for s in dfa.s0.edges)
        else:
            start = target(dfa.s0)
        decisions.append((dfa.decision, dfa.precedenceDfa, start, tuple(rows)))
    snapshot = {"format": FORMAT, "grammar": grammar_key(parser_cls), "contexts": tuple(contexts.rows),
                "semantics": tuple(semantics.rows), "decisions": tuple(decisions)}
    return zlib.compress(marshal.dumps(snapshot))


def load(parser_cls: type, data: bytes) -> bool:
    """Put a snapshot into ``parser_cls``'s automaton, which must still be empty (no parse yet in this process).
    True when loaded; False, with the automaton untouched, when :func:`refusal` gives a reason."""
    return refusal(parser_cls, data) is None


def refusal(parser_cls: type, data: bytes) -> str | None:
    """Load the snapshot as :func:`load` does; None when loaded, else why not: for another grammar, runtime or
    Python, unreadable, failing its hash check, or the automaton already in use (untouched in every case)."""
    try:
        snapshot = marshal.loads(zlib.decompress(data))
        if not isinstance(snapshot, dict) or snapshot.get("format") != FORMAT:
            return f"not a snapshot of format {FORMAT}"
        if snapshot["grammar"] != grammar_key(parser_cls):
            return f"made for {snapshot['grammar']}, not {grammar_key(parser_cls)}"
        if not _empty(parser_cls.decisionsToDFA):
            return "the parser has parsed already in this process"
        pin_hashes()
        built = _build(parser_cls, snapshot)
    except (ValueError, EOFError, TypeError, KeyError, IndexError, zlib.error) as exc:
        return f"unreadable ({type(exc).__name__}: {exc})"
    if built is None:
        return "its states' hashes do not match their configurations"
    for dfa, states, start in built:
        for state in states:
            dfa.states[state] = state
        if dfa.precedenceDfa:
            dfa.s0.edges = start
        else:
            dfa.s0 = start
    return None


def load_shipped() -> bool:
    """:func:`load` the snapshot shipped with the package into latex2sympy's parser. When it does not load, the
    worker parses as fast as before only once it has built its own automaton: the log says why, once a process."""
    try:
        data = SNAPSHOT.read_bytes()
    except OSError as exc:
        why: str | None = f"missing ({exc.strerror})"
    else:
        why = refusal(parser_class(), data)
    if why is not None:
        logging.getLogger("harness.rewards").warning(
            "the parser automaton snapshot %s did not load: %s; rebuild it with tools/build_dfa_snapshot.py",
            SNAPSHOT.name, why)
    return why is None


def pin_hashes() -> None:
    """Give ANTLR's absent semantic context a hash that is the same in every process.

    A DFA state is filed under the hash of its configurations, and each configuration's hash takes in its
    semantic context. Every other part of it is made of integers, but the absent semantic context, one object,
    hashes by identity, so that its hash, and every state's, differs from process to process. Its equality is
    identity too, which a constant hash keeps consistent. :func:`load` calls this before it files any state, and
    the snapshot is taken in a process that called it before its first parse; a process whose automaton already
    holds states is left alone (:func:`load` refuses it), since they are filed under the old hashes.
    """
    type(SemanticContext.NONE).__hash__ = _absent_predicate_hash


def _absent_predicate_hash(self: Any) -> int:
    return _ABSENT_PREDICATE_HASH


def _empty(dfas: list) -> bool:
    return all(not dfa.states and (dfa.s0.edges == [] if dfa.precedenceDfa else dfa.s0 is None) for dfa in dfas)


def _build(parser_cls: type, snapshot: dict) -> list[tuple[Any, list, Any]] | None:
    tables = _Tables(parser_cls.atn, snapshot["contexts"], snapshot["semantics"])
    dfas = parser_cls.decisionsToDFA
    built = []
    checked: list[tuple[Any, int]] = []
    for decision, precedence, start, rows in snapshot["decisions"]:
        dfa = dfas[decision]
        if dfa.precedenceDfa != precedence:
            return None
        states, edges = [], []
        for (number, hashed, accept, prediction, full_context, state_edges, full_ctx, unique, conflicting, semantic,
             dips, packed) in rows:
            state = DFAState.__new__(DFAState)
            state.stateNumber = number
            state.configs = _PackedConfigs.packed(tables, hashed, full_ctx, unique, conflicting, semantic, dips, packed)
            state.edges = None
            state.isAcceptState = accept
            state.prediction = prediction
            state.lexerActionExecutor = None
            state.requiresFullContext = full_context
            state.predicates = None
            states.append(state)
            edges.append(state_edges)
            if len(checked) < _CHECKED_STATES:
                checked.append((state.configs, hashed))

        def resolve(k: int) -> Any:
            return None if k == _NO_STATE else ATNSimulator.ERROR if k == _ERROR_STATE else states[k]

        width = parser_cls.atn.maxTokenType + 2
        for state, state_edges in zip(states, edges):  # once every state exists: edges point forward too
            if state_edges:
                state.edges = [None] * width
                for t, to in state_edges:
                    state.edges[t] = resolve(to)
        built.append((dfa, states, [resolve(k) for k in start] if precedence else resolve(start)))
    if any(configs.hashConfigs() != hashed for configs, hashed in checked):
        return None  # this Python hashes differently: the saved hashes would misfile every state
    return built


class _ContextTable:
    """Prediction contexts numbered parents first; the empty context is row 0's kind, written once."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self._ids: dict[int, int] = {}
        self._keep: list[Any] = []  # the objects whose ids are keys, kept alive while numbering

    def id(self, context: Any) -> int:
        if context is None:
            return _NO_STATE
        stack = [context]
        while stack:
            ctx = stack[-1]
            if id(ctx) in self._ids:
                stack.pop()
                continue
            parents = [ctx.getParent(i) for i in range(len(ctx))]
            missing = [p for p in parents if p is not None and id(p) not in self._ids]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self._ids[id(ctx)] = len(self.rows)
            self._keep.append(ctx)
            self.rows.append(self._row(ctx, parents))
        return self._ids[id(context)]

    def _row(self, ctx: Any, parents: list) -> tuple:
        if ctx is PredictionContext.EMPTY:
            return (_EMPTY,)
        ids = tuple(_NO_STATE if p is None else self._ids[id(p)] for p in parents)
        if isinstance(ctx, ArrayPredictionContext):
            return (_ARRAY, ids, tuple(ctx.returnStates))
        return (_SINGLETON, ids[0], ctx.returnState)


class _SemanticTable:
    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self._ids: dict[Any, int] = {}

    def id(self, semantic: Any) -> int:
        if semantic is SemanticContext.NONE:
            row: tuple = (_NO_PREDICATE,)
        elif type(semantic) is PrecedencePredicate:
            row = (_PRECEDENCE, semantic.precedence)
        elif type(semantic) is Predicate:
            row = (_PREDICATE, semantic.ruleIndex, semantic.predIndex, int(semantic.isCtxDependent))
        else:
            raise SnapshotError(f"a semantic context of type {type(semantic).__name__}")
        if row not in self._ids:
            self._ids[row] = len(self.rows)
            self.rows.append(row)
        return self._ids[row]


class _Tables:
    """The snapshot's contexts and semantic contexts as ANTLR objects, made on first use (most loads never
    unpack a state)."""

    def __init__(self, atn: Any, contexts: tuple, semantics: tuple) -> None:
        self.atn = atn
        self._context_rows = contexts
        self._semantic_rows = semantics
        self._contexts: list[Any] | None = None  # made on first use, each when first needed
        self._semantics: list[Any] | None = None

    def context(self, k: int) -> Any:
        """Context ``k``, made with the parents it needs on first use (an unpacked state needs few of them)."""
        made = self._contexts
        if made is None:
            made = self._contexts = [None] * len(self._context_rows)
        if made[k] is not None:
            return made[k]
        rows = self._context_rows
        stack = [k]
        while stack:  # parents are numbered before their children: the walk goes down, then makes on the way up
            j = stack[-1]
            row = rows[j]
            parents = row[1] if row[0] == _ARRAY else () if row[0] == _EMPTY else (row[1],)
            missing = [p for p in parents if p != _NO_STATE and made[p] is None]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            if made[j] is not None:
                continue
            if row[0] == _EMPTY:
                made[j] = PredictionContext.EMPTY
            elif row[0] == _ARRAY:
                made[j] = ArrayPredictionContext([None if p == _NO_STATE else made[p] for p in row[1]], list(row[2]))
            else:
                made[j] = SingletonPredictionContext(None if row[1] == _NO_STATE else made[row[1]], row[2])
        return made[k]

    @property
    def semantics(self) -> list[Any]:
        if self._semantics is None:
            made: list[Any] = []
            for row in self._semantic_rows:
                if row[0] == _NO_PREDICATE:
                    made.append(SemanticContext.NONE)
                elif row[0] == _PRECEDENCE:
                    made.append(PrecedencePredicate(row[1]))
                else:
                    made.append(Predicate(row[1], row[2], bool(row[3])))
            self._semantics = made
        return self._semantics


class _PackedConfigs(ATNConfigSet):
    """A read-only configuration set whose configurations stay packed until ANTLR first reads one of its fields
    other than its hash; then they are unpacked into an ordinary set's fields."""

    __slots__ = ("_tables", "_fields", "_packed")

    @classmethod
    def packed(cls, tables: _Tables, hashed: int, full_ctx: bool, unique: int, conflicting: tuple | None,
               semantic: bool, dips: bool, packed: bytes) -> _PackedConfigs:
        self = cls.__new__(cls)
        self.readonly = True
        self.cachedHashCode = hashed
        self._tables = tables
        self._fields = (full_ctx, unique, conflicting, semantic, dips)
        self._packed = packed
        return self

    def __getattr__(self, name: str) -> Any:
        # called only for a field not set: every field but the hash, until the configurations are unpacked
        if name.startswith("_") or not self._unpack():
            raise AttributeError(name)
        return object.__getattribute__(self, name)

    def _unpack(self) -> bool:
        try:
            packed = object.__getattribute__(self, "_packed")
        except AttributeError:
            return False
        tables = self._tables
        states, context, semantics = tables.atn.states, tables.context, tables.semantics
        values = marshal.loads(zlib.decompress(packed))
        configs = []
        for k in range(0, len(values), _CONFIG_FIELDS):
            config = ATNConfig.__new__(ATNConfig)
            config.state = states[values[k]]
            config.alt = values[k + 1]
            config.context = context(values[k + 2])
            config.semanticContext = semantics[values[k + 3]]
            config.reachesIntoOuterContext = values[k + 4]
            config.precedenceFilterSuppressed = bool(values[k + 5])
            configs.append(config)
        full_ctx, unique, conflicting, semantic, dips = self._fields
        self.configLookup = None  # as ANTLR leaves a set it has made read-only
        self.fullCtx = full_ctx
        self.configs = configs
        self.uniqueAlt = unique
        self.conflictingAlts = None if conflicting is None else set(conflicting)
        self.hasSemanticContext = semantic
        self.dipsIntoOuterContext = dips
        del self._packed
        return True
