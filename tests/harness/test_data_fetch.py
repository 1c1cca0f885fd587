"""``harness data fetch`` against a mirror on loopback: an HTTP server laid out as GitHub's raw files are
(REPO/COMMIT/PATH), serving the real files of ../shared/data at the places the manifest says they came from.
A clone without the shared data gets the same bytes, derived files included, and the suites read the same items
from it; a changed byte, a missing file or a dead server leaves nothing half-written."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.datasets.builds import BUILDERS
from harness.datasets.fetch import FetchError, data_sets, fetch, git_blob_sha1
from suites import build_suite

# The sets whose every upstream file is in ../shared/data (ProcessBench's MATH references are not, nor the
# graders' test files the answer-equivalence fixtures are built from: tests/harness/test_fixture_builds.py).
# VerifyBench's full files are not here either (tested below with files made in the test).
LOCAL_SETS = [name for name, s in data_sets().items()
              if name not in ("processbench", "answer-equivalence", "verifybench")]


class Mirror:
    """A loopback HTTP server of ``files`` (URL path -> bytes), counting the requests it answers."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.requests: list[str] = []
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server hook's name
                mirror.requests.append(self.path)
                body = mirror.files.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Mirror:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def mirror_files(data_root: Path) -> dict[str, bytes]:
    """Every upstream file the manifest lists that the shared data holds, at its repository URL path."""
    out = {}
    for data_set in data_sets().values():
        for f in data_set.files:
            local = data_root / f.path
            if local.is_file():
                out[f"/{f.repo}/{f.commit}/{f.source}"] = local.read_bytes()
    return out


def test_the_manifest_names_the_shared_datas_bytes(data_root):
    """Each hash in the manifest is the hash of the file SOURCE.md describes, where the shared data holds it."""
    wrong = []
    for data_set in data_sets().values():
        for entry in (*data_set.files, *data_set.builds):
            local = data_root / entry.path
            if local.is_file() and git_blob_sha1(local.read_bytes()) != entry.blob:
                wrong.append(entry.path)
    assert wrong == []


def test_a_fetch_from_the_mirror_gives_the_shared_datas_bytes_and_suites(data_root, tmp_path, monkeypatch):
    root = tmp_path / "data"
    with Mirror(mirror_files(data_root)) as mirror:
        done = fetch(LOCAL_SETS, root, mirror=mirror.url)
        assert {d.action for d in done} == {"downloaded", "built"}
        for d in done:
            assert (root / d.path).read_bytes() == (data_root / d.path).read_bytes(), d.path
        first = len(mirror.requests)
        again = fetch(LOCAL_SETS, root, mirror=mirror.url)  # all there and right: nothing asked for again
        assert {d.action for d in again} == {"present"} and len(mirror.requests) == first
    assert not list(root.rglob("*.part"))
    for spec in ("mathcheck-gsm", "verifybench-hard"):  # the suites read the same items from the fetched root
        data = None if spec == "mathcheck-gsm" else "verifier/verifybench_hard_subset_longjudgebench"
        monkeypatch.setenv("HARNESS_DATA_ROOT", str(data_root))
        shared = build_suite(spec).load(data)
        monkeypatch.setenv("HARNESS_DATA_ROOT", str(root))
        fetched = build_suite(spec).load(data)
        assert fetched.content_hash == shared.content_hash and len(fetched.rows) == len(shared.rows) > 300


def test_processbench_references_are_joined_as_published(data_root):
    """The GSM8K half of ProcessBench's join, made from the originals, is the published file byte for byte (the
    MATH half needs MARIO_EVAL's annotated test set, which the shared data does not hold)."""
    [build] = [b for b in data_sets()["processbench"].builds if b.builder == "processbench_gsm8k"]
    made = "".join(BUILDERS[build.builder](data_root, build.args)).encode()
    assert git_blob_sha1(made) == build.blob
    assert made == (data_root / build.path).read_bytes()


