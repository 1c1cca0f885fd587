"""Which run is A, which column gets which label, which runs a table shows: pinned on asymmetric fixtures, so
that a swap shows as a wrong number rather than the same number the other way round.

The fixture is real: plain math-verify (A) and the rule reward (B) on the packaged ``sample`` suite, where B is right
on 7 items A misses and A on 1 item B misses (B - A = +6 of 42 items); and the two on the human-labelled
VerifyBench-Hard subset, where B is right on 10 items A misses and A on 2 (exact McNemar p = 0.039), for the
significance marks. The counts come from the verdict ledger (docs/ledger), which a test recomputes.
"""

from __future__ import annotations

import csv
import io
import json
import re
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from statistics import NormalDist

import pytest
from click.testing import CliRunner
from scipy import stats

from harness.cli import main
from harness.core import server_client
from harness.core.items import Item
from harness.core.store import ItemRow, Metric, NewRun, RunKind, RunStore
from harness.core.uncertainty import half_width_stderr, normal_interval, wilson
from harness.evaluate import EvalRequest, evaluate_reward
from harness.policy_eval import policy_metrics
from harness.tables import RUN_KINDS, TABLES, paper_table
from rewards import build_reward

from .csv_tables import csv_tables

VBH = "verifier/verifybench_hard_subset_longjudgebench"
Z95 = stats.norm.ppf(0.975)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(store path, A's run id, B's run id) on ``sample``."""
    path = tmp_path_factory.mktemp("direction") / "runs.sqlite"
    store = RunStore(path)
    a = evaluate_reward(EvalRequest("mathverify", "sample"), store)
    b = evaluate_reward(EvalRequest("rule", "sample"), store)
    return path, a.id, b.id


@pytest.fixture(scope="module")
def hard_runs(tmp_path_factory, data_root):
    """(store path, A's run id, B's run id) on the VerifyBench-Hard subset."""
    path = tmp_path_factory.mktemp("direction-hard") / "runs.sqlite"
    store = RunStore(path)
    a = evaluate_reward(EvalRequest("mathverify", "verifybench-hard", data=VBH), store)
    b = evaluate_reward(EvalRequest("rule", "verifybench-hard", data=VBH), store)
    return path, a.id, b.id


def _json_tables(output: str) -> dict[str, dict]:
    """The tables of a ``--format json`` output (one list of tables) by title."""
    return {table["title"]: table for table in json.loads(output)}


def _cli(path, *args: str) -> str:
    result = CliRunner().invoke(main, ["--store", str(path), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _check_paired(tables: dict[str, dict], right_a: int, right_b: int, only_a: int, only_b: int, n: int = 42):
    [paired] = tables["Accuracy, B against A"]["rows"]
    assert paired["A"] == pytest.approx(right_a / n) and paired["B"] == pytest.approx(right_b / n)
    assert paired["B - A"] == pytest.approx((right_b - right_a) / n)
    assert (paired["right only in A"], paired["right only in B"]) == (only_a, only_b)
    flipped = next(t for title, t in tables.items() if title.startswith("Flipped items"))["rows"]
    assert len(flipped) == only_a + only_b
    under = [row["right under"] for row in flipped]
    assert (under.count("A"), under.count("B")) == (only_a, only_b)
    for row in flipped:  # the column names the run whose verdict agrees with the label
        assert row["right under"] == ("A" if row["A verdict"] == row["label"] else "B"), row


def test_compare_names_a_and_b_in_the_order_given(runs):
    path, a, b = runs
    tables = _json_tables(_cli(path, "compare", a, b, "--format", "json"))
    _check_paired(tables, 34, 40, 1, 7)
    by_run = [row["reward"] for row in tables["Accuracy by answer type (%)"]["rows"]]
    assert by_run == ["mathverify", "rule"]
    [accuracy] = [row for row in tables[f"{a} -> {b}"]["rows"] if row["metric"] == "accuracy"]
    assert accuracy[a] == pytest.approx(34 / 42) and accuracy[b] == pytest.approx(40 / 42)
    assert accuracy["change"] == pytest.approx(6 / 42)
    assert accuracy["verdict"] == "no difference shown"  # 7 flips against 1: McNemar p = 0.07
    rows = {row["metric"]: row for row in tables[f"{a} -> {b}"]["rows"]}
    tested = {"accuracy", "macro_accuracy", "precision", "recall", "f1"} | {m for m in rows if m.startswith("accuracy/")}
    assert {m for m, row in rows.items() if row["verdict"]} == tested  # the rest have no test, so no verdict
    for name in tested:  # better or worse exactly where the paired interval leaves 0 out
        row, low, high = rows[name], rows[name].get("change low"), rows[name].get("change high")
        shown = low is not None and (low > 0 or high < 0)
        assert row["verdict"] == ("better" if shown and row["change"] > 0 else "worse" if shown else
                                  "no difference shown"), row
    # recall is the accuracy on the 26 items labelled correct: there the flips are 7 to rule, 1 to mathverify
    flipped = next(t for title, t in tables.items() if title.startswith("Flipped items"))["rows"]
    positive = [r["right under"] for r in flipped if r["label"] is True]
    assert rows["recall"]["change"] == pytest.approx((positive.count("B") - positive.count("A")) / 26)
    assert rows["recall"]["verdict"] == "no difference shown"  # 6 net of 26: exact McNemar p = 0.07
    assert rows["precision"]["change"] == 0 and rows["precision"].get("change low") is None  # no swap moves it
    # the other way round, every figure turns: B - A negative, the columns swapped
    _check_paired(_json_tables(_cli(path, "compare", b, a, "--format", "json")), 40, 34, 7, 1)


def test_rescore_compares_the_source_as_a_with_the_new_run_as_b(runs):
    path, a, b = runs
    tables = _json_tables(_cli(path, "rescore", a, "--reward", "rule", "--format", "json"))
    _check_paired(tables, 34, 40, 1, 7)
    tables = _json_tables(_cli(path, "rescore", b, "--reward", "mathverify", "--format", "json"))
    _check_paired(tables, 40, 34, 7, 1)


def test_compare_calls_a_change_better_or_worse_only_when_its_test_rejects(hard_runs):
    """10 flips B's way against 2 (p = 0.039): B is better than A, and A worse than B."""
    path, a, b = hard_runs
    for first, second, verdict in ((a, b, "better"), (b, a, "worse")):
        tables = _json_tables(_cli(path, "compare", first, second, "--format", "json"))
        [accuracy] = [r for r in tables[f"{first} -> {second}"]["rows"] if r["metric"] == "accuracy"]
        assert accuracy["verdict"] == verdict


