"""Inputs as documented: the server's label as the README gives it (text, a number, or an object with a reference,
also as a JSON object), a reference that is neither text nor a number refused naming the record, and records
counted as the file's lines, as JSON errors count them."""

import json

import httpx
import pytest

from harness.server.app import ServerConfig, create_app
from harness.server.openrlhf import ProtocolError, items_from_request, parse_label
from rewards.rule import RuleReward
from suites import build_suite
from suites.loading import DataError


def test_the_documented_label_forms_all_read_as_the_reference():
    assert parse_label({"reference": "6", "prompt_id": "p1"}) == ("6", {"prompt_id": "p1"})
    assert parse_label('{"reference": 6, "prompt_id": "p1"}') == ("6", {"prompt_id": "p1"})
    assert parse_label(60.0) == ("60", {}) and parse_label("60") == ("60", {})


@pytest.mark.parametrize("label, message", [
    (["6"], "got list"),
    ({"reference": ["6"]}, "reference must be text or a number, got list"),
    ('{"reference": {"a": 1}}', "reference must be text or a number, got dict"),
    ({"prompt_id": 1}, 'needs a "reference"'),
    ("[1, 2]", None),  # a bracketed answer in text is an answer
])
def test_labels_that_are_not_an_answer_are_refused_naming_the_record(label, message):
    if message is None:
        assert parse_label(label) == ("[1, 2]", {})
        return
    with pytest.raises(ProtocolError, match=r"labels\[1\]: .*" + message.replace("[", r"\[").replace("(", r"\(")):
        items_from_request(["q 1", "q 2"], ["q", "q"], ["1", label])


def test_the_server_takes_an_object_label_and_answers_400_for_a_list():
    reward = RuleReward(workers=1)
    app = create_app(reward, ServerConfig("rule"))

    async def run():
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
                good = await c.post("/get_reward", json={"query": ["q \\boxed{6}"], "prompts": ["q"],
                                                         "labels": [{"reference": "6", "prompt_id": "p"}]})
                bad = await c.post("/get_reward", json={"query": ["q \\boxed{6}"], "prompts": ["q"], "labels": [["6"]]})
                return good, bad

    import asyncio

    try:
        good, bad = asyncio.run(run())
    finally:
        reward.close()
    assert good.status_code == 200 and good.json()["rewards"] == [1.0]
    assert bad.status_code == 400 and "labels[0]" in bad.text and "got list" in bad.text


def test_a_list_reference_in_a_file_is_an_error_at_its_line(tmp_path):
    path = tmp_path / "d.jsonl"
    rows = [{"question": "q", "reference": "6", "completion": "6", "label": True},
            {"question": "q", "reference": ["6"], "completion": "6", "label": True}]
    path.write_text(json.dumps(rows[0]) + "\n\n" + json.dumps(rows[1]) + "\n")  # a blank line between
    with pytest.raises(DataError, match=rf"{path}:3: the reference must be text or a number, got list"):
        build_suite("jsonl").load(str(path))
    path.write_text(json.dumps(rows[0]) + "\n\n" + json.dumps({"question": "q"}) + "\n")
    with pytest.raises(DataError, match=rf"{path}:3: no field '(completion|reference)'"):
        build_suite("jsonl").load(str(path))
