"""Policy evaluation on the math benchmarks through lm-eval, scored by the harness's rule reward.

``simple_evaluate`` runs the project's own task YAML (``harness/tasks``) through ``include_path``. The task files
are written at run time into a temporary folder, next to the data normalised by :mod:`suites.math_benchmarks`,
because lm-eval's ``json`` loader needs absolute file paths. Presets: ``cooper`` (temperature 0.7, top-p 0.95,
8 samples per problem, mean accuracy: Cooper's protocol) and ``greedy``.
"""

from __future__ import annotations

import json
import logging
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any
from unittest import mock

import yaml

from harness.core.optional import require
from harness.core.progress import ProgressLog
from harness.core.versions import code_commit
from rewards.contract import Item
from rewards.lazy import LazyReward
from suites.math_benchmarks import normalised_records, task_name

PRESETS: dict[str, dict[str, Any]] = {
    "cooper": {"repeats": 8, "generation": {"do_sample": True, "temperature": 0.7, "top_p": 0.95}},
    "greedy": {"repeats": 1, "generation": {"do_sample": False}},
}

RULE = LazyReward(lambda: "rule")
log = logging.getLogger("harness")


def close_rule_reward() -> None:
    RULE.close()


class _Scored:
    """Problems scored so far in this process's policy evaluation, for the progress lines, and where each
    problem's generations go as they are scored (the run's store and id, when it records them)."""

    lines: ProgressLog | None = None
    done = 0
    total: int | None = None  # problems in the run (every benchmark's, after --limit), for "12/40 problems"
    per_benchmark: dict[str, int] = {}
    store: Any = None
    run_id: str = ""
    next_idx = 0


def process_results(doc: dict[str, Any], results: Sequence[Any]) -> dict[str, float]:
    """Mean rule-reward accuracy over the samples lm-eval generated for one problem; each sample, with the
    problem, its reference and its verdict, is stored as an item of the run as soon as it is scored."""
    responses = [r if isinstance(r, str) else str(r) for r in (results[0] if results and isinstance(results[0], list) else results)]
    items = [Item(doc["prompt"], doc["answer"], text) for text in responses]
    scores = RULE.get().score(items)
    if _Scored.store is not None:
        _record(doc, items, scores)
    if _Scored.lines is not None:
        _Scored.done += 1
        _Scored.lines.update(_Scored.done, _Scored.total)
    return {"accuracy": sum(s.verdict is True for s in scores) / max(1, len(scores))}


def _record(doc: dict[str, Any], items: Sequence[Item], scores: Sequence[Any]) -> None:
    from harness.core.records import ItemRow, ItemText
    from suites.math_benchmarks import display_name

    benchmark, problem = doc.get("benchmark", ""), doc.get("problem", "")
    rows, texts = [], []
    for k, (item, score) in enumerate(zip(items, scores)):
        rows.append(ItemRow(_Scored.next_idx, f"{benchmark}/{problem}/{k}", display_name(benchmark) if benchmark
                            else "", None, score.value, score.verdict, score.reason, score.answer, None, score.detail))
        texts.append(ItemText(item.question, item.reference, item.completion))
        _Scored.next_idx += 1
    _Scored.store.log_items(_Scored.run_id, rows, texts)


@dataclass(frozen=True)
class PolicyEvalRequest:
    model: str
    benchmarks: tuple[str, ...]
    backend: str = "hf"  # lm-eval model type: hf, vllm, local-chat-completions
    model_args: str = ""
    preset: str = "cooper"
    limit: int | None = None
    max_gen_toks: int = 512
    batch_size: int = 8
    base_policy: str = ""  # the untrained policy these weights came from; found in the store when empty
    trained_with: str = ""  # the reward spec they were trained with; "" for an untrained policy


