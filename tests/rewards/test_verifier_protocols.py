"""The published verifiers' protocols: each prompt byte for byte the released template, filled the way the
released code fills it; each parser on the outputs the released notebooks and READMEs show, and on malformed ones
(never a 1); the registry lists them; an end-to-end run on the packaged SmolLM2."""

import hashlib

import pytest

from rewards import REWARDS, Item, build_reward
from rewards.verifiers import compass, general_verifier, tinyv, xverify
from rewards.verifiers.protocol import Verdict

from ..models import tiny_causal_lm

# SHA-256 of each template as the released code holds it (the string's value, read at the commit each module
# names): a changed character anywhere fails here.
RELEASED = {
    "CompassVerifier src/prompts.py CV_PROMPT": (compass.DIRECT_PROMPT,
                                                 "aee9c27520639ca543f0b5077164dc32c1976be0f16c87bee7055f3b7ba45e72"),
    "CompassVerifier src/prompts.py CV_COT_PROMPT": (compass.COT_PROMPT,
                                                     "3d7456fb730b7517ca1f3bc1a28a3cc8847522ea6cc721a4d709f28bd07b4a10"),
    "xVerify src/xVerify/prompts/judge_prompt.py PROMPT": (
        xverify.PROMPT, "d8a5d3999c304b5ac64690bda8e21444d74cc45ee029078d2141c468ee1179f1"),
    "General-Reasoner verifier.py VERIFIER_PROMPT_TEMPLATE": (
        general_verifier.PROMPT, "5db841af5eef8a3f80ec8f463873ac4a77737e4205331b064d937313d505425a"),
    "TinyV tinyv_config.json TinyV-1.5B template": (
        tinyv.FALSE_NEGATIVE_TEMPLATE, "0c51a8fbd778e85ae7868e498c609afbe697a70077c40cbe5e1bc593f6165f58"),
    "TinyV tinyv_config.json TinyV-Qwen3-1.7B template": (
        tinyv.EQUIVALENCE_TEMPLATE, "15882768e219e41e9fadf1894d2806756d568f9a2aad187747c6e73726bcfee7"),
}

# a response with braces, a format field's name and another template's placeholder in it: each protocol must put
# it into its prompt unchanged (str.format reads only the template's fields; TinyV replaces its own last)
RESPONSE = "Using {question} and {{QUESTION}}: {x | x > 0} gives \\boxed{\\frac{1}{2}}."
ITEM = Item("Find half of {1}.", "1/2", RESPONSE)


@pytest.mark.parametrize("name", sorted(RELEASED))
def test_each_template_is_the_released_one_byte_for_byte(name):
    template, digest = RELEASED[name]
    assert hashlib.sha256(template.encode()).hexdigest() == digest


def test_compassverifier_and_xverify_send_the_whole_response_as_one_user_message():
    for protocol, order in ((compass.DIRECT, ["<Original Question Begin>", "<Standard Answer Begin>",
                                              "<Candidate's Answer Begin>"]),
                            (compass.COT, ["<Original Question Begin>", "<Standard Answer Begin>",
                                           "<Candidate's Answer Begin>"]),
                            (xverify.XVERIFY, ['Question: """', 'Output sentence: """', "Correct answer: "])):
        [message] = protocol.render(ITEM)
        text = message["content"]
        assert message["role"] == "user" and text.count(RESPONSE) == 1 and "{question}" not in text.replace(RESPONSE, "")
        at = [text.index(marker) for marker in order]
        assert at == sorted(at)
        assert text.index(ITEM.question) < text.index(ITEM.reference, text.index(order[1])) or protocol is xverify.XVERIFY
    assert xverify.XVERIFY.render(ITEM)[0]["content"].endswith("Correct answer: 1/2\n\nJudgement:\n")


def test_general_verifier_sends_the_extracted_answer_in_a_raw_prompt():
    prompt = general_verifier.GENERAL_VERIFIER.render(ITEM)
    assert isinstance(prompt, str) and prompt.startswith("User: ### Question: Find half of {1}.")
    assert "### Student Answer: \\frac{1}{2}\n" in prompt and RESPONSE not in prompt
    assert prompt.endswith('output "Final Decision: No". Assistant:')
    assert "### Student Answer: No Answer\n" in general_verifier.render(Item("q", "1", "I am not sure."))


