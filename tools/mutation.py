"""Mutation testing of the modules whose bugs cost most (the grader's decisions, the run store, the server's
batcher, Cooper's update, what reads a reward server's answers, the published verifiers' parsers, the metrics and
the data behind them): does some test fail when the code is changed a little?

Runs cosmic-ray (``tox -e mutation``) in a copy of the working tree, one module at a time, each mutant against
the tests that guard that module. Every module has hundreds of mutants and its tests take seconds to a minute
on 2 cores, so a seeded sample of ``--sample`` mutants per module is run (the same sample for the same seed and
source), and the share killed is reported with its 95% Wilson interval. Results go to a JSON file per label
(``before``, ``after``); ``--report`` writes the markdown report from those files alone::

    python -m tools.mutation --label before --sample 40 --out docs/mutation
    python -m tools.mutation --report docs/mutation
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# module (a file, or a package ending in "/") -> the tests that guard it (run for each mutant, stopping at the
# first failure)
_DIRECTION = "tests/harness/test_direction.py"
_DIRECTION_INTERVALS = [f"{_DIRECTION}::test_the_95_percent_intervals_use_the_two_sided_z",
                        f"{_DIRECTION}::test_a_policys_interval_never_collapses",
                        f"{_DIRECTION}::test_a_policys_interval_is_the_95_percent_wilson_interval_over_problems"]
_DIRECTION_CLIENT = [f"{_DIRECTION}::test_every_5xx_is_tried_again", f"{_DIRECTION}::test_no_4xx_is_tried_again",
                     f"{_DIRECTION}::test_remote_sends_the_token_of_the_environment_and_an_option_overrides_it"]
_SERVER_CLIENTS = ["tests/harness/test_server_client.py", "tests/harness/test_remote_reward.py",
                   "tests/rewards/test_remote_answers.py", *_DIRECTION_CLIENT]
_ADAPTERS = ["tests/harness/test_integrations.py", "tests/harness/test_trainer_clients.py",
             "tests/harness/test_verifiers_reward.py", "tests/harness/test_server_client.py",
             "tests/harness/test_hostile_http.py", "-m", "'not slow'"]
MODULES: dict[str, list[str]] = {
    "rewards/math/decision.py": ["tests/rewards/test_rule_tables.py", "tests/rewards/test_math_grading.py",
                                 "tests/rewards/test_unanchored.py"],
    "harness/core/store.py": ["tests/core/test_store.py"],
    "harness/server/batcher.py": ["tests/harness/test_batcher.py", "tests/harness/test_server.py"],
    "rewards/cooper.py": ["tests/rewards/test_cooper.py", "tests/rewards/test_documented_defaults.py", "-m",
                          "'not slow'"],  # the assistant LLM test: minutes
    # what reads a reward server's answers, the published verifiers' parsers, the figures and the data behind them
    "rewards/remote.py": _SERVER_CLIENTS,
    "harness/core/server_client.py": _SERVER_CLIENTS,
    "harness/integrations/": _ADAPTERS,
    "rewards/verifiers/": ["tests/rewards/test_verifier_protocols.py"],
    "suites/metrics.py": ["tests/suites/test_metrics.py", "tests/core/test_uncertainty.py"],
    "suites/calibration.py": ["tests/suites/test_metrics.py", "tests/suites/test_diagnostics.py",
                              "-k", "'not probe_hacking'"],  # that one trains nothing it checks here: 80 s
    "harness/datasets/fetch.py": ["tests/harness/test_data_fetch.py"],
    "trainers/trackers.py": ["tests/trainers/test_trackers.py"],
    # where results are decided: which run is A, which column gets which label, which runs a table shows
    "harness/core/uncertainty.py": ["tests/core/test_uncertainty.py", "tests/suites/test_metrics.py",
                                    *_DIRECTION_INTERVALS, "tests/harness/test_compare_paired.py"],
    "harness/report.py": [_DIRECTION, "tests/harness/test_compare_paired.py", "tests/harness/test_output.py"],
    "harness/commands/runs.py": [_DIRECTION, "tests/harness/test_compare_paired.py", "tests/harness/test_cli.py",
                                 "tests/core/test_store_reading.py"],
    # and the tests of the commands it holds beside eval and rescore: probe-hacking, label, the crashed-item warning
    "harness/commands/evaluation.py": [_DIRECTION, "tests/harness/test_rescore.py", "tests/harness/test_cli.py",
                                       "tests/harness/test_first_hour.py", "tests/harness/test_labelling.py",
                                       "tests/suites/test_diagnostics.py", "tests/harness/test_evaluation_commands.py"],
    "harness/rescoring.py": [_DIRECTION, "tests/harness/test_rescore.py"],
}
# docs/ travels (15 MB): tests read the committed stores and reports beside the code
_IGNORED = shutil.ignore_patterns(".git", ".tox", ".venv", "venv", "runs", "mutants", "__pycache__", ".old",
                                  ".pytest_cache", ".benchmarks", ".hypothesis", "*.egg-info", "build")


def wilson(killed: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``killed / n``."""
    if n == 0:
        return 0.0, 1.0
    p = killed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def annotation_spans(source: str) -> list[tuple[int, int, int, int]]:
    """(line, col, end line, end col) of every type annotation: under ``from __future__ import annotations`` they
    are never evaluated, so a mutant inside one (``str | None`` to ``str - None``) cannot change behaviour."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        found = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(node.returns)
            args = node.args
            found += [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
                      if a is not None]
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        spans += [(a.lineno, a.col_offset, a.end_lineno, a.end_col_offset) for a in found if a is not None]
    return spans


def _inside(row: int, col: int, spans: list[tuple[int, int, int, int]]) -> bool:
    return any((row, col) >= (a, b) and (row, col) < (c, d) for a, b, c, d in spans)


def present(tests: list[str], tree: Path) -> list[str]:
    """The test files (or tests, ``FILE::NAME``) of ``tests`` that ``tree`` has, with the options among them: an
    older checkout lacks the files written since, and pytest would count a missing file as a failure, every mutant
    as killed."""
    return [t for t in tests if t.startswith("-") or t.startswith("'") or (tree / t.split("::")[0]).exists()]


def sources(module: str, tree: Path) -> list[str]:
    """The Python files of ``module`` in ``tree``, relative to it: the file itself, or a package's files."""
    path = tree / module
    return [module] if path.is_file() else sorted(str(f.relative_to(tree)) for f in path.rglob("*.py"))