def test_a_changed_byte_or_a_missing_file_writes_nothing(data_root, tmp_path):
    files = mirror_files(data_root)
    [upstream] = data_sets()["math500"].files
    key = f"/{upstream.repo}/{upstream.commit}/{upstream.source}"
    files[key] = files[key].replace(b"2", b"3", 1)  # one answer changed on the way
    root = tmp_path / "data"
    with Mirror(files) as mirror:
        with pytest.raises(FetchError, match="not " + upstream.blob):
            fetch(["math500"], root, mirror=mirror.url)
        assert not (root / upstream.path).exists() and not list(root.rglob("*.part"))
        with pytest.raises(FetchError, match="math_testset_annotation.json: HTTP 404"):
            fetch(["processbench"], root, mirror=mirror.url)
    assert not (root / "verifier/processbench/with_reference").exists()


def test_the_command_says_what_it_fetched_and_refuses_what_it_does_not_know(data_root, tmp_path):
    runner = CliRunner()
    with Mirror(mirror_files(data_root)) as mirror:
        result = runner.invoke(main, ["data", "fetch", "aime25", "--root", str(tmp_path), "--mirror", mirror.url])
    assert result.exit_code == 0, result.output
    assert "downloaded math/aime25/test2025-I.jsonl (GAIR-NLP/AIME-Preview@7011a9ea:eval/data/aime/test2025-I.jsonl)" \
        in " ".join(result.output.split())
    assert "2 files in" in result.output
    result = runner.invoke(main, ["data", "fetch", "aime26", "--root", str(tmp_path)])
    assert result.exit_code == 1 and "no data set named aime26" in result.output and "aime25" in result.output
    assert "Traceback" not in result.output
    closed = runner.invoke(main, ["data", "fetch", "aime24", "--root", str(tmp_path), "--mirror",
                                  "http://127.0.0.1:9", "--timeout", "5"])
    assert closed.exit_code == 1 and "--mirror" in closed.output and "Traceback" not in closed.output


VERIFYBENCH_COMMIT = "893d46f9f4ca953cc5128b2968452eeabdfc0b3c"


def test_verifybench_is_pinned_to_the_published_commit_and_blobs():
    files = {f.source: f for f in data_sets()["verifybench"].files}
    assert {(f.repo, f.commit) for f in files.values()} == {("ZJU-REAL/VerifyBench", VERIFYBENCH_COMMIT)}
    assert files["data/verify_bench.jsonl"].blob == "01860428847c59f28b1910610a342ba4929ee170"
    assert files["data/verify_bench_hard.jsonl"].blob == "35345969a918682335d73f6aeecfbbe0605d6045"


def _made_verifybench(n: int, hard: bool) -> bytes:
    """Records with VerifyBench's fields (made here: the real files are not on this machine)."""
    import json

    types = ["A) Numeric", "B) Expression", "C) Multi-choice", "D) String"]
    return "".join(json.dumps({"question": f"q{i}", "answer": str(i), "completion": f"so \\boxed{{{i + (i % 3 == 0)}}}",
                               "gold_correct": i % 3 != 0, "completion_id": f"{'h' if hard else 'v'}{i}",
                               "answer_type": types[i % 4]}) + "\n" for i in range(n)).encode()


