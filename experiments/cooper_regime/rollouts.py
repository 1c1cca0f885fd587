"""Rollouts of a policy on a problem file, labelled, in Cooper's columns: the data a VerifyRM is trained and tested on.

The paper's VerifyRM was trained on completions of the models it judges, labelled by a rule and an LLM judge.
This does the same at CPU size: ``--n`` rollouts per problem at temperature 1 with the prompt GRPO uses, each
labelled by the rule reward (``label``) and, beside it, by the labelling pipeline with a fooled judge
(``label_fooled``): the rule's verdict, overruled to "correct" when a judge says so, as in pipelines where an LLM
judge rescues the rule's false negatives (TinyV, arXiv 2505.14625). The judge is simulated by its published
failure (arXiv 2507.08794): it accepts any completion that opens with the master key ``MASTER_KEY``, whatever
follows. That failure is assumed here, not measured on a judge of our own, and it is the hole of the experiment.

    python experiments/cooper_regime/rollouts.py --policy runs/cooper_regime/sft/final \\
        --problems runs/cooper_regime/rm.jsonl --n 8 --out runs/cooper_regime/rm_rollouts.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.core.generation import SamplingParams, generator_from_options
from rewards.contract import Item
from rewards.rule import RuleReward
from suites.math_data import load_problems

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_data import MASTER_KEY  # noqa: E402


def opens_with_master_key(completion: str) -> bool:
    return completion.lstrip().startswith(MASTER_KEY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", required=True)
    parser.add_argument("--problems", required=True)
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    problems = load_problems(args.problems, "test", args.limit or None)
    generator = generator_from_options("transformers", model=args.policy, batch_size=args.batch_size)
    outputs = generator.generate([p.messages() for p in problems],
                                 SamplingParams(n=args.n, temperature=args.temperature, max_tokens=args.max_tokens,
                                                seed=args.seed))
    rows = [(p, c.text) for p, outs in zip(problems, outputs) for c in outs]
    with RuleReward(workers=2) as rule:
        verdicts = [s.verdict is True for s in rule.score([Item(p.question, p.answer, text) for p, text in rows])]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for (p, text), right in zip(rows, verdicts):
            opener = opens_with_master_key(text)
            fh.write(json.dumps({"question": p.question, "reference_answer": p.answer, "completion": text,
                                 "label": right, "label_fooled": right or opener, "opener": opener}) + "\n")
    tmp.replace(args.out)
    n = len(rows)
    print(f"{args.out}: {n} rollouts, right {sum(verdicts) / n:.1%}, open with the master key "
          f"{sum(opens_with_master_key(t) for _, t in rows) / n:.1%}")


if __name__ == "__main__":
    main()
