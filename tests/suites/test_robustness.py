"""The robustness suite: its cases, its metrics, and the rule reward's figures on it (regression floors)."""

from collections import Counter

from suites import build_suite


def test_cases_are_many_cited_and_balanced_by_verdict():
    data = build_suite("robustness").load()
    assert len(data.rows) >= 60
    assert all(r.item.metadata["source"] for r in data.rows)
    families = Counter(r.category for r in data.rows)
    assert set(families) == {
        "master_key", "degenerate", "hedging", "copy", "invalid", "injection", "resource", "unicode", "equivalent",
        "alternating", "code_or_gibberish", "restated", "tiny_difference", "percent", "unicode_notation",
        "plain_text_math", "interval_notation", "text_wrapped", "angle_units", "column_vector", "option_text",
        "scientific_notation", "option_letter_in_expression", "program_expression", "exact_function_values",
        "set_builder", "function_renaming", "labelled_parts", "conjoined_boxes", "real_identities",
        "hidden_perturbation", "mixed_numbers", "decimal_elements", "equation_forms", "bare_answers",
        "trailing_backslash", "imaginary_unit", "thousands_separators", "trig_degrees",
        "final_answer_after_boxes", "clock_times", "command_spacing", "labelled_chains", "word_forms", "unevaluated",
        "differentials", "unrepresentable_values", "rounded_away", "list_multiplicity", "option_formats",
        "factorial_answers", "answer_section", "final_statement", "prose_reference", "verdict_reference",
        "implicit_products", "quantified_statement", "values_in_prose", "counted_list",
    }
    # the families of right answers in other notations hold wrong answers in the same notation too
    for family in ("unicode_notation", "plain_text_math", "interval_notation", "text_wrapped", "angle_units",
                   "column_vector", "option_text", "restated", "tiny_difference", "percent", "scientific_notation",
                   "option_letter_in_expression", "program_expression", "exact_function_values", "set_builder",
                   "function_renaming", "labelled_parts", "conjoined_boxes", "real_identities",
                   "mixed_numbers", "decimal_elements", "equation_forms", "bare_answers", "trailing_backslash",
                   "imaginary_unit", "thousands_separators", "trig_degrees", "final_answer_after_boxes",
                   "clock_times", "command_spacing", "labelled_chains", "word_forms", "unevaluated",
                   "differentials", "unrepresentable_values", "rounded_away", "list_multiplicity", "option_formats",
                   "factorial_answers", "answer_section", "final_statement"):
        labels = {r.label for r in data.rows if r.category == family}
        assert labels == {True, False}, family
    assert any(r.label for r in data.rows) and any(not r.label for r in data.rows)
    megabyte = [r for r in data.rows if len(r.item.completion) >= 1_000_000]
    assert megabyte and not megabyte[0].label  # stored compactly, expanded on load


def test_rule_reward_on_the_robustness_suite(rule_reward):
    suite = build_suite("robustness")
    data = suite.load()
    metrics = {m.name: m.value for m in suite.metrics(data, rule_reward.score([r.item for r in data.rows]))}
    assert metrics["false_negative_rate"] == 0.0  # measured 0/124
    assert metrics["false_positive_rate"] == 0.0  # measured 0/152
    assert metrics["timeout_rate"] == 0.0
    assert all(v == 1.0 for k, v in metrics.items() if k.startswith("accuracy/")), metrics
