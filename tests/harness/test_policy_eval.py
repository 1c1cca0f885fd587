"""Policy evaluation through lm-eval with the project's task YAML, scored by the rule reward, on SmolLM2."""

import json

import pytest
import yaml
from click.testing import CliRunner

from harness.cli import main
from harness.policy_eval import PolicyEvalRequest, process_results, write_tasks
from suites.math_benchmarks import display_name, normalised_records

from ..models import require_packaged_smollm2


@pytest.mark.parametrize("name, count, first_answer", [
    ("gsm8k", 1319, "18"), ("svamp", 1000, "145"), ("math500", 500, None), ("olympiadbench", 675, "2"),
    ("math_odyssey", 387, "16"), ("aime24", 30, "204"), ("aime25", 30, "70"), ("amc23", 40, "27"),
    ("minerva_math", 272, "1.6"),
])
def test_every_benchmark_normalises(data_root, name, count, first_answer):
    records = normalised_records(name)
    assert len(records) == count
    assert all(r["prompt"].endswith("\\boxed{}.") and r["answer"] for r in records)
    if first_answer is not None:
        assert records[0]["answer"] == first_answer


def test_aime_zero_padding_and_odyssey_tails(data_root):
    assert all(not r["answer"].startswith("0") or r["answer"] == "0" for r in normalised_records("aime24"))
    assert not any(r["answer"].endswith(("\\\\", "noindent")) for r in normalised_records("math_odyssey"))


def test_task_yaml_and_presets(tmp_path, data_root):
    names = write_tasks(tmp_path, PolicyEvalRequest("m", ("gsm8k", "amc23"), preset="cooper", limit=3))
    assert names == ["harness_gsm8k", "harness_amc23"]
    task = yaml.safe_load((tmp_path / "harness_gsm8k.yaml").read_text())
    assert task["include"] == "_harness_math.yaml" and task["repeats"] == 8
    assert task["generation_kwargs"]["temperature"] == 0.7 and task["generation_kwargs"]["top_p"] == 0.95
    assert len((tmp_path / "harness_gsm8k.jsonl").read_text().splitlines()) == 3
    with pytest.raises(ValueError, match="unknown benchmark"):
        write_tasks(tmp_path, PolicyEvalRequest("m", ("gsm9k",)))


def test_a_jsonl_file_is_a_benchmark(tmp_path, data_root):
    own = tmp_path / "my-sums.jsonl"
    own.write_text('{"question": "What is 2 + 3?", "answer": "5"}\n{"question": "What is 4 + 4?", "answer": "#### 8"}\n')
    (tmp_path / "t").mkdir()
    names = write_tasks(tmp_path / "t", PolicyEvalRequest("m", (str(own), "svamp"), limit=2))
    assert names == ["harness_my_sums", "harness_svamp"]
    records = [json.loads(line) for line in (tmp_path / "t" / "harness_my_sums.jsonl").read_text().splitlines()]
    assert [r["answer"] for r in records] == ["5", "8"] and records[0]["prompt"].endswith("\\boxed{}.")
    assert display_name(str(own)) == "my-sums" and display_name("olympiadbench") == "OB-EN"
    with pytest.raises(ValueError, match="given twice"):
        write_tasks(tmp_path / "t", PolicyEvalRequest("m", ("svamp", "svamp")))


def test_process_results_is_the_rule_reward():
    doc = {"prompt": "q", "answer": "18"}
    assert process_results(doc, [["so \\boxed{18}", "so \\boxed{17}"]]) == {"accuracy": 0.5}
    assert process_results(doc, ["#### 18"]) == {"accuracy": 1.0}


@pytest.mark.slow
def test_eval_policy_end_to_end_with_smollm2(tmp_path, data_root):
    require_packaged_smollm2()
    result = CliRunner().invoke(main, [
        "--store", str(tmp_path / "s.sqlite"), "eval-policy", "--model", "smollm2-135m",
        "--suites", "gsm8k,svamp,math500,olympiadbench,math_odyssey", "--preset", "greedy", "--limit", "1",
        "--max-gen-toks", "32", "--format", "json",
    ])
    assert result.exit_code == 0, result.output
    [table] = json.loads(result.stdout)
    [row] = table["rows"]
    assert {"GSM8K", "SVAMP", "MATH500", "OB-EN", "Odyssey", "AVG"} <= set(row)
    assert all(0.0 <= row[k] <= 1.0 for k in ("GSM8K", "SVAMP", "MATH500", "OB-EN", "Odyssey", "AVG"))


@pytest.mark.slow
def test_eval_policy_outside_a_checkout_prints_no_git_error(tmp_path, data_root, monkeypatch, capfd):
    """Run where a user runs it, outside any git checkout: lm-eval's own `git describe` there printed "fatal: not
    a git repository" to the terminal, below the command's lines."""
    require_packaged_smollm2()
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [
        "--store", str(tmp_path / "s.sqlite"), "eval-policy", "--model", "smollm2-135m", "--suites", "gsm8k",
        "--preset", "greedy", "--limit", "1", "--max-gen-toks", "8", "--format", "json",
    ])
    assert result.exit_code == 0, result.output
    assert "not a git repository" not in capfd.readouterr().err


def test_limit_samples_problems_as_eval_limit_samples_items(data_root):
    """--limit N: a seeded sample spread over the benchmark, in its order, the same each time; not its first N."""
    every = normalised_records("gsm8k")
    five = normalised_records("gsm8k", 5)
    assert five == normalised_records("gsm8k", 5) and len(five) == 5
    positions = [every.index(r) for r in five]
    assert positions == sorted(positions) and positions != list(range(5)) and max(positions) > 100


def test_lm_evals_own_bars_are_silent_in_a_log_and_drawn_on_a_terminal():
    """lm-eval asks tqdm for a bar with disable=False, which TQDM_DISABLE cannot override: in a log (quiet) the bar
    lm-eval's HF model draws while generating is disabled, on a terminal it is left as lm-eval makes it."""
    import io

    huggingface = pytest.importorskip("lm_eval.models.huggingface")
    from harness.policy_eval import quiet_lm_eval_bars

    def drawn() -> str:
        out = io.StringIO()
        bar = huggingface.tqdm(total=3, disable=False, file=out, desc="Running generate_until requests")
        bar.update(3)
        bar.close()
        return out.getvalue()

    with quiet_lm_eval_bars(True):
        assert drawn() == ""
    assert "generate_until" in drawn()  # restored after
    with quiet_lm_eval_bars(False):
        assert "generate_until" in drawn()