def run_module(module: str, tests: list[str], sample: int, seed: int, timeout_s: float, source: Path = REPO,
               live_only: bool = False) -> dict:
    """One module's sampled mutants, run in a fresh copy of ``source`` (a checkout); the outcome and diff of each.
    ``mutants_in_module`` counts the mutants the sample was drawn from (with ``live_only``, those outside
    annotations)."""
    with tempfile.TemporaryDirectory(prefix="mutation-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(source, tree, ignore=_IGNORED)
        config = Path(tmp) / "config.toml"
        command = f"{sys.executable} -m pytest -x -q -p no:cacheprovider {' '.join(present(tests, tree))}"
        config.write_text(
            f'[cosmic-ray]\nmodule-path = "{module}"\ntimeout = {timeout_s}\nexcluded-modules = []\n'
            f'test-command = "{command}"\n[cosmic-ray.distributor]\nname = "local"\n', encoding="utf-8")
        session = Path(tmp) / "session.sqlite"
        subprocess.run(["cosmic-ray", "init", str(config), str(session)], cwd=tree, check=True)
        spans = {f: annotation_spans((tree / f).read_text(encoding="utf-8")) for f in sources(module, tree)}

        def annotated(path: str, line: int, col: int) -> bool:
            return _inside(line, col, spans[_relative(path, module)])

        with sqlite3.connect(session) as db:
            # job ids are random: the sample is drawn from the mutants in source order, so that the same seed
            # and source give the same mutants, before and after new tests. With live_only, a mutant inside an
            # annotation (which cannot change behaviour, see summary) is never drawn: in a module of typed
            # signatures two in three mutants are there
            rows = db.execute("SELECT job_id, module_path, start_pos_row, start_pos_col FROM mutation_specs "
                              "ORDER BY module_path, start_pos_row, start_pos_col, operator_name, occurrence")
            jobs = [j for j, path, line, col in rows
                    if not (live_only and annotated(path, line, col))]
            total = len(jobs)
            keep = set(random.Random(f"{seed}:{module}").sample(jobs, min(sample, total)))
            drop = [(j,) for (j,) in db.execute("SELECT job_id FROM mutation_specs") if j not in keep]
            db.executemany("DELETE FROM mutation_specs WHERE job_id=?", drop)
            db.executemany("DELETE FROM work_items WHERE job_id=?", drop)
            # a mutant inside an annotation that was drawn is counted apart and not run at all
            idle = [(j,) for j, path, line, col in db.execute(
                        "SELECT job_id, module_path, start_pos_row, start_pos_col FROM mutation_specs")
                    if annotated(path, line, col)]
            db.executemany("DELETE FROM work_items WHERE job_id=?", idle)
        began = time.perf_counter()
        subprocess.run(["cosmic-ray", "baseline", str(config)], cwd=tree, check=True)
        subprocess.run(["cosmic-ray", "exec", str(config), str(session)], cwd=tree, check=True)
        seconds = time.perf_counter() - began
        with sqlite3.connect(session) as db:
            rows = db.execute(
                "SELECT m.job_id, m.module_path, m.operator_name, m.occurrence, m.start_pos_row, m.start_pos_col, "
                "r.test_outcome, r.worker_outcome, r.diff FROM mutation_specs m LEFT JOIN work_results r "
                "ON r.job_id = m.job_id ORDER BY m.module_path, m.start_pos_row"
            ).fetchall()
    mutants = [{"job": job, "file": _relative(path, module), "operator": op, "occurrence": occ, "line": line,
                "col": col, "test_outcome": (outcome or "not run").lower(), "worker_outcome": (worker or "").lower(),
                "in_annotation": annotated(path, line, col), "diff": diff or ""}
               for job, path, op, occ, line, col, outcome, worker, diff in rows]
    return {"module": module, "tests": tests, "mutants_in_module": total, "sample": len(mutants), "seed": seed,
            "live_only": live_only, "seconds": round(seconds, 1), "mutants": mutants}


def _relative(path: str, module: str) -> str:
    """A mutated file's path as cosmic-ray records it, relative to the tree: ``module`` itself or a file under it."""
    path = path.replace("\\", "/")
    return path[path.index(module.rstrip("/")):] if module.rstrip("/") in path else path


def replay_module(previous: dict, timeout_s: float, source: Path = REPO) -> dict:
    """The very mutants of an earlier result (their recorded diffs), each applied to a fresh copy of ``source``
    and run against the module's tests as they are now: the same mutants before and after new tests."""
    module, tests = previous["module"], MODULES[previous["module"]]
    mutants = []
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mutation-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(source, tree, ignore=_IGNORED)
        originals = {f: (tree / f).read_text(encoding="utf-8") for f in sources(module, tree)}
        for m in previous["mutants"]:
            diff = m["diff"].split("--- mutation diff ---\n", 1)[-1]
            applied = subprocess.run(["patch", "-p1", "--silent", "--forward"], cwd=tree, input=diff, text=True,
                                     capture_output=True)
            if applied.returncode != 0:
                outcome = "incompetent"  # the source moved: the mutant no longer applies
            else:
                try:
                    run = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                                          *[t.strip("'") for t in present(tests, tree)]], cwd=tree,
                                         capture_output=True, timeout=timeout_s)
                    outcome = "survived" if run.returncode == 0 else "killed"
                except subprocess.TimeoutExpired:
                    outcome = "killed"  # a hang is caught by the deadline, as cosmic-ray counts it
            for f, text in originals.items():
                (tree / f).write_text(text, encoding="utf-8")
            mutants.append({**m, "test_outcome": outcome, "worker_outcome": "replayed"})
    return {**previous, "tests": tests, "seconds": round(time.perf_counter() - began, 1), "mutants": mutants,
            "replayed_from": previous.get("label", "before")}