def test_the_verifiers_layout_marks_the_significant_difference_with_its_sign(hard_runs):
    path, hard_a, hard_b = hard_runs
    text = _cli(path, "tables", "--layout", "verifiers", hard_a, hard_b, "--format", "markdown")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    assert "*" in rows["rule"].split("|")[2]  # VerifyBench-Hard: 10 against 1, p = 0.012
    assert "*" not in rows["mathverify"]  # the baseline is never marked against itself
    assert ("rule - mathverify on VerifyBench-Hard: +2.8 points" in text
            and "(10 items right only under rule, 1 only under mathverify, of 316)" in text), text


def _dead_run(store: RunStore, status: str, kind: str = "reward-eval") -> str:
    run_id = store.begin(NewRun(kind, "rule", "sample", "package:sample.jsonl", "", 42, {}, {}))
    store.abort(run_id, status, "stopped for the test")
    return run_id


@pytest.mark.parametrize("layout", sorted(TABLES))
def test_every_layout_leaves_failed_and_interrupted_runs_out(runs, layout):
    path, a, b = runs
    store = RunStore(path)
    kind = RUN_KINDS[layout]
    dead = [_dead_run(store, "failed", kind), _dead_run(store, "interrupted", kind)]
    live = [store.get(r) for r in (a, b)] if kind == "reward-eval" else []
    records = [*live, *(store.get(r) for r in dead)]
    table = paper_table(layout, records, None, "none", items_of=lambda run: store.items(run.id))
    shown = json.dumps(table.rows, default=str)
    for run_id in dead:
        assert run_id not in shown
        assert any(run_id in note for note in table.notes)  # said, not silently dropped
    alone = paper_table(layout, live, None, "none", items_of=lambda run: store.items(run.id))
    assert table.rows == alone.rows


