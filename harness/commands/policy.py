"""Policy evaluation on the math benchmarks."""

from __future__ import annotations

import click

from harness.commands.common import (
    emit,
    friendly,
    run_store,
    store_option,
)
from harness.core.optional import require_all
from harness.report import (
    FORMATS,
    category_table,
)


@click.command("eval-policy")
@click.option("--model", required=True, help="Policy: a folder, a hub id, or smollm2-135m.")
@click.option("--backend", default="hf", show_default=True, help="lm-eval model type: hf, vllm, local-chat-completions.")
@click.option("--model-args", default="", help="lm-eval model_args (default: pretrained=MODEL).")
@click.option("--suites", "benchmarks", default="gsm8k,svamp,math500,olympiadbench,math_odyssey", show_default=True,
              help="Comma-separated: gsm8k, svamp, math500, olympiadbench, math_odyssey, aime24, aime25, amc23, minerva_math, "
                   "or .jsonl files with question and answer fields.")
@click.option("--preset", type=click.Choice(["cooper", "greedy"]), default="cooper", show_default=True,
              help="cooper: temperature 0.7, top-p 0.95, 8 samples, mean accuracy; greedy: one greedy sample.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="A sample of N problems of each benchmark (seeded: the same N, the same problems), as eval --limit.")
@click.option("--max-gen-toks", type=click.IntRange(min=1), default=512, show_default=True)
@click.option("--batch-size", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--base-policy", default="", help="The untrained policy (for tables); default: from the training run in "
              "the store that wrote MODEL, else MODEL itself.")
@click.option("--trained-with", default="", help="The reward spec MODEL was trained with (for tables); default: from "
              "the training run in the store, else none.")
@click.option("--reward", "rewards", multiple=True, help="Also score the same generations with this reward spec "
              "(repeatable): each is stored as a run of its own that names the first, without generating again.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@store_option
@click.pass_context
@friendly
def eval_policy_command(ctx: click.Context, model: str, backend: str, model_args: str, benchmarks: str, preset: str,
                        limit: int | None, max_gen_toks: int, batch_size: int, base_policy: str, trained_with: str,
                        rewards: tuple[str, ...], fmt: str) -> None:
    """Evaluate a policy on the math benchmarks through lm-eval, scored by the rule reward (and by each --reward on
    the same generations); every generation is stored with its verdict (harness show RUN --items); prints Table 3's
    columns. Needs the lmeval and rm extras (pip install 'rl-reward-harness[lmeval,rm]'; vllm for --backend
    vllm). A first try on a CPU: --suites gsm8k --preset greedy --limit 2 --max-gen-toks 128."""
    # every install it needs, in one message, before anything is recorded
    require_all(("lm_eval", "torch", "transformers", *(("vllm",) if backend == "vllm" else ())), "harness eval-policy")
    from harness.core.generation.hf import resolve_causal_lm
    from harness.policy_eval import PolicyEvalRequest, evaluate_and_store, with_lineage

    path = resolve_causal_lm(model) if backend == "hf" else model
    store = run_store(ctx)
    request = PolicyEvalRequest(path, tuple(b.strip() for b in benchmarks.split(",") if b.strip()), backend,
                                model_args, preset, limit, max_gen_toks, batch_size, base_policy, trained_with)
    from harness.core.spec import ComponentSpec
    from rewards import build_reward
    from rewards.contract import close_reward

    for spec in rewards:  # a wrong spec fails before any generation, not after
        close_reward(build_reward(str(ComponentSpec.parse(spec))))
    run = evaluate_and_store(with_lineage(request, store, model), store)
    runs = [run]
    if rewards:
        from harness.rescoring import rescore

        for spec in rewards:
            runs.append(rescore(store, run.id, spec))
            click.echo(f"eval-policy: the same generations scored with {spec}: run {runs[-1].id}", err=True)
    emit([category_table(runs, "Policy accuracy (%)")], fmt)