@pytest.mark.parametrize("response, answer", [
    ("so \\boxed{x^{2}} is it", "x^{2}"),  # nested braces
    ("\\boxed{1} then \\boxed{2}", "2"),  # the last box
    ("Work.\nFinal Answer: 12\n", "12"),
    ("Answer: 3\nthe answer is: 4\n", "4"),  # the last phrase by position, whatever its kind
    ("Final Answer: 7<|im_end|>\n", "7"),  # a stop word at its end
    ("Final Answer: 7", None),  # the released patterns need the line's end
    ("\\boxed{}\nAnswer: 5\n", "5"),  # an empty box falls through
    ("\\boxed{3}\nAnswer: 5\n\\boxed{}", "5"),  # the last box decides, even with a full one before it
    ("nothing here", None),
])
def test_general_verifier_extraction_as_released(response, answer):
    assert general_verifier.student_answer(response) == answer


def test_tinyv_fills_by_replacement_with_the_extracted_answer():
    [message] = tinyv.VARIANTS["TinyV-Qwen3-1.7B"].render(ITEM)
    text = message["content"]
    assert "<question>Find half of {1}.</question>" in text and "<ground_truth_answer>1/2</ground_truth_answer>" in text
    assert "<model_answer>\\frac{1}{2}</model_answer>" in text and text.startswith("You are an AI tasked with identifying if")
    [fn] = tinyv.VARIANTS["TinyV-1.5B"].render(Item("q", "r", "I could not work it out, sorry. " * 20))
    assert "<model_answer>I could not work it out, sorry. I could" in fn["content"]  # none extracted: the response itself
    assert fn["content"].startswith("You are an AI tasked with identifying false negatives")


@pytest.mark.parametrize("model, variant", [
    ("zhangchenxu/TinyV-1.5B", "TinyV-1.5B"), ("/models/TinyV-1.5B-Think/", "TinyV-1.5B-Think"),
    ("zhangchenxu/TinyV-Qwen3-1.7B-Think", "TinyV-Qwen3-1.7B-Think"), ("my-own-verifier", "TinyV-Qwen3-1.7B"),
])
def test_tinyv_picks_its_variant_by_the_models_name(model, variant):
    assert tinyv.TinyVReward.choose("", model).name == variant
    with pytest.raises(ValueError, match="not one of"):
        tinyv.TinyVReward.choose("TinyV-2B", model)


C, I, U = Verdict.CORRECT, Verdict.INCORRECT, Verdict.UNPARSED


@pytest.mark.parametrize("output, verdict", [
    # src/cv_eval.ipynb's printed outputs: the direct prompt's letters, then the CoT prompt's judgments
    ("A", C), ("B", I), ("C", I),
    ("Analysis step by step:\n...\nFinal Judgment: \\boxed{A} - CORRECT", C),
    ("Analysis step by step:\n...\nFinal Judgment: \\boxed{B} - INCORRECT", I),
    ("Analysis step by step: [\n...\n]\n\nFinal Judgment: \\boxed{C} - INCOMPLETE", I),
    ("Final Judgment: (A)", C),
    # the grading scale quoted before the judgment: the last box decides, never the scale's first
    ("The scale: \\boxed{A} - CORRECT, \\boxed{B} - INCORRECT.\nFinal Judgment: \\boxed{B} - INCORRECT", I),
    ("CORRECT", I),  # the released fallback reads the last capital A-C: "C", invalid: never paid
    ("", U), ("I cannot decide.", U), ("Final Judgment: none", U),
])
def test_compassverifier_reads_as_released(output, verdict):
    assert compass.read(output).verdict is verdict


def test_compassverifier_invalid_is_a_zero_with_its_own_reason():
    score = compass.DIRECT.score("C")
    assert (score.value, score.verdict, score.reason) == (0.0, False, "invalid_response")


@pytest.mark.parametrize("output, verdict", [
    ("Correct", C), ("Incorrect", I), (" correct\n", C), ("[Correct]", U), ("Correct.", U),
    ("The answer is correct", U), ("", U),
])
def test_xverify_reads_as_its_package_counts(output, verdict):
    """src/xVerify/examples/eval_examples.json's judgments are "Correct" and "Incorrect"; stat_results counts only
    an exact (stripped, lower-cased) label as valid."""
    assert xverify.read(output).verdict is verdict


@pytest.mark.parametrize("output, verdict", [
    ("The student's answer 1/2 equals 0.5.\n\nFinal Decision: Yes", C), ("Final Decision: No", I),
    ("Final Decision: yes", U), ("Yes", U), ("", U),
])
def test_general_verifier_reads_its_pass_tag(output, verdict):
    assert general_verifier.read(output).verdict is verdict


