"""The saved prediction automaton: it loads into a fresh worker, it is the automaton that was saved, it is used,
and parses made with it are latex2sympy's own (plain LL's) on the real answers here. A snapshot that does not fit
is ignored. Loading needs a process whose parser has not parsed yet, so those checks run in fresh interpreters."""

from __future__ import annotations

import json
import marshal
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from suites.answers import real_answers

pytest.importorskip("math_verify")

from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy, latex2sympy  # noqa: E402

from rewards.math.dfa import snapshot as dfa_snapshot  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TAUGHT = ["x^{2} + 3x - 1", "\\frac{1}{2}", "(1, 2]", "y = 2x + 1", "\\sqrt{3} \\pi", "\\{1, 2, 3\\}"]


def _run(script: str, *args: str) -> str:
    """The last line that ``script`` prints, run in a fresh interpreter at the repository's root."""
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


_HEADER = """
import json, logging, sys
from math_verify import parse
from rewards.math.dfa import snapshot as dfa_snapshot
from rewards.math.prediction import use_two_stage_prediction
logging.getLogger("math_verify").setLevel(logging.CRITICAL)
use_two_stage_prediction()
parser = dfa_snapshot.parser_class()
def states():
    return sum(len(dfa.states) for dfa in parser.decisionsToDFA)
"""

TAKE = _HEADER + """
dfa_snapshot.pin_hashes()
for text in json.loads(sys.argv[1]):
    parse("$" + text + "$")
open(sys.argv[2], "wb").write(dfa_snapshot.take(parser))
print(states())
"""

LOAD = _HEADER + """
data = open(sys.argv[2], "rb").read()
loaded = dfa_snapshot.load(parser, data) if sys.argv[3] == "load" else False
before = states()
for text in json.loads(sys.argv[1]):
    parse("$" + text + "$")
again = dfa_snapshot.take(parser) if loaded else b""
open(sys.argv[2] + ".again", "wb").write(again)
print(json.dumps([loaded, before, states()]))
"""


def _decoded(data: bytes) -> dict:
    return marshal.loads(zlib.decompress(data))


def test_a_loaded_snapshot_is_the_automaton_saved_and_is_used(tmp_path):
    """Saved after parsing a few answers in one process, loaded in another: the states are the same (saved again,
    the two snapshots are equal, field by field, configurations unpacked included), and the same answers parsed
    again add no state, where a parser without it builds them all again."""
    path = tmp_path / "dfa.bin"
    taught = json.dumps(TAUGHT)
    saved_states = int(_run(TAKE, taught, str(path)))
    assert saved_states > 50

    loaded, before, after = json.loads(_run(LOAD, taught, str(path), "load"))
    assert (loaded, before, after) == (True, saved_states, saved_states)
    assert _decoded((tmp_path / "dfa.bin.again").read_bytes()) == _decoded(path.read_bytes())

    cold = json.loads(_run(LOAD, taught, str(path), "cold"))
    assert cold == [False, 0, saved_states]  # the same states, built again


REFUSE = _HEADER + """
results = []
for path in sys.argv[2:]:
    results.append([dfa_snapshot.load(parser, open(path, "rb").read()), states()])
for text in json.loads(sys.argv[1]):
    parse("$" + text + "$")
print(json.dumps([results, states()]))
"""


def test_a_snapshot_that_does_not_fit_is_ignored(tmp_path):
    """Another grammar's, misfiled under hashes that this Python does not give, unreadable, cut short: nothing is
    loaded, and the parser builds its own automaton."""
    path = tmp_path / "dfa.bin"
    _run(TAKE, json.dumps(TAUGHT[:2]), str(path))
    snapshot = _decoded(path.read_bytes())
    misfiled = dict(snapshot, decisions=tuple(
        (decision, precedence, start, tuple((row[0], row[1] + 1, *row[2:]) for row in rows))
        for decision, precedence, start, rows in snapshot["decisions"]))
    bad = []
    for k, data in enumerate([zlib.compress(marshal.dumps(dict(snapshot, grammar="PSParser:another:antlr4-4.9.3"))),
                              zlib.compress(marshal.dumps(misfiled)), b"not a snapshot", path.read_bytes()[:100]]):
        bad.append(tmp_path / f"bad{k}.bin")
        bad[-1].write_bytes(data)
    results, after = json.loads(_run(REFUSE, json.dumps(TAUGHT[:2]), *map(str, bad)))
    assert results == [[False, 0]] * 4 and after > 0