def test_the_tables_command_leaves_out_a_failed_run_named_on_its_line(runs):
    path, a, b = runs
    dead = _dead_run(RunStore(path), "failed")
    out = _cli(path, "tables", "--layout", "verifybench", a, b, dead, "--format", "markdown")
    assert f"left out: {dead} (failed" in out
    body = [line for line in out.splitlines() if line.startswith("| ")]
    assert len(body) == 3  # the header and the two complete runs


# -- intervals at known values ---------------------------------------------------------------------------------
def test_the_95_percent_intervals_use_the_two_sided_z():
    assert NormalDist().inv_cdf(0.975) == pytest.approx(1.959964, abs=1e-6)
    low, high = normal_interval(0.5, 0.1)
    assert (low, high) == (pytest.approx(0.5 - Z95 * 0.1), pytest.approx(0.5 + Z95 * 0.1))
    assert half_width_stderr((low, high)) == pytest.approx(0.1)
    # Wilson at 0 of 3 by hand: the centre and half-width are both (z^2 / 2n) / (1 + z^2 / n)
    edge = (Z95 ** 2 / 6) / (1 + Z95 ** 2 / 3)
    assert wilson(0, 3) == (0.0, pytest.approx(2 * edge))


def _policy_items(samples: dict[str, list[bool]], bench: str = "gsm8k") -> list[ItemRow]:
    return [ItemRow(k, f"{bench}/{p}/{s}", bench, None, 1.0, v, "verified", None, 0.0)
            for k, (p, s, v) in enumerate((p, s, v) for p, vs in samples.items() for s, v in enumerate(vs))]


def test_a_policys_interval_is_the_95_percent_wilson_interval_over_problems():
    """Four problems with 2 samples each, right 2, 0, 1, 2 times: per-problem rates 1, 0, .5, 1, mean .625 over
    4 problems; statsmodels' Wilson interval of 2.5 of 4 at z = 1.96."""
    from statsmodels.stats.proportion import proportion_confint

    rates = {"p1": [True, True], "p2": [False, False], "p3": [True, False], "p4": [True, True]}
    [per_bench, overall] = policy_metrics(_policy_items(rates), ["gsm8k"])
    low, high = proportion_confint(2.5, 4, alpha=0.05, method="wilson")
    assert per_bench.value == pytest.approx(0.625) and per_bench.n == 4
    assert (per_bench.low, per_bench.high) == (pytest.approx(low), pytest.approx(high))
    assert overall.low == pytest.approx(max(0.0, 0.625 - Z95 * half_width_stderr((low, high))))
    assert isinstance(per_bench, Metric)


def test_a_policys_interval_never_collapses():
    """0 of 3 problems right: the normal interval of a standard error of 0 printed 0.0 [0.0, 0.0]."""
    for samples in ({"p1": [False], "p2": [False], "p3": [False]}, {"p1": [True] * 4, "p2": [True] * 4}):
        [per_bench, overall] = policy_metrics(_policy_items(samples), ["gsm8k"])
        assert per_bench.low < per_bench.high and overall.low < overall.high
        assert per_bench.low <= per_bench.value <= per_bench.high
    [none_right, _] = policy_metrics(_policy_items({"p1": [False], "p2": [False], "p3": [False]}), ["gsm8k"])
    assert (none_right.low, none_right.high) == (0.0, pytest.approx(0.5615, abs=1e-4))


