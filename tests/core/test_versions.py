"""Every stored run names the code it ran: the commit of the checkout its code came from and whether that checkout
had uncommitted changes; code outside a checkout is recorded as unknown, never as some other repository's commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.core.store import NewRun, RunKind, RunStore
from harness.core.versions import UNKNOWN, code_commit, package_versions
from harness.report import run_summary


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def checkout(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "code.py").write_text("x = 1\n")
    git(root, "add", "code.py")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    return root


def test_a_clean_checkout_names_its_head(checkout):
    code_commit.cache_clear()
    assert code_commit(checkout) == {"commit": git(checkout, "rev-parse", "HEAD"), "dirty": "false"}


def test_a_changed_tracked_file_makes_it_dirty_and_an_untracked_one_does_not(checkout):
    (checkout / "notes.txt").write_text("untracked\n")
    code_commit.cache_clear()
    assert code_commit(checkout)["dirty"] == "false"
    (checkout / "code.py").write_text("x = 2\n")
    code_commit.cache_clear()
    assert code_commit(checkout)["dirty"] == "true"


def test_code_inside_another_repository_is_not_given_that_repository_s_commit(checkout):
    inner = checkout / "site-packages"
    inner.mkdir()
    code_commit.cache_clear()
    assert code_commit(inner) == {"commit": UNKNOWN, "dirty": UNKNOWN}


def test_code_outside_any_checkout_is_unknown(tmp_path):
    code_commit.cache_clear()
    assert code_commit(tmp_path) == {"commit": UNKNOWN, "dirty": UNKNOWN}


def test_a_stored_run_carries_the_commit_and_show_prints_it(tmp_path):
    code_commit.cache_clear()
    versions = package_versions()
    assert {"commit", "dirty", "python", "torch", "transformers", "trl"} <= set(versions)
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.begin(NewRun(kind=RunKind.REWARD_EVAL, reward="rule", suite="sample", data_source="x",
                                data_hash="", n_items=0, config={}, versions=versions))
    shown = dict(run_summary(store.get(run_id)))
    assert shown["commit"].startswith(versions["commit"])
    dirty = {"true": "(with uncommitted changes)", "false": versions["commit"]}.get(versions["dirty"])
    if dirty:
        assert shown["commit"].endswith(dirty)


def test_a_wheel_built_from_a_checkout_records_its_commit_and_the_installed_code_reads_it(tmp_path):
    """pip install . runs no code from the checkout: the wheel carries the commit the build saw."""
    import json
    import sys
    import zipfile

    from harness.core.versions import built_commit

    pytest.importorskip("setuptools")  # the build backend, used without build isolation
    repo = Path(__file__).resolve().parents[2]
    if not (repo / ".git").exists():
        pytest.skip("these tests do not run from a git checkout")
    head = git(repo, "rev-parse", "HEAD")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(repo), "--no-deps", "--no-build-isolation",
                    "--quiet", "-w", str(tmp_path)], check=True, capture_output=True, timeout=300)
    [wheel] = tmp_path.glob("rl_reward_harness-*.whl")
    with zipfile.ZipFile(wheel) as z:
        built = json.loads(z.read("harness/_build.json"))
        z.extractall(tmp_path / "site")
    assert built["commit"] == head and built["dirty"] in ("true", "false")
    assert built_commit(tmp_path / "site") == {**built, "commit_from": "build"}
    assert built_commit(tmp_path / "nowhere")["commit"] == UNKNOWN