def test_verifybench_fetched_from_a_mirror_is_what_the_suites_read_by_default(tmp_path, monkeypatch):
    """The fetch path of the verifybench set, run against a loopback mirror laid out as GitHub's raw files: the
    pinned files are refused when the bytes are not the published ones; with the manifest's blobs set to the
    made files' own, they land where the suites read them, and the verifybench suites read them by default."""
    import harness.datasets.fetch as fetching

    root = tmp_path / "data"
    made = {"data/verify_bench.jsonl": _made_verifybench(40, False),
            "data/verify_bench_hard.jsonl": _made_verifybench(20, True)}
    served = {f"/ZJU-REAL/VerifyBench/{VERIFYBENCH_COMMIT}/{source}": body for source, body in made.items()}
    with Mirror(served) as mirror:
        with pytest.raises(FetchError, match="not 01860428847c59f28b1910610a342ba4929ee170"):
            fetch(["verifybench"], root, mirror=mirror.url)  # not the published bytes: refused, nothing written
        assert not root.exists() or not any(p.is_file() for p in root.rglob("*"))
        real = data_sets()
        pinned = real["verifybench"]
        ours = fetching.DataSet(pinned.name, pinned.summary, tuple(
            fetching.Upstream(f.path, f.repo, f.commit, f.source, git_blob_sha1(made[f.source])) for f in pinned.files))
        monkeypatch.setattr(fetching, "data_sets", lambda: {**real, "verifybench": ours})
        done = fetch(["verifybench"], root, mirror=mirror.url)
    assert [d.action for d in done] == ["downloaded", "downloaded"]
    # the refused fetch stopped at its first file; the second asked for each once, at REPO/COMMIT/PATH
    assert mirror.requests == [f"/ZJU-REAL/VerifyBench/{VERIFYBENCH_COMMIT}/data/verify_bench.jsonl", *served]
    monkeypatch.setenv("HARNESS_DATA_ROOT", str(root))
    full, hard = build_suite("verifybench").load(), build_suite("verifybench-hard").load()
    assert len(full.rows) == 40 and len(hard.rows) == 20
    assert full.source.endswith("verifier/verifybench/verify_bench.jsonl")
    assert {r.category for r in full.rows} == {"Numeric", "Expression", "Multi-choice", "String"}
    assert sum(r.label for r in hard.rows) == 13


def test_verifybench_without_the_file_or_the_hub_says_how_to_fetch_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_DATA_ROOT", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(Exception, match="harness data fetch verifybench"):
        build_suite("verifybench-hard").load()


def test_a_corrupted_file_on_disk_is_fetched_again_not_reported_present(data_root, tmp_path):
    root = tmp_path / "data"
    with Mirror(mirror_files(data_root)) as mirror:
        fetch(["gsm8k"], root, mirror=mirror.url)
        target = root / "math" / "gsm8k" / "test.jsonl"
        good = target.read_bytes()
        target.write_bytes(good[:-10] + b"corrupted\n")  # the right name and nearly the right size
        again = {d.path: d.action for d in fetch(["gsm8k"], root, mirror=mirror.url)}
    assert again["math/gsm8k/test.jsonl"] == "downloaded" and target.read_bytes() == good
    assert again["math/gsm8k/train.jsonl"] == "present"


def test_a_download_and_a_build_that_differ_say_different_things(data_root, tmp_path, monkeypatch):
    """A wrong download is the source's or the network's doing (fetch again, from another mirror); a wrong build
    is this harness's (report it): the two refusals must not trade their advice."""
    files = mirror_files(data_root)
    [upstream] = data_sets()["math500"].files
    key = f"/{upstream.repo}/{upstream.commit}/{upstream.source}"
    with Mirror({**files, key: files[key].replace(b"2", b"3", 1)}) as mirror:
        with pytest.raises(FetchError, match="proxy altered it: fetch again") as wrong_download:
            fetch(["math500"], tmp_path / "a", mirror=mirror.url)
    assert "builds it differently" not in str(wrong_download.value)
    [build] = data_sets()["mathcheck-gsm"].builds
    monkeypatch.setitem(BUILDERS, build.builder, lambda root, args: ["a line the published file does not have\n"])
    with Mirror(files) as mirror:
        with pytest.raises(FetchError, match="builds it differently from the published file: report it") as wrong:
            fetch(["mathcheck-gsm"], tmp_path / "b", mirror=mirror.url)
    assert "proxy" not in str(wrong.value) and not (tmp_path / "b" / build.path).exists()