# -- the server client: which answers are tried again, and the token --------------------------------------------
class _Scripted(BaseHTTPRequestHandler):
    """Answers with the statuses of ``script`` in turn, then OpenRLHF's answer; records each request's headers."""

    script: list[int] = []
    seen: list[dict[str, str]] = []

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length))
        type(self).seen.append(dict(self.headers))
        status = type(self).script.pop(0) if type(self).script else 200
        answer = {"rewards": [1.0] * len(body["query"])} if status == 200 else {"error": "scripted"}
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def scripted(monkeypatch):
    monkeypatch.setattr(server_client, "RETRY_DELAYS_S", (0.01, 0.01))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Scripted.seen = []
    yield server, f"http://127.0.0.1:{server.server_address[1]}/get_reward"
    server.shutdown()
    server.server_close()


def _score_once(url: str, spec_extra: str = "") -> list:
    reward = build_reward(f"remote:url={url},timeout=5{spec_extra}")
    try:
        return reward.score([Item("q", "1", "\\boxed{1}")])
    finally:
        reward.close()


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_every_5xx_is_tried_again(scripted, status):
    _, url = scripted
    _Scripted.script = [status]
    [score] = _score_once(url)
    assert len(_Scripted.seen) == 2 and score.verdict is True


@pytest.mark.parametrize("status", [400, 404, 413, 422])
def test_no_4xx_is_tried_again(scripted, status):
    _, url = scripted
    _Scripted.script = [status]
    [score] = _score_once(url)
    assert len(_Scripted.seen) == 1 and score.is_failure and str(status) in score.detail


def test_remote_sends_the_token_of_the_environment_and_an_option_overrides_it(scripted, monkeypatch):
    _, url = scripted
    monkeypatch.setenv("HARNESS_SERVER_TOKEN", "from-the-environment")
    _score_once(url)
    _score_once(url, ",token=from-the-option")
    monkeypatch.delenv("HARNESS_SERVER_TOKEN")
    _score_once(url)
    sent = [h.get("Authorization") for h in _Scripted.seen]
    assert sent == ["Bearer from-the-environment", "Bearer from-the-option", None]


# -- what each column shows, in every format ---------------------------------------------------------------------
def _percent(successes: int, n: int) -> tuple[str, str, str]:
    low, high = wilson(successes, n)
    return f"{100 * successes / n:.1f}", f"{100 * low:.1f}", f"{100 * high:.1f}"


def test_the_paired_row_gives_each_run_its_own_wilson_interval(runs):
    path, a, b = runs
    [paired] = _json_tables(_cli(path, "compare", a, b, "--format", "json"))["Accuracy, B against A"]["rows"]
    assert (paired["A low"], paired["A high"]) == tuple(pytest.approx(x) for x in wilson(34, 42))
    assert (paired["B low"], paired["B high"]) == tuple(pytest.approx(x) for x in wilson(40, 42))


def test_markdown_and_csv_print_each_bound_as_the_json_holds_it(runs):
    """mathverify 34 of 42 and rule 40 of 42: the terminal's and Markdown's "95.2 [84.2, 98.7]", CSV's columns."""
    path, a, b = runs
    text = _cli(path, "runs", "--format", "markdown")
    for run_id, right in ((a, 34), (b, 40)):
        value, low, high = _percent(right, 42)
        [line] = [line for line in text.splitlines() if run_id in line]
        assert f"{value} [{low}, {high}]" in line
    rows = list(csv.DictReader(io.StringIO(_cli(path, "runs", "--format", "csv"))))
    by_run = {row["run"]: row for row in rows}
    for run_id, right in ((a, 34), (b, 40)):
        value, low, high = _percent(right, 42)
        assert (by_run[run_id]["accuracy"], by_run[run_id]["accuracy low"], by_run[run_id]["accuracy high"]) == \
            (value, low, high)