@pytest.mark.parametrize("variant, output, verdict", [
    ("TinyV-Qwen3-1.7B", "True", C), ("TinyV-Qwen3-1.7B", "False", I), ("TinyV-1.5B", " true\n", C),
    ("TinyV-1.5B", "Maybe", U), ("TinyV-1.5B", "", U),
    ("TinyV-Qwen3-1.7B-Think", "<think>\nsame value\n</think>\n\nTrue", C),
    ("TinyV-1.5B-Think", "Reasoning... Answer: False", I),
    ("TinyV-Qwen3-1.7B-Think", "True", U),  # a thinking model's output without its thinking: invalid, as released
    # the verdict is what follows </think>: words in the thinking never decide, either way
    ("TinyV-Qwen3-1.7B-Think", "<think>\nis 0.5 true to 1/2? it is not\n</think>\n\nFalse", I),
    ("TinyV-1.5B-Think", "<think>\nfalse alarm, they agree\n</think>\nTrue", C),
    ("TinyV-1.5B-Think", "they agree</think>True", C),  # the template opened the thinking: only its close is here
    # cut off before </think> (no Answer: either): invalid, whatever the thinking said so far
    ("TinyV-Qwen3-1.7B-Think", "<think>\nthe two values are equal, so this is true", U),
    ("TinyV-1.5B-Think", "<think>\nwe compare", U),
    ("TinyV-1.5B-Think", "<think>x</think>\nAnswer: False", I),  # Answer: wins over </think>
    ("TinyV-1.5B-Think", "<think>x</think>\n", U),  # nothing after the thinking
])
def test_tinyv_reads_as_released(variant, output, verdict):
    assert tinyv.VARIANTS[variant].read(output).verdict is verdict


@pytest.mark.parametrize("protocol", [compass.DIRECT, xverify.XVERIFY, general_verifier.GENERAL_VERIFIER,
                                      *tinyv.VARIANTS.values()], ids=lambda p: p.name)
@pytest.mark.parametrize("output", ["", "\x00\x01", "Yes Yes Yes", "{" * 500, "1", "ERROR: context length exceeded"])
def test_no_protocol_pays_a_malformed_output(protocol, output):
    score = protocol.score(output)
    assert score.value != 1.0 and score.verdict is not True


def test_the_registry_lists_each_protocol_and_the_addon():
    assert {"compassverifier", "xverify", "general-verifier", "tinyv", "tinyv-addon"} <= set(REWARDS.names())


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    return tiny_causal_lm(tmp_path_factory.mktemp("tiny-lm"))


@pytest.mark.parametrize("kind", ["compassverifier", "xverify", "general-verifier", "tinyv"])
def test_each_protocol_end_to_end_through_the_transformers_backend(kind, tiny_lm):
    """From the registry to parsed scores through a real (tiny, untrained) model: every output is read into a
    score, an abstention where the model wrote nothing the protocol reads."""
    reward = build_reward(f"{kind}:model={tiny_lm},max_tokens=6,dtype=float32,temperature=0")
    try:
        assert reward.params.max_tokens == 6 and reward.params.temperature == 0.0
        items = [Item("What is 2+3?", "5", "2+3 = 5. The answer is \\boxed{5}."),
                 Item("What is 2+3?", "5", "The answer is \\boxed{7}.")]
        scores = reward.score(items)
        assert len(scores) == 2
        for s in scores:
            assert (s.value, s.verdict) in ((1.0, True), (0.0, False), (None, None))
            assert s.reason in ("correct", "incorrect", "invalid_response", "true", "false", "unparsed")
    finally:
        reward.close()


def test_the_tinyv_addon_asks_the_model_only_where_the_rule_says_no(tiny_lm):
    reward = build_reward(f"tinyv-addon:model={tiny_lm}")
    try:
        right, wrong = Item("What is 2+3?", "5", "\\boxed{5}"), Item("What is 2+3?", "5", "\\boxed{7}")
        first, second = reward.score([right, wrong])
        assert (first.value, first.detail) == (1.0, "decided by rule")
        assert second.detail.startswith("decided by tinyv:")  # the rule said no: the model decided
        assert (second.value, second.verdict) in ((1.0, True), (0.0, False), (None, None))
    finally:
        reward.close()