def write_tasks(folder: Path, request: PolicyEvalRequest) -> list[str]:
    """Normalised data plus one task YAML per benchmark (including the shipped base) into ``folder``."""
    if request.preset not in PRESETS:
        raise ValueError(f"unknown preset {request.preset!r}; choose {', '.join(PRESETS)}")
    preset = PRESETS[request.preset]
    tasks_dir = resources.files("harness") / "tasks"
    for name in ("_harness_math.yaml", "harness_tasks.py"):
        (folder / name).write_bytes((tasks_dir / name).read_bytes())
    names = []
    for bench in request.benchmarks:
        name = task_name(bench)
        if name in names:
            raise ValueError(f"benchmark {bench!r} is given twice (as task {name})")
        data = folder / f"{name}.jsonl"
        records = normalised_records(bench, request.limit)
        with data.open("w", encoding="utf-8") as fh:
            for i, rec in enumerate(records):  # which benchmark and problem: each generation is stored by them
                fh.write(json.dumps({**rec, "benchmark": bench, "problem": i}, ensure_ascii=False) + "\n")
        task = {
            "include": "_harness_math.yaml",
            "task": name,
            "dataset_kwargs": {"data_files": {"test": str(data)}},
            "repeats": preset["repeats"],
            "generation_kwargs": {"until": [], "max_gen_toks": request.max_gen_toks, **preset["generation"]},
            "filter_list": [{"name": "all", "filter": [{"function": "take_first_k", "k": preset["repeats"]}]}],
        }
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
        names.append(name)
    return names


def _default_model_args(request: PolicyEvalRequest) -> str:
    args = f"pretrained={request.model}"
    if request.backend == "hf":
        torch = require("torch", "policy evaluation with the hf backend")
        if not torch.cuda.is_available():  # lm-eval's hf model defaults to cuda
            args += ",device=cpu,dtype=float32"
    return args


def evaluate_policy(request: PolicyEvalRequest) -> dict[str, float]:
    """Accuracy per benchmark (mean over problems of the mean over samples)."""
    lm_eval = require("lm_eval", "policy evaluation")
    from lm_eval.tasks import TaskManager

    folder = Path(tempfile.mkdtemp(prefix="harness-tasks-"))
    log.info("eval-policy: generating with %s on %s (lm-eval), then scoring with the rule reward",
             request.model, ", ".join(request.benchmarks))
    _Scored.lines, _Scored.done, _Scored.per_benchmark = ProgressLog("eval-policy: scored", "problems"), 0, {}
    try:
        tasks = write_tasks(folder, request)
        _Scored.total = sum(sum(1 for _ in (folder / f"{name}.jsonl").open(encoding="utf-8")) for name in tasks)
        args = request.model_args or _default_model_args(request)
        # lm-eval records the git commit of the working folder by running `git describe` there, whose "fatal: not
        # a git repository" reaches the user's terminal outside a checkout; the commit that matters is this
        # code's, which the run records (harness.core.versions), so lm-eval is given that one
        evaluator = require("lm_eval.evaluator", "policy evaluation")
        with mock.patch.object(evaluator, "get_git_commit_hash", lambda: code_commit()["commit"]), \
                quiet_lm_eval_bars(not sys.stderr.isatty()):
            results = lm_eval.simple_evaluate(
                model=request.backend, model_args=args, tasks=tasks, batch_size=request.batch_size,
                task_manager=TaskManager(include_path=str(folder)), apply_chat_template=True, log_samples=False,
            )
        out = {}
        for bench, task in zip(request.benchmarks, tasks):
            metrics = results["results"][task]
            key = next((k for k in ("accuracy,all", "accuracy,none") if k in metrics), None)
            if key is None:  # lm-eval renamed its keys: fail rather than store a NaN accuracy
                raise RuntimeError(f"lm-eval's results for {task} have no accuracy (keys: {', '.join(sorted(metrics))}); "
                                   f"this lm-eval version reports metrics under other names")
            out[bench] = float(metrics[key])
            samples = results.get("n-samples", {}).get(task, {})
            _Scored.per_benchmark[bench] = int(samples.get("effective", samples.get("original", 0)) or 0)
        return out
    finally:
        _Scored.lines = None
        close_rule_reward()
        shutil.rmtree(folder, ignore_errors=True)