def test_markdown_notes_are_numbered_from_one(runs):
    path, a, b = runs
    text = _cli(path, "show", a, "--format", "markdown")
    notes = [line for line in text.splitlines() if re.match(r"^\d+\. ", line)]
    assert notes and notes[0].startswith("1. ")
    assert [int(line.split(".")[0]) for line in notes] == list(range(1, len(notes) + 1))


def test_comparability_names_what_differs_and_nothing_when_nothing_does(runs, hard_runs):
    from harness.report import comparability

    path, a, b = runs
    store = RunStore(path)
    ra, rb = store.get(a), store.get(b)
    assert comparability(ra, rb) == [] and comparability(rb, ra) == []
    hard = RunStore(hard_runs[0]).get(hard_runs[1])
    for first, second in ((ra, hard), (hard, ra)):  # either way round
        [why] = comparability(first, second)
        assert "different suites" in why and first.suite in why and second.suite in why
    other_data = replace(ra, data_hash="0" * 64)
    for first, second in ((ra, other_data), (other_data, ra)):
        [why] = comparability(first, second)
        assert "different data" in why


def test_an_estimate_prints_its_spread_only_when_it_has_one():
    from harness.report import Estimate

    assert Estimate(0.5, 0.4, 0.6).text(100, 1) == "50.0 [40.0, 60.0]"
    assert Estimate(0.5, spread="sd", error=0.02).text(100, 1) == "50.0 ± 2.0"
    assert Estimate(0.5, error=0.02).text(100, 1) == "50.0"  # an error without its kind is no spread
    assert Estimate(0.5, 0.4, 0.6, spread="sd").text(100, 1) == "50.0 [40.0, 60.0]"  # a kind without an error


def test_the_library_compare_table_names_its_columns_by_run_for_files(runs):
    from harness.report import compare_table

    path, a, b = runs
    store = RunStore(path)
    table = compare_table(store.get(a), store.get(b))
    assert table.headers == ["metric", a, b, "change", "verdict"]


def test_a_flipped_items_completion_is_shown_whole_when_short_and_by_its_end_when_long(runs):
    from harness.core.store import ItemText
    from harness.report import flipped_table

    path, a, b = runs
    store = RunStore(path)
    items_a, items_b = store.items(a), store.items(b)
    flips = [x.idx for x, y in zip(items_a, items_b) if (x.verdict is True) != (y.verdict is True)][:4]
    ends = ("The answer is 7.", "x" * 80, "y" * 81, "We work it out. " * 10 + "The answer is 7.")
    texts = {x.idx: ItemText("q", "7", "x") for x in items_a} | dict(zip(flips, (ItemText("q", "7", e) for e in ends)))
    shown = {row[0]: row[-1] for row in flipped_table(store.get(a), items_a, items_b, None, texts).rows}
    assert [shown[i] for i in flips] == [ends[0], ends[1], "…" + ends[2][-80:], "…" + ends[3][-80:]]


def test_show_items_gives_a_completion_whole_up_to_60_characters_and_its_end_beyond(runs):
    from harness.core.store import ItemText
    from harness.report import items_table

    path, a, _ = runs
    store = RunStore(path)
    items = store.items(a)[:3]
    ends = ("x" * 60, "y" * 61, "z" * 20 + "\n" + "w" * 50)
    kept = {it.idx: ItemText("q", "7", end) for it, end in zip(items, ends)}
    rows = items_table(store.get(a), items, False, kept).rows
    assert [row[-1] for row in rows] == [ends[0], "…" + ends[1][-60:], "…" + ends[2][-60:].replace("\n", " ")]
    assert [row[-1] for row in items_table(store.get(a), items, True, kept).rows] == list(ends)


def test_show_names_a_commit_as_clean_changed_or_unknown():
    from harness.report import _commit_text

    assert _commit_text({"commit": "0abc", "dirty": "false"}) == "0abc"
    assert _commit_text({"commit": "0abc", "dirty": "true"}) == "0abc (with uncommitted changes)"
    assert _commit_text({"commit": "0abc"}) == "0abc (changes unknown)"
    assert _commit_text({"commit": "zzz9", "dirty": "unknown"}) == "zzz9 (changes unknown)"
    assert _commit_text({}) == "unknown"