def replay_survivors(previous: dict, timeout_s: float, source: Path = REPO) -> dict:
    """An earlier result with its survivors run again by their diffs against the tests as they are now (the
    killed stay killed: tests are only added): what new tests kill of what was left alive, without running the
    whole sample again."""
    survivors = [m for m in previous["mutants"] if m["test_outcome"] == "survived" and not m["in_annotation"]]
    replayed = replay_module({**previous, "mutants": survivors}, timeout_s, source)
    again = {m["job"]: m for m in replayed["mutants"]}
    return {**previous, "tests": replayed["tests"], "seconds": replayed["seconds"],
            "mutants": [again.get(m["job"], m) for m in previous["mutants"]],
            "replayed_from": previous.get("label", "before"), "replayed": "survivors"}


def summary(result: dict) -> dict:
    """Killed and survived among the mutants that can change behaviour: a mutant inside a type annotation is
    counted apart (``in_annotation``), and so is an incompetent one (it does not even import)."""
    live = [m for m in result["mutants"] if not m["in_annotation"]]
    killed = sum(m["test_outcome"] == "killed" for m in live)
    survived = sum(m["test_outcome"] == "survived" for m in live)
    judged = killed + survived
    low, high = wilson(killed, judged)
    return {"killed": killed, "survived": survived, "incompetent": len(live) - judged,
            "annotation": len(result["mutants"]) - len(live),
            "share": killed / judged if judged else float("nan"), "low": low, "high": high}