# lm-eval's modules whose progress bars draw while a policy generates or is scored
_LM_EVAL_BARS = ("lm_eval.models.huggingface", "lm_eval.models.vllm_causallms", "lm_eval.api.model")


@contextmanager
def quiet_lm_eval_bars(quiet: bool) -> Iterator[None]:
    """No lm-eval progress bar while ``quiet`` (stderr is a log, not a terminal): lm-eval passes ``disable=False``
    to tqdm itself, which ``TQDM_DISABLE`` cannot override, and a bar redrawn in a log is one long line of carriage
    returns; the harness's own progress lines say how far it is."""
    if not quiet:
        yield
        return
    import importlib

    from tqdm import tqdm

    def silent(*args: Any, **kwargs: Any) -> Any:
        return tqdm(*args, **{**kwargs, "disable": True})

    with ExitStack() as stack:
        for name in _LM_EVAL_BARS:
            try:
                module = importlib.import_module(name)
            except ImportError:  # a backend whose packages are not installed (vllm): it draws nothing here
                continue
            if hasattr(module, "tqdm"):
                stack.enter_context(mock.patch.object(module, "tqdm", silent))
        yield


def with_lineage(request: PolicyEvalRequest, store: Any, name: str = "") -> PolicyEvalRequest:
    """Fill in the base policy and training reward from the training run that wrote ``request.model``.

    ``name`` is how the user named the policy (``smollm2-135m`` rather than its cache folder). Values the user
    gave are kept; a policy no training run wrote is its own base, trained with nothing.
    """
    if request.base_policy and request.trained_with:
        return request
    trained = store.training_run_for(request.model) if Path(request.model).exists() else None
    base = request.base_policy or (trained.settings.policy if trained else "") or name or request.model
    reward = request.trained_with or (trained.reward if trained else "")
    return replace(request, base_policy=base, trained_with=reward)


def evaluate_and_store(request: PolicyEvalRequest, store: Any) -> Any:
    """Run :func:`evaluate_policy` and store it as a ``policy-eval`` run (Table 3 columns, Avg = mean)."""
    import time

    from harness.core.store import NewRun, RunKind
    from harness.core.versions import package_versions
    from suites.math_benchmarks import display_name

    began = time.perf_counter()
    with store.recording(NewRun(
        kind=RunKind.POLICY_EVAL, reward="rule", suite="math:" + ",".join(request.benchmarks),
        data_source=request.model, data_hash="", n_items=0, config={**request.__dict__},
        versions=package_versions(),
    )) as run_id:
        _Scored.store, _Scored.run_id, _Scored.next_idx = store, run_id, 0
        try:
            accuracy = evaluate_policy(request)
        finally:
            _Scored.store = None
        counts = dict(_Scored.per_benchmark)
        items = store.items(run_id)
        rows = policy_metrics(items, request.benchmarks)
        by_name = {m.name: m.value for m in rows}
        for bench, value in accuracy.items():  # lm-eval's own mean and ours over the stored samples agree
            ours = by_name.get(f"accuracy/{display_name(bench)}")
            if ours is None or abs(ours - value) > 1e-9:
                raise RuntimeError(f"lm-eval's accuracy on {bench} ({value}) is not the mean of the stored samples' "
                                   f"verdicts ({ours}): the generations were not all recorded")
        store.complete(run_id, [], rows, time.perf_counter() - began, n_items=sum(counts.values()))
    return store.get(run_id)


def _problem_rates(items: Sequence[Any]) -> dict[tuple[str, str], float]:
    """Each (benchmark, problem)'s share of samples judged right (a sample's uid is benchmark/problem/sample)."""
    verdicts: dict[tuple[str, str], list[bool]] = {}
    for item in items:
        bench, problem = (item.uid or "//").rsplit("/", 2)[:2]
        verdicts.setdefault((bench, problem), []).append(item.verdict is True)
    return {key: sum(v) / len(v) for key, v in verdicts.items()}


