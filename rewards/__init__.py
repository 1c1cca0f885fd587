"""Rewards: one contract (:mod:`rewards.contract`), one registry (:data:`REWARDS`).

Built-in kinds are registered lazily by import path so that listing them imports nothing heavy. Third-party
rewards register with ``@REWARDS.register("name")`` or through the ``harness.rewards`` entry-point group.
"""

from __future__ import annotations

from harness.core.registry import Registry
from harness.core.spec import ComponentSpec, build
from rewards.contract import Item, LearnsFromFeedback, Reward, Score

REWARDS: Registry = Registry("reward", entry_point_group="harness.rewards", base=Reward)
REWARDS.add_lazy(
    "rule", "rewards.rule:RuleReward", "math-verify rule verifier in killable worker processes"
)
REWARDS.add_lazy(
    "mathverify", "rewards.plain_math_verify:MathVerifyReward",
    "plain math-verify as RL trainers call it (gold=boxed: verl's; dollar, raw), in killable worker processes",
)
REWARDS.add_lazy("verl-math-verify", "rewards.field_graders:VerlMathVerify",
                 "verl 0.9.1's own math_verify.compute_score, called as its trainer calls it (needs [verl])")
REWARDS.add_lazy("verl-dapo", "rewards.field_graders:VerlDapo",
                 "verl 0.9.1's own math_dapo.compute_score, the DAPO recipe's grader (needs [verl])")
REWARDS.add_lazy("cooper", "rewards.cooper:CooperReward", "VerifyRM updated online from rule-verified pairs (Cooper)")
REWARDS.add_lazy("judge", "rewards.judge:JudgeReward", "LLM-as-a-judge with the reference (VerifyBench protocol)")
REWARDS.add_lazy(
    "verifyrm", "rewards.verifyrm:VerifyRMReward", "reference-based reward model (one-logit classifier), Cooper's VerifyRM"
)
REWARDS.add_lazy(
    "compassverifier", "rewards.verifiers.compass:CompassVerifierReward",
    "CompassVerifier's released protocol (A correct, B incorrect, C invalid) on any generation backend",
)
REWARDS.add_lazy("xverify", "rewards.verifiers.xverify:XVerifyReward",
                 "xVerify's released protocol ([Correct] or [Incorrect]) on any generation backend")
REWARDS.add_lazy(
    "general-verifier", "rewards.verifiers.general_verifier:GeneralVerifierReward",
    "General-Verifier's released protocol (Final Decision: Yes/No on the extracted answer) on any backend",
)
REWARDS.add_lazy("tinyv", "rewards.verifiers.tinyv:TinyVReward",
                 "TinyV's released protocol (True/False on the extracted answer) on any generation backend")
REWARDS.add_lazy("tinyv-addon", "rewards.verifiers.tinyv:tinyv_addon",
                 "TinyV's released add-on setup: the rule reward, and TinyV only where the rule does not say correct")
REWARDS.add_lazy("remote", "rewards.remote:ServedReward",
                 "any reward served over OpenRLHF's protocol (harness serve, serve_rm, anyone's): url=.../get_reward")
REWARDS.add_lazy("cascade", "rewards.composite:cascade", "first reward decides where confident, the second on the rest")
REWARDS.add_lazy("all", "rewards.composite:all_of", "correct when every reward says correct (rule and judge agree)")
REWARDS.add_lazy("any", "rewards.composite:any_of", "correct when some reward says correct")
REWARDS.add_lazy("mean", "rewards.composite:weighted_mean", "weighted mean of several rewards' values (shaping)")


def build_reward(spec: str | ComponentSpec) -> Reward:
    """A reward from a spec such as ``rule`` or ``rule:timeout=2,workers=4``."""
    reward = build(REWARDS, spec)
    if not isinstance(reward, Reward):
        name = spec if isinstance(spec, str) else spec.name
        raise TypeError(f"reward {name!r} built {type(reward).__name__}, which has no score(items) method")
    return reward


__all__ = ["REWARDS", "Item", "LearnsFromFeedback", "Reward", "Score", "build_reward"]