def test_the_shipped_snapshot_fits_the_installed_parser():
    """Fails after an upgrade of latex2sympy or of the ANTLR runtime: rebuild it with
    ``python tools/build_dfa_snapshot.py``."""
    assert dfa_snapshot.SNAPSHOT.is_file()
    assert _decoded(dfa_snapshot.SNAPSHOT.read_bytes())["grammar"] == dfa_snapshot.grammar_key(
        dfa_snapshot.parser_class())
    assert _run("from rewards.math.dfa.snapshot import load_shipped; import math_verify; print(load_shipped())") \
        == "True"


def test_the_rule_reward_workers_start_with_it():
    states = _run("from rewards.math.grader import GradingConfig; from rewards.rule import _init_grader; "
                  "from rewards.math.dfa.snapshot import parser_class; _init_grader(GradingConfig()); "
                  "print(sum(len(dfa.states) for dfa in parser_class().decisionsToDFA))")
    assert int(states) > 1000


PARSE_WITH_SNAPSHOT = """
import json, sys
from latex2sympy2_extended.latex2sympy2 import latex2sympy
from rewards.math.dfa.snapshot import load_shipped
from rewards.math.prediction import use_two_stage_prediction
use_two_stage_prediction()
assert load_shipped()
out = []
for text in json.load(open(sys.argv[1])):
    try:
        out.append(repr(latex2sympy(text)))
    except BaseException as exc:
        out.append(f"failed: {type(exc).__name__}")
json.dump(out, open(sys.argv[1], "w"))
print(len(out))
"""


def test_real_answers_parse_as_with_ll_from_the_shipped_snapshot(monkeypatch, data_root, tmp_path):
    """Every sixth distinct real answer, parsed in a worker's way (two stages, the shipped automaton), against
    latex2sympy as shipped (LL prediction, which builds no automaton it keeps across decisions)."""
    monkeypatch.setattr(_Latex2Sympy, "create_parser", _Latex2Sympy.create_parser)
    texts = real_answers()[1::6]
    assert len(texts) > 150
    expected = []
    for text in texts:
        try:
            expected.append(repr(latex2sympy(text)))
        except BaseException as exc:  # noqa: BLE001 - the failure is the outcome compared
            expected.append(f"failed: {type(exc).__name__}")
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(texts))
    assert int(_run(PARSE_WITH_SNAPSHOT, str(path))) == len(texts)
    got = json.loads(path.read_text())
    differ = [(t, e, g) for t, e, g in zip(texts, expected, got) if e != g]
    assert not differ, differ[:5]


def test_a_snapshot_that_does_not_load_says_why_in_the_log(tmp_path, monkeypatch, caplog):
    """The speed-up is not lost in silence: a missing snapshot, or one made for another Python, is a warning that
    names the cause."""
    monkeypatch.setattr(dfa_snapshot, "SNAPSHOT", tmp_path / "missing.marshal")
    with caplog.at_level("WARNING", logger="harness.rewards"):
        assert dfa_snapshot.load_shipped() is False
    assert "did not load: missing" in caplog.text
    other = tmp_path / "other.marshal"
    other.write_bytes(zlib.compress(marshal.dumps({"format": dfa_snapshot.FORMAT, "grammar": "PSParser:0:python-2.7"})))
    monkeypatch.setattr(dfa_snapshot, "SNAPSHOT", other)
    caplog.clear()
    with caplog.at_level("WARNING", logger="harness.rewards"):
        assert dfa_snapshot.load_shipped() is False
    assert "made for PSParser:0:python-2.7, not PSParser:" in caplog.text and ":python-3." in caplog.text