def test_csv_gives_a_figure_that_is_no_share_as_json_does(tmp_path):
    """A mean that is no share (valid pairs per update, over seeds, with its spread) is printed as it is: CSV's cell
    is JSON's number, not a percentage and not rescaled. The committed training store of the third Cooper test."""
    import shutil
    from pathlib import Path

    committed = Path(__file__).resolve().parents[2] / "docs/cpu_scale/cooper_released/runs.sqlite"
    if not committed.is_file():  # a tree without docs/ (the mutation tool's copies)
        pytest.skip("the committed training store is not in this tree")
    store = tmp_path / "runs.sqlite"
    shutil.copyfile(committed, store)
    [table] = json.loads(_cli(store, "tables", "--layout", "training", "--format", "json"))
    [rows] = csv_tables(_cli(store, "tables", "--layout", "training", "--format", "csv")).values()
    assert len(rows) == len(table["rows"])
    pairs = [(exact, printed) for exact, printed in zip(table["rows"], rows) if exact["valid pairs/update"]]
    assert len(pairs) >= 2  # the Cooper settings; the static and rule rows make no pairs
    for exact, printed in pairs:
        for column in ("valid pairs/update", "valid pairs/update sd"):
            assert exact[column] > 0.1 and float(printed[column]) == pytest.approx(exact[column], abs=1e-4), column


def test_an_unpaired_difference_has_the_normal_interval_of_both_runs_intervals(runs, hard_runs):
    """Runs on different items (the sample suite and the VerifyBench-Hard subset): no paired test, and B - A's
    interval is the normal one from the two Wilson intervals' half-widths."""
    path, a, _ = runs
    hard_path, _, hard_b = hard_runs
    merged = path.parent / "merged.sqlite"
    RunStore(path).export(merged)
    import sqlite3

    with sqlite3.connect(merged) as db:
        db.execute("ATTACH ? AS other", (str(hard_path),))
        for table in ("runs", "items", "metrics", "texts", "owners"):
            db.execute(f"INSERT OR IGNORE INTO {table} SELECT * FROM other.{table} WHERE run_id = ?"
                       if table != "runs" else "INSERT OR IGNORE INTO runs SELECT * FROM other.runs WHERE id = ?",
                       (hard_b,))
    tables = _json_tables(_cli(merged, "compare", a, hard_b, "--format", "json"))
    [row] = tables["Accuracy, B against A"]["rows"]
    assert row["comparison"] == "unpaired (different items)"
    assert row["significant"] == "no"  # +11.5 points, but its interval holds 0
    ia, ib = wilson(34, 42), wilson(292, 316)
    se = (half_width_stderr(ia) ** 2 + half_width_stderr(ib) ** 2) ** 0.5
    difference = 292 / 316 - 34 / 42
    assert row["B - A"] == pytest.approx(difference)
    assert (row["B - A low"], row["B - A high"]) == (pytest.approx(difference - Z95 * se),
                                                     pytest.approx(difference + Z95 * se))


def test_csv_prints_a_change_in_points_as_the_table_does(runs):
    path, a, b = runs
    rows = list(csv.DictReader(io.StringIO(_cli(path, "compare", a, b, "--format", "csv"))))
    [accuracy] = [row for row in rows if row["metric"] == "accuracy"]
    assert accuracy["change"] == f"{100 * 6 / 42:.1f}"


def test_runs_on_different_data_are_not_paired_even_with_the_same_item_ids(tmp_path):
    """The sample suite and a copy of it with one completion changed: the same ids, labels and order, other data."""
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "suites" / "data" / "sample.jsonl"
    lines = sample.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["completion"] += " (checked twice)"
    changed = tmp_path / "changed.jsonl"
    changed.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n", encoding="utf-8")
    store = RunStore(tmp_path / "runs.sqlite")
    a = evaluate_reward(EvalRequest("rule", "sample"), store)
    b = evaluate_reward(EvalRequest("rule", "sample", data=str(changed)), store)
    assert [i.uid for i in store.items(a.id)] == [i.uid for i in store.items(b.id)]
    [row] = _json_tables(_cli(tmp_path / "runs.sqlite", "compare", a.id, b.id, "--format", "json"))[
        "Accuracy, B against A"]["rows"]
    assert row["comparison"] == "unpaired (different items)"


