"""Policy evaluations keep every generation, and any stored evaluation is re-scored by another reward without
generating again: the new run names its source and is compared with it item by item."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.core.records import NewRun, RunKind, RunStatus
from harness.core.store import RunStore
from harness.policy_eval import _Scored, process_results
from tests.models import require_packaged_smollm2


def _cli(store, *args):
    result = CliRunner().invoke(main, ["--store", str(store), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_a_policy_evaluation_interrupted_part_way_keeps_what_it_scored(tmp_path):
    """Each problem's samples are stored as lm-eval hands them over; an interruption leaves them, with their
    texts, and no metrics."""
    store = RunStore(tmp_path / "s.sqlite")
    run_id = store.begin(NewRun(RunKind.POLICY_EVAL, "rule", "math:gsm8k", "m", "", 0, {"benchmarks": ["gsm8k"]}, {}))
    _Scored.store, _Scored.run_id, _Scored.next_idx = store, run_id, 0
    try:
        process_results({"prompt": "1+1?", "answer": "2", "benchmark": "gsm8k", "problem": 0},
                        [["so \\boxed{2}", "so \\boxed{3}"]])
        process_results({"prompt": "2+2?", "answer": "4", "benchmark": "gsm8k", "problem": 1}, [["#### 4", "4?"]])
    finally:
        _Scored.store = None
    store.abort(run_id, RunStatus.INTERRUPTED, "KeyboardInterrupt")
    items, texts = store.items(run_id), store.texts(run_id)
    assert [i.uid for i in items] == ["gsm8k/0/0", "gsm8k/0/1", "gsm8k/1/0", "gsm8k/1/1"]
    assert [i.verdict for i in items][:3] == [True, False, True]
    assert texts[1].completion == "so \\boxed{3}" and texts[2].question == "2+2?" and texts[3].reference == "4"
    assert store.get(run_id).metrics == []  # numbers only with a complete run


def test_an_evaluation_is_rescored_with_another_reward_and_compared_item_by_item(tmp_path, data_root):
    store_file = tmp_path / "s.sqlite"
    _cli(store_file, "eval", "--reward", "rule:workers=1", "--suite", "processbench", "--limit", "120")
    source = RunStore(store_file).runs()[0]
    out = _cli(store_file, "rescore", source.id, "--reward", "mathverify:gold=raw,workers=1", "--format", "json")
    store = RunStore(store_file)
    rescored = store.runs()[0]
    assert rescored.id != source.id and rescored.config["rescored_from"] == source.id
    assert rescored.reward == "mathverify:gold=raw,workers=1" and rescored.data_hash == source.data_hash
    assert [i.uid for i in store.items(rescored.id)] == [i.uid for i in store.items(source.id)]
    tables = {t["title"].split(" (")[0]: t for t in json.loads(out.stdout)}
    [paired] = tables["Accuracy, B against A"]["rows"]
    assert paired["comparison"] == "paired (same items)" and paired["McNemar p"] is not None
    assert len(tables["Flipped items"]["rows"]) == paired["right only in A"] + paired["right only in B"]


def test_a_run_that_kept_nothing_is_refused_in_one_line(tmp_path):
    store = RunStore(tmp_path / "s.sqlite")
    with store.recording(NewRun(RunKind.POLICY_EVAL, "rule", "math:gsm8k", "m", "", 1, {}, {})) as run_id:
        store.complete(run_id, [], [], 1.0)
    result = CliRunner().invoke(main, ["--store", str(tmp_path / "s.sqlite"), "rescore", run_id, "--reward", "rule"])
    assert result.exit_code == 1 and "kept no generations" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_eval_policy_stores_every_generation_and_rescoring_pays_them_again_without_generating(tmp_path, data_root):
    """SmolLM2-135M on three GSM8K problems, greedy: every completion is an item with its text; --reward
    mathverify scores the same texts in a run of its own, paired with the first."""
    require_packaged_smollm2()
    store_file = tmp_path / "s.sqlite"
    done = _cli(store_file, "eval-policy", "--model", "smollm2-135m", "--suites", "gsm8k", "--preset", "greedy",
                "--limit", "3", "--max-gen-toks", "48", "--reward", "mathverify:workers=1", "--format", "json")
    assert "eval-policy: scored: 3/3 problems" in done.stderr  # the progress line knows its total
    store = RunStore(store_file)
    first, second = sorted(store.runs(kind="policy-eval"), key=lambda r: "rescored_from" in r.config)
    items, texts = store.items(first.id), store.texts(first.id)
    assert len(items) == len(texts) == 3 and [i.uid for i in items] == ["gsm8k/0/0", "gsm8k/1/0", "gsm8k/2/0"]
    assert all(t.completion and t.reference and t.question for t in texts.values())
    assert first.metric("accuracy/GSM8K") == sum(i.verdict is True for i in items) / 3
    assert second.config["rescored_from"] == first.id and second.reward == "mathverify:workers=1"
    assert store.texts(second.id) == texts  # the same generations, scored again
    shown = _cli(store_file, "show", first.id, "--items", "--format", "json").stdout
    [items_table] = [t for t in json.loads(shown) if t["title"] == "Items"]
    assert [r["completion"] for r in items_table["rows"]] == [texts[i].completion for i in range(3)]
    compared = json.loads(_cli(store_file, "compare", first.id, second.id, "--format", "json").stdout)
    # two policy evaluations are compared problem by problem (a row per benchmark where some problem moved)
    [paired] = [t for t in compared if t["title"] == "Accuracy, B against A, paired by problem"]
    moved = any(x.verdict != y.verdict for x, y in zip(items, store.items(second.id)))
    assert bool(paired["rows"]) == moved


def test_rescore_show_and_compare_read_the_path_the_run_recorded_first(tmp_path, data_root, monkeypatch):
    """A run made with --data relative to the data root: later, with another data root set (or none), the data
    file in place and unchanged is read from the path the run recorded, and rescore says where from."""
    store_file = tmp_path / "s.sqlite"
    _cli(store_file, "eval", "--reward", "rule:workers=1", "--suite", "verifybench-hard", "--data",
         "verifier/verifybench_hard_subset_longjudgebench", "--limit", "6")
    source = RunStore(store_file).runs()[0]
    assert source.config["data"] == "verifier/verifybench_hard_subset_longjudgebench"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("HARNESS_DATA_ROOT", str(elsewhere))  # the relative --data no longer resolves
    monkeypatch.chdir(elsewhere)
    done = CliRunner().invoke(main, ["--store", str(store_file), "rescore", source.id, "--reward",
                                     "mathverify:workers=1"])
    assert done.exit_code == 0, done.output
    assert f"texts read from {source.data_source}" in done.stderr
    shown = CliRunner().invoke(main, ["--store", str(store_file), "show", source.id, "--items", "--format", "json"])
    [items] = [t for t in json.loads(shown.stdout) if t["title"] == "Items"]
    assert "completion" in items["rows"][0] and not items.get("notes")


def _policy_run(store: RunStore, completions: list[tuple[str, str, str]], status: str = "complete") -> str:
    """A stored policy evaluation of two GSM8K problems, two samples each, scored by the rule at the time:
    ``completions`` are (uid, reference, completion), in problem order."""
    from harness.core.records import ItemRow, ItemText
    from harness.policy_eval import policy_metrics

    run = NewRun(RunKind.POLICY_EVAL, "rule", "math:gsm8k", "lm-eval:gsm8k", "hash-1", len(completions),
                 {"benchmarks": ["gsm8k"], "model": "m"}, {})
    run_id = store.begin(run)
    texts = [ItemText(f"question {uid}", ref, text) for uid, ref, text in completions]
    # every verdict stored as wrong: a re-score that copied the source's verdicts would show it
    rows = [ItemRow(i, uid, "gsm8k", None, 0.0, False, "stored", None, 0.1)
            for i, (uid, _, _) in enumerate(completions)]
    store.log_items(run_id, rows, texts)
    if status == "complete":
        store.complete(run_id, [], policy_metrics(rows, ["gsm8k"]), 1.0)
    else:
        store.abort(run_id, RunStatus.INTERRUPTED, "KeyboardInterrupt")
    return run_id


GENERATIONS = [("gsm8k/0/0", "18", "She earns 9 * 2 = 18 dollars.\n#### 18"),
               ("gsm8k/0/1", "18", "The answer is 20."),
               ("gsm8k/1/0", "3", "So \\boxed{3}"),
               ("gsm8k/1/1", "3", "So \\boxed{3}")]


def test_a_policy_evaluation_is_rescored_on_its_kept_generations_item_for_item(tmp_path, monkeypatch):
    """The re-scored run is a policy evaluation of the same data, naming its source, with every item in the source's
    order and the new reward's verdict on that item's own text (3 of 4 right here, where the source stored all
    wrong); its accuracy is over problems (problem 0: one of two samples, problem 1: both)."""
    import itertools
    import time

    from harness.rescoring import rescore

    store = RunStore(tmp_path / "s.sqlite")
    source_id = _policy_run(store, GENERATIONS)
    # a clock that moves 0.3 s a reading from 10,000 s: the wall time is a whole number of its steps (a ratio or
    # a quotient of two readings, about 1.0, is not; a sum or a product is far over any elapsed time)
    ticks = itertools.count()
    monkeypatch.setattr(time, "perf_counter", lambda: 10_000 + 0.3 * next(ticks))
    rescored = rescore(store, source_id, "rule:workers=1", batch_size=3)  # batches that split a problem
    monkeypatch.undo()
    steps = rescored.wall_seconds / 0.3
    assert 1 <= round(steps) <= next(ticks) and steps == pytest.approx(round(steps), abs=1e-6)
    source = store.get(source_id)
    assert rescored.id != source_id and rescored.kind == RunKind.POLICY_EVAL and str(rescored.status) == "complete"
    assert rescored.reward == "rule:workers=1" and rescored.config["rescored_from"] == source_id
    assert rescored.config["model"] == "m" and rescored.config["benchmarks"] == ["gsm8k"]
    assert (rescored.suite, rescored.data_source, rescored.data_hash, rescored.n_items) == \
        (source.suite, source.data_source, source.data_hash, source.n_items)
    items = store.items(rescored.id)
    assert [(i.idx, i.uid, i.category) for i in items] == [(i.idx, i.uid, i.category) for i in store.items(source_id)]
    assert [i.verdict for i in items] == [True, False, True, True]
    assert [i.value for i in items] == [1.0, 0.0, 1.0, 1.0] and [i.answer for i in items][2] == "3"
    assert items[1].reason != "stored" and all(i.latency_s is not None for i in items)
    assert store.texts(rescored.id) == store.texts(source_id)
    assert rescored.metric("accuracy/GSM8K") == pytest.approx((0.5 + 1.0) / 2)
    assert rescored.metric("accuracy") == pytest.approx(0.75)


def test_rescore_of_a_policy_evaluation_names_no_data_file_it_read_texts_from(tmp_path):
    """A policy evaluation's texts are the generations it kept, read from the store: the command names the new
    run and its source, and no data file (an eval's items are read from its data, and the line says where)."""
    store_file = tmp_path / "s.sqlite"
    source_id = _policy_run(RunStore(store_file), GENERATIONS)
    done = _cli(store_file, "rescore", source_id, "--reward", "rule:workers=1", "--format", "csv")
    rescored = RunStore(store_file).runs()[0]
    [line] = [line for line in done.stderr.splitlines() if line.startswith("rescore: ")]
    assert line == f"rescore: {source_id} with rule:workers=1 stored as {rescored.id}"


def test_only_a_complete_evaluation_that_kept_its_texts_is_rescored(tmp_path):
    """An interrupted run, a training run, and a policy evaluation with fewer texts than items are each refused
    with what to do, before any run is recorded."""
    from harness.rescoring import RescoreError, rescore

    store = RunStore(tmp_path / "s.sqlite")
    interrupted = _policy_run(store, GENERATIONS, status="interrupted")
    with pytest.raises(RescoreError, match="only a complete run is re-scored"):
        rescore(store, interrupted, "rule:workers=1")
    with store.recording(NewRun(RunKind.TRAIN, "rule", "math:gsm8k", "m", "", 0, {}, {})) as train_id:
        store.complete(train_id, [], [], 1.0)
    with pytest.raises(RescoreError, match="is a train run; only evaluations"):
        rescore(store, train_id, "rule:workers=1")
    for table in ("texts", "items"):  # a text lost, or an item: no longer one text for each item
        partial = _policy_run(store, GENERATIONS)
        with store._connect(write=True) as db:
            db.execute(f"DELETE FROM {table} WHERE run_id = ? AND idx = 3", (partial,))
        with pytest.raises(RescoreError, match=r"keeps \d generations for \d items, not one for each"):
            rescore(store, partial, "rule:workers=1")
    assert len(store.runs(limit=100)) == 4  # nothing recorded by the refusals


def test_a_policy_evaluation_of_many_samples_is_rescored_whole(tmp_path):
    """300 kept generations (more than CPython caches as small integers: a count compared by identity would
    refuse them) are all scored again."""
    from harness.rescoring import rescore

    store = RunStore(tmp_path / "s.sqlite")
    many = [(f"gsm8k/{k}/0", str(k), f"#### {k if k % 3 else k + 1}") for k in range(300)]
    rescored = rescore(store, _policy_run(store, many), "rule:workers=1")
    assert [i.verdict for i in store.items(rescored.id)] == [k % 3 != 0 for k in range(300)]


def test_rescore_takes_its_batch_size_by_name_only():
    """``rescore(store, run, spec, 3)`` is refused: a number after the spec could be read as anything."""
    import inspect

    from harness.rescoring import rescore

    assert inspect.signature(rescore).parameters["batch_size"].kind is inspect.Parameter.KEYWORD_ONLY


def test_a_rescore_of_an_evaluation_whose_data_is_gone_names_each_place_it_looked(tmp_path, data_root):
    """The recorded path first, then the suite's default data: the refusal names both, each as what it is."""
    import shutil

    folder = tmp_path / "vbh"
    folder.mkdir()  # one part of the data, so that its first rows are not the default data's
    shutil.copy(data_root / "verifier" / "verifybench_hard_subset_longjudgebench" /
                "verify_bench_hard_subset.part2.jsonl", folder)
    store_file = tmp_path / "s.sqlite"
    _cli(store_file, "eval", "--reward", "rule:workers=1", "--suite", "verifybench-hard", "--data", str(folder),
         "--limit", "3")
    source = RunStore(store_file).runs()[0]
    shutil.rmtree(folder)
    done = CliRunner().invoke(main, ["--store", str(store_file), "rescore", source.id, "--reward", "rule:workers=1"])
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert f"looked at {source.data_source}, verifybench-hard's default data:" in done.output
