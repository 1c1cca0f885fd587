"""Output that reads anywhere: piped into a file or a log at 80 columns, every value of a table shows whole, on a
line a reader or grep can find; a reader that stops reading ends the command with status 0."""

import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from harness.cli import main
from suites import build_suite

from .csv_tables import csv_tables


def _cli(*args, columns=80):
    return CliRunner().invoke(main, list(args), env={"COLUMNS": str(columns)})


@pytest.fixture(scope="module")
def robustness_run(tmp_path_factory):
    store = str(tmp_path_factory.mktemp("out") / "s.sqlite")
    result = _cli("--store", store, "eval", "--reward", "rule", "--suite", "robustness")
    assert result.exit_code == 0, result.output
    return store, result.stdout


def test_every_robustness_family_is_on_a_line_with_its_figure(robustness_run):
    _, out = robustness_run
    families = {r.category for r in build_suite("robustness").load().rows}
    assert len(families) > 15
    for family in families:
        assert re.search(rf"^\| {re.escape(family)}\s+\|\s+\d+\.\d \[\d+\.\d, \d+\.\d\]\s+\|$", out, re.MULTILINE), \
            f"{family} not shown with its figure and its interval"
    assert max(len(line) for line in out.splitlines()) <= 80


@pytest.mark.parametrize("columns", [80, 200])
def test_runs_and_items_keep_ids_and_dates_whole(robustness_run, columns):
    store, _ = robustness_run
    run_id = re.search(r"\d{8}-\d{6}-[0-9a-f]{6}", robustness_run[1]).group(0)
    listed = _cli("--store", store, "runs", columns=columns).stdout
    assert re.search(rf"\b{run_id}\b", listed) and re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", listed)
    items = _cli("--store", store, "show", "latest", "--items", columns=columns).stdout
    rows = build_suite("robustness").load().rows
    for i in range(len(rows)):  # each uid whole: in the table when it fits, else on a line of its own item
        assert re.search(rf"\brobust-{i:03d}\b", items)
        assert columns > 80 or re.search(rf"^{i}  uid=robust-{i:03d}  category=\S+  label=(True|False)  .*reason=\w+",
                                         items, re.MULTILINE)
    metrics = _cli("--store", store, "show", "latest", columns=columns).stdout
    rejects = sum(not r.label for r in rows)
    # names with their values and intervals
    assert re.search(rf"false_positive_rate\W+0\.0 \[0\.0, \d\.\d\]\W+{rejects}\W+lower", metrics)  # in %


def test_a_table_is_turned_then_put_a_row_a_line_only_when_it_does_not_fit():
    from harness.report import Table, as_lines, fitted, needed_width, to_rich, turned

    table = Table("t", ["run", *[f"family_{i}" for i in range(12)]], [["20261123-145044-4ad4fb", *[0.5] * 12]],
                  frozenset(range(1, 13)))
    assert fitted(table, 400) is table
    narrow = fitted(table, 80)
    assert narrow.headers == ["run", "20261123-145044-4ad4fb"] and narrow.rows[0] == ["family_0", "50.0"]
    many = Table("t", table.headers, [[f"id-{i:02d}-long-enough-to-matter", *[0.5] * 12] for i in range(6)],
                 frozenset(range(1, 13)))
    assert needed_width(turned(many)) > 80 and str(to_rich(many, 80)) == as_lines(many)
    assert as_lines(many).splitlines()[1].startswith("id-00-long-enough-to-matter  family_0=50.0  family_1=50.0")


def test_a_closed_pipe_ends_the_command_quietly_with_status_0(robustness_run):
    store, _ = robustness_run
    proc = subprocess.Popen([sys.executable, "-m", "harness", "--store", store, "show", "latest", "--items"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "80"})
    proc.stdout.readline()
    proc.stdout.close()  # the reader stops, as head does, while the command still has over 64 KB to write
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read().decode() == ""


def test_show_reads_as_fields_items_carry_their_texts_and_csv_holds_one_table(robustness_run):
    store, _ = robustness_run
    shown = _cli("--store", store, "show", "latest", columns=40).stdout  # too narrow for the box: one field a line
    assert re.search(r"^status  complete$", shown, re.MULTILINE) and "status  value=" not in shown
    items = _cli("--store", store, "show", "latest", "--items", "--format", "csv")
    import csv
    import io

    csv.field_size_limit(1 << 30)  # the suite's resource bombs are long completions, shown whole
    header = next(csv.reader(io.StringIO(items.stdout)))
    assert header.index("completion") == header.index("reference") + 1  # the items' texts, whole
    tables = csv_tables(items.stdout)  # one table: the run, its metrics and its items
    rows = tables["Items"]
    assert len(rows) == len(build_suite("robustness").load().rows) and {"Run", "Items"} < set(tables)
    first = build_suite("robustness").load().rows[0].item
    assert [rows[0]["reference"], rows[0]["completion"]] == [first.reference, first.completion]  # whole, as scored


def test_compare_names_the_runs_once(robustness_run, tmp_path):
    store, _ = robustness_run
    assert _cli("--store", store, "eval", "--reward", "rule:workers=1", "--suite", "robustness", "--limit", "40").exit_code == 0
    from harness.core.store import RunStore

    a, b = (r.id for r in RunStore(store).runs()[:2])
    compared = _cli("--store", store, "compare", a, b)
    metric_lines = [line for line in compared.stdout.splitlines() if re.match(r"^[| ]*(accuracy|f1|precision)\b", line)]
    assert metric_lines and not any(a in line or b in line for line in metric_lines)
    assert f"A = {a}" in " ".join(compared.stdout.split())
    assert compared.stderr.count("WARNING") == 1  # different data: said once, on stderr


def test_piped_runs_lines_name_only_what_needs_a_name(robustness_run):
    store, _ = robustness_run
    listed = _cli("--store", store, "runs", columns=30).stdout.splitlines()  # no box fits: a row a line
    line = next(line for line in listed if re.match(r"\d{8}-\d{6}-[0-9a-f]{6}  ", line))
    assert re.match(r"^\S+  complete  rule\S*  robustness  items=\d+  accuracy=\d+\.\d \[\d+\.\d, \d+\.\d\]  "
                    r"\d{4}-\d\d-\d\dT", line)
    assert len(line) < 140  # the same line with every header named ran to 160


@pytest.mark.parametrize("columns", [80, 120])
def test_runs_prints_one_layout_whatever_the_number_of_runs(tmp_path, columns):
    """Two runs and three print alike: a table when it fits, else a line per run; never a list turned on its side
    for two runs and lines for three."""
    store = str(tmp_path / "s.sqlite")
    layouts = []
    for n in (1, 2, 3):
        assert _cli("--store", store, "eval", "--reward", "rule:workers=1", "--suite", "sample", "--limit",
                    str(n + 1)).exit_code == 0
        listed = _cli("--store", store, "runs", columns=columns).stdout
        ids = re.findall(r"\d{8}-\d{6}-[0-9a-f]{6}", listed)
        lines = [line for line in listed.splitlines() if any(i in line for i in ids)]
        assert len(set(ids)) == n and len(lines) == n, listed  # each run on a line of its own, never turned
        layouts.append("status=" in listed or "complete" in lines[0])
    assert len(set(layouts)) == 1