def paired_by_problem(items_a: Sequence[Any], items_b: Sequence[Any]) -> dict[str, Any]:
    """B - A for two policy evaluations of the same problems, paired by problem: per benchmark the mean over its
    problems of B's share of right samples minus A's, and overall the mean over benchmarks (as ``accuracy`` is),
    each with the interval of a paired randomization test that exchanges the two runs' shares problem by problem
    (:func:`harness.core.uncertainty.randomized_change`). The samples of one problem are not independent draws:
    McNemar over samples would count a problem eight times. With one sample a problem the test is McNemar's.
    Keyed by the metric names of :func:`policy_metrics`, each a :class:`~harness.core.uncertainty.RandomizedChange`;
    none when the runs' problems differ, and a benchmark where no problem's share differs is left out."""
    from harness.core.uncertainty import randomized_change
    from suites.math_benchmarks import display_name

    rates_a, rates_b = _problem_rates(items_a), _problem_rates(items_b)
    if set(rates_a) != set(rates_b):
        return {}
    rows = [(bench, rates_a[bench, problem], rates_b[bench, problem]) for bench, problem in rates_a]

    def change(counts: dict[tuple[str, float, float], int], only: str | None = None) -> float | None:
        per: dict[str, list[float]] = {}
        for (bench, a, b), count in counts.items():
            if only is None or bench == only:
                sums = per.setdefault(bench, [0.0, 0])
                sums[0] += count * (b - a)
                sums[1] += count
        return sum(total / n for total, n in per.values()) / len(per) if per else None

    def exchanged(row: tuple[str, float, float]) -> tuple[str, float, float]:
        return row[0], row[2], row[1]

    out: dict[str, Any] = {}
    for name, only in [("accuracy", None), *((f"accuracy/{display_name(b)}", b) for b in dict.fromkeys(r[0] for r in rows))]:
        tested = randomized_change(lambda counts, only=only: change(counts, only), rows, exchanged)
        if tested is not None:
            out[name] = tested
    return out


def policy_metrics(items: Sequence[Any], benchmarks: Sequence[str]) -> list[Any]:
    """A policy's accuracy per benchmark and overall from its stored samples: per problem the share of its samples
    judged right, then the mean over problems, with the 95% Wilson interval of that mean over the n problems (the
    samples of one problem are not independent draws, so n counts problems). With one sample a problem it is
    exactly Wilson over problems; with several, a per-problem share lies in [0, 1], so its variance is at most
    m(1 - m) and the interval is conservative. Unlike the normal interval of the standard error, it never
    collapses: 0 of 3 problems right is [0.0, 56.1], not [0.0, 0.0]. Overall: the mean over benchmarks (Table 3's
    Avg), with the normal interval their intervals imply."""
    from harness.core.store import Metric
    from harness.core.uncertainty import half_width_stderr, normal_interval, wilson
    from suites.math_benchmarks import display_name

    per_problem: dict[str, list[float]] = {}
    for (bench, _), rate in _problem_rates(items).items():
        per_problem.setdefault(bench, []).append(rate)
    rows, means, errors = [], [], []
    for bench in benchmarks:
        problems = per_problem.get(bench, [])
        if not problems:
            continue
        mean = sum(problems) / len(problems)
        low, high = wilson(mean * len(problems), len(problems))  # type: ignore[misc]
        rows.append(Metric(f"accuracy/{display_name(bench)}", mean, True, len(problems), "by_category", low, high))
        means.append(mean)
        errors.append(half_width_stderr((low, high)))
    if means:
        mean = sum(means) / len(means)
        se = sum(e * e for e in errors) ** 0.5 / len(errors)
        low, high = normal_interval(mean, se) or (None, None)
        rows.append(Metric("accuracy", mean, True, sum(len(p) for p in per_problem.values()), "overall",
                           None if low is None else max(0.0, low), None if high is None else min(1.0, high)))
    return rows