def test_tinyv_addon_keeps_a_model_path_with_a_comma_whole():
    """The add-on's inner spec is built as a spec, so a value with a comma or a colon is bracketed, not split."""
    from harness.core.spec import ComponentSpec
    from rewards import build_reward

    addon = build_reward("tinyv-addon:model=[/models/tinyv,v2],base_url=[http://127.0.0.1:8000/v1],backend=openai")
    try:
        inner = ComponentSpec.parse(addon.names[1])
    finally:
        addon.close()
    assert inner.options["model"] == "/models/tinyv,v2" and inner.options["base_url"] == "http://127.0.0.1:8000/v1"


def test_a_verifier_s_output_is_kept_as_detail_not_as_the_answer():
    score = compass.DIRECT.score("Some analysis.\nFinal Judgment: \\boxed{A} - CORRECT")
    assert score.answer is None and score.detail.endswith("\\boxed{A} - CORRECT")


def test_a_protocol_reward_says_what_its_generator_lacks():
    """``harness check`` and the eval command ask the reward what it lacks; a verifier answers for its generation
    backend (a model folder that does not exist), not with an empty list."""
    from dataclasses import FrozenInstanceError

    reward = build_reward("xverify:model=/no/such/verifier-model")
    problems = reward.preflight()
    assert any("/no/such/verifier-model" in p for p in problems), problems
    with pytest.raises(FrozenInstanceError):  # one protocol object is shared by every reward that uses it
        xverify.XVERIFY.max_tokens = 1


# what each protocol reads as right and as wrong, in its own label words
VERDICT_OUTPUTS = [
    (compass.DIRECT, "A", "B"), (compass.COT, "Final Judgment: \\boxed{A} - CORRECT", "Final Judgment: \\boxed{B}"),
    (xverify.XVERIFY, "Correct", "Incorrect"),
    (general_verifier.GENERAL_VERIFIER, "Final Decision: Yes", "Final Decision: No"),
    *((p, "<think>x</think>True" if p.name.endswith("Think") else "True",
       "<think>x</think>False" if p.name.endswith("Think") else "False") for p in tinyv.VARIANTS.values()),
]


@pytest.mark.parametrize("protocol, right, wrong", VERDICT_OUTPUTS, ids=lambda p: getattr(p, "name", None))
def test_a_reading_is_scored_as_its_verdict(protocol, right, wrong):
    paid, refused = protocol.score(right), protocol.score(wrong)
    assert (paid.value, paid.verdict) == (1.0, True) and not paid.is_failure
    assert (refused.value, refused.verdict) == (0.0, False)
    assert paid.reason != refused.reason  # each keeps the verifier's own label


def test_a_score_keeps_the_last_200_characters_of_the_output():
    output = "x" * 300 + "y" * 195 + "Final Decision: No"
    assert general_verifier.GENERAL_VERIFIER.score(output).detail == output[-200:]
    assert xverify.XVERIFY.score("Maybe").detail == "Maybe"


# the released generation settings (max new tokens, temperature), each read from the source its module names
RELEASED_SETTINGS = {"direct": (2048, 0.0), "cot": (2048, 0.0), "xverify": (2048, 0.1), "general-verifier": (2048, 0.0),
            "TinyV-Qwen3-1.7B": (8, 0.0), "TinyV-1.5B": (8, 0.0), "TinyV-Qwen3-1.7B-Think": (512, 0.0),
            "TinyV-1.5B-Think": (512, 0.0)}


def test_each_protocol_keeps_its_released_settings_and_a_reward_uses_them_unless_told():
    protocols = [compass.DIRECT, compass.COT, xverify.XVERIFY, general_verifier.GENERAL_VERIFIER,
                 *tinyv.VARIANTS.values()]
    assert {p.name: (p.max_tokens, p.temperature) for p in protocols} == RELEASED_SETTINGS
    with pytest.raises(AttributeError):
        xverify.XVERIFY.max_tokens = 1  # type: ignore[misc]  # a caller cannot change what was released
    reward = xverify.XVerifyReward("m", backend="openai", base_url="http://127.0.0.1:9/v1")
    assert (reward.params.max_tokens, reward.params.temperature) == (2048, 0.1)
    told = xverify.XVerifyReward("m", backend="openai", base_url="http://127.0.0.1:9/v1", max_tokens=64,
                                 temperature=0.0)
    assert (told.params.max_tokens, told.params.temperature) == (64, 0.0)


def test_general_verifiers_answer_phrase_is_read_at_the_very_start_too():
    assert general_verifier.student_answer("Answer: 5\nthat is all") == "5"