def _csv_matches_json(path, *command: str) -> dict[str, list[dict[str, str]]]:
    """The command's CSV loads as one table holding every table of its JSON, row for row, with every column
    JSON has (an estimate's bounds and its mark included) and every note."""
    as_json = json.loads(_cli(path, *command, "--format", "json"))
    text = _cli(path, *command, "--format", "csv")
    header = next(csv.reader(io.StringIO(text)))
    tables = csv_tables(text)
    for table in as_json:
        assert len(tables.get(table["title"], [])) == len(table["rows"]), table["title"]
        columns = {c for row in table["rows"] for c, v in row.items() if v not in (None, "")}
        assert columns <= set(header), (table["title"], columns - set(header))
        for note in table.get("notes", []):
            assert note in text
    assert set(tables) == {t["title"] for t in as_json}
    return tables


def test_every_commands_csv_is_one_table_holding_what_its_json_holds(runs, hard_runs):
    path, a, b = runs
    _csv_matches_json(path, "show", a, "--items")
    _csv_matches_json(path, "compare", a, b)
    _csv_matches_json(path, "runs")
    hard, hard_a, hard_b = hard_runs
    tables = _csv_matches_json(hard, "tables", "--layout", "verifiers", hard_a, hard_b)
    [rows] = tables.values()  # the significance mark has a column: rule's VerifyBench-Hard figure, not the baseline's
    marks = {r["Reward"]: {k: v for k, v in r.items() if k.endswith(" mark")} for r in rows}
    assert marks["rule"] and set(marks["rule"].values()) == {"*"} and not marks["mathverify"], marks


def test_eval_and_rescore_print_one_csv_table(tmp_path):
    store = tmp_path / "runs.sqlite"
    evaluated = csv_tables(_cli(store, "eval", "--reward", "rule", "--suite", "sample", "--limit", "6",
                                "--format", "csv"))
    assert len(evaluated) == 2 and any(t.startswith("Metrics") for t in evaluated)
    rescored = _csv_matches_json(store, "rescore", RunStore(store).get("latest").id, "--reward", "mathverify")
    assert "Accuracy, B against A" in rescored and any(t.startswith("Flipped items") for t in rescored)


def _policy_run(store: RunStore, samples: dict[str, list[bool]]) -> str:
    items = _policy_items(samples)
    with store.recording(NewRun(RunKind.POLICY_EVAL, "rule", "math:gsm8k", "m", "", len(samples), {}, {})) as run_id:
        store.complete(run_id, items, policy_metrics(items, ["gsm8k"]), 1.0)
    return run_id


