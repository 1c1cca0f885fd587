"""lm-eval's hook into the harness: results are scored by the rule reward."""

from harness.policy_eval import process_results  # noqa: F401