def report(folder: Path) -> str:
    """The markdown tables of every results file in ``folder``: per module and label, the share killed."""
    results = {p.stem.removeprefix("results-"): json.loads(p.read_text(encoding="utf-8"))
               for p in sorted(folder.glob("results-*.json"))}
    labels = sorted(results, key=lambda label: ({"before": 0, "after": 1}.get(label, 2), label))
    rows = [(module, label, result) for module in MODULES for label in labels
            for result in results[label] if result["module"] == module]
    lines = ["| module | label | mutants in module | sampled | in annotations | killed | survived | incompetent | "
             "killed share (95% CI) |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for _, label, result in rows:
        s = summary(result)
        lines.append(f"| `{result['module']}` | {label} | {result['mutants_in_module']} | {result['sample']} | "
                     f"{s['annotation']} | {s['killed']} | {s['survived']} | {s['incompetent']} | "
                     f"{100 * s['share']:.0f}% ({100 * s['low']:.0f}-{100 * s['high']:.0f}%) |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="before")
    parser.add_argument("--sample", type=int, default=40, help="mutants per module (seeded)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant's test run")
    parser.add_argument("--module", action="append", help="only these modules (default: all of MODULES)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "mutation")
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose code and tests are run (default: "
                                                               "this one); e.g. the commit before new tests")
    parser.add_argument("--live-only", action="store_true", help="draw only mutants outside type annotations")
    parser.add_argument("--report", type=Path, default=None, help="print the tables of the results in this folder")
    parser.add_argument("--replay", default=None, help="run the mutants of results-REPLAY.json again (the same "
                                                       "mutants, by their diffs) instead of drawing a sample")
    parser.add_argument("--survivors-only", action="store_true", help="with --replay: run only its survivors again")
    args = parser.parse_args()
    if args.report is not None:
        print(report(args.report), end="")
        return
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"results-{args.label}.json"
    done = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    for module in args.module or list(MODULES):
        if any(r["module"] == module for r in done):
            continue  # resumable: a module already in the file is kept
        # the checkout's commit as the run copies it: a commit made while the mutants run is not what they ran on
        commit = subprocess.run(["git", "-C", str(args.tree), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        if args.replay:
            earlier = json.loads((args.out / f"results-{args.replay}.json").read_text(encoding="utf-8"))
            [previous] = [r for r in earlier if r["module"] == module]
            previous = {**previous, "label": args.replay}
            result = (replay_survivors(previous, args.timeout, args.tree) if args.survivors_only
                      else replay_module(previous, args.timeout, args.tree))
        else:
            result = run_module(module, MODULES[module], args.sample, args.seed, args.timeout, args.tree,
                                args.live_only)
        result["tree_commit"] = commit
        done.append(result)
        path.write_text(json.dumps(done, indent=1) + "\n", encoding="utf-8")
        s = summary(result)
        print(f"{module}: {s['killed']} killed, {s['survived']} survived, {s['incompetent']} incompetent "
              f"of {result['sample']} sampled ({result['seconds']:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