def test_two_policies_are_compared_paired_by_problem(tmp_path):
    """Eight samples a problem, twelve problems. B is right more often on ten problems, by 1/8 each; A on none.
    By problem: B - A = 10 * (1/8) / 12 = +10.4 points, and the exchange test over problems gives p = 2/2^10
    (only the all-one-way assignments are as far from 0), so B is better. Over samples the same data are 10
    flips against 0 as well, but the problems, not the samples, are the units: the table says paired by problem."""
    store = RunStore(tmp_path / "runs.sqlite")
    a_samples = {f"p{i}": [True] * 4 + [False] * 4 for i in range(12)}
    b_samples = {f"p{i}": [True] * (5 if i < 10 else 4) + [False] * (3 if i < 10 else 4) for i in range(12)}
    a, b = _policy_run(store, a_samples), _policy_run(store, b_samples)
    tables = _json_tables(_cli(tmp_path / "runs.sqlite", "compare", a, b, "--format", "json"))
    [overall, bench] = tables["Accuracy, B against A, paired by problem"]["rows"]
    assert overall["metric"] == "accuracy" and bench["metric"] == "accuracy/GSM8K" and overall["problems"] == 12
    assert overall["B - A"] == pytest.approx(10 / 8 / 12)
    assert overall["randomization p"] == pytest.approx(2 / 2 ** 10, abs=0.002)
    assert overall["significant"] == "yes" and overall["B - A low"] > 0
    [accuracy] = [r for r in tables[f"{a} -> {b}"]["rows"] if r["metric"] == "accuracy"]
    assert accuracy["verdict"] == "better" and accuracy["change low"] == pytest.approx(overall["B - A low"])
    backward = _json_tables(_cli(tmp_path / "runs.sqlite", "compare", b, a, "--format", "json"))
    [turned, _] = backward["Accuracy, B against A, paired by problem"]["rows"]
    assert turned["B - A"] == pytest.approx(-10 / 8 / 12) and turned["B - A high"] < 0
    [worse] = [r for r in backward[f"{b} -> {a}"]["rows"] if r["metric"] == "accuracy"]
    assert worse["verdict"] == "worse"
    fields = {r["field"]: r["value"] for r in _json_tables(_cli(tmp_path / "runs.sqlite", "show", a,
                                                                 "--format", "json"))["Run"]["rows"]}
    assert fields["model"] == "m" and "data" not in fields  # a policy has a model, not a data file with a hash


def test_compare_tests_two_policies_once(tmp_path, monkeypatch):
    """The metric rows and the paired table show one randomization test a benchmark, computed once a command (it
    was run twice, once for each table)."""
    import harness.policy_eval

    store = RunStore(tmp_path / "runs.sqlite")
    a = _policy_run(store, {f"p{i}": [True] * 4 + [False] * 4 for i in range(6)})
    b = _policy_run(store, {f"p{i}": [True] * 5 + [False] * 3 for i in range(6)})
    calls = []
    real = harness.policy_eval.paired_by_problem
    monkeypatch.setattr(harness.policy_eval, "paired_by_problem", lambda *args: calls.append(1) or real(*args))
    tables = _json_tables(_cli(tmp_path / "runs.sqlite", "compare", a, b, "--format", "json"))
    [overall, _] = tables["Accuracy, B against A, paired by problem"]["rows"]
    [accuracy] = [r for r in tables[f"{a} -> {b}"]["rows"] if r["metric"] == "accuracy"]
    assert len(calls) == 1 and accuracy["change low"] == pytest.approx(overall["B - A low"])


def test_runs_with_the_same_verdicts_print_no_empty_flipped_table(runs):
    path, a, _ = runs
    titles = _json_tables(_cli(path, "compare", a, a, "--format", "json"))
    assert "Accuracy, B against A" in titles and not any(t.startswith("Flipped items") for t in titles)


def test_policies_with_one_problem_moved_show_no_difference(tmp_path):
    """One problem of twelve moves by all eight samples: 8 flips over samples (McNemar p = 0.008 would call it),
    one problem by problem (p = 1): no difference shown."""
    store = RunStore(tmp_path / "runs.sqlite")
    a = _policy_run(store, {f"p{i}": [i % 2 == 0] * 8 for i in range(12)})
    b = _policy_run(store, {f"p{i}": [i % 2 == 0 or i == 1] * 8 for i in range(12)})
    tables = _json_tables(_cli(tmp_path / "runs.sqlite", "compare", a, b, "--format", "json"))
    [overall, _] = tables["Accuracy, B against A, paired by problem"]["rows"]
    assert overall["B - A"] == pytest.approx(1 / 12) and overall["significant"] == "no" and overall["B - A low"] <= 0
    [accuracy] = [r for r in tables[f"{a} -> {b}"]["rows"] if r["metric"] == "accuracy"]
    assert accuracy["verdict"] == "no difference shown"
