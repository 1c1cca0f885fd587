"""The ``cooper`` reward: a VerifyRM updated online during RL (Cooper, arXiv 2508.05613).

Scoring is the ``verifyrm`` reward's: sigmoid of the classifier's logit (``discrete=true``: 1 above the
threshold, else 0, the paper's discrete-reward ablation). After a batch has been scored and its scores handed
out, :meth:`CooperReward.learn` updates the model: rollouts are grouped by prompt; a group's positive is a
rollout the rule reward verifies as correct (the first, or a random one); its negative comes from the configured
source (:mod:`rewards.cooper_negatives`) and is kept only if it is wrong (up to ``max_tries`` attempts); groups
without a valid pair are masked out. The loss is ``-log sigmoid(s_pos - s_neg)`` on raw logits, averaged over
valid pairs; AdamW (lr 1e-5, weight decay 0.01, ``warmup_updates`` of linear warm-up), gradients clipped at 1.0,
the step skipped when the gradient norm is not finite. Scoring and updating share one lock, so a score never
reads half-updated weights. Checkpoints (model, optimizer, step) are written atomically every
``checkpoint_every`` updates into ``checkpoint_dir``; a new instance pointed at the same folder resumes from it.

Differences from the released code (ZJU-REAL/Cooper, ``recipe/cooper/collaborate.py``, ``dp_reward.py``,
``fsdp_workers.py``, ``test_qwen2.5-1.5B-Instruct.sh``), and why:

- *Same*: one pair per prompt, the first rule-correct rollout as the positive; the pairwise loss averaged over
  valid pairs; a step skipped on a non-finite gradient norm; AdamW lr 1e-5, weight decay 0.01; the input
  ``<question>…</question>\n<reference_answer>…</reference_answer>\n<completion>…</completion>`` with texts over
  1,500 characters cut to their first 500 and last 1,000; reward = sigmoid of the logit, or thresholded at 0.5.
- *The negative's check*: the released code keeps an assistant's negative when math-verify finds it *different
  from the positive response*; ours keeps it when the rule reward finds it *wrong against the reference*, which
  is what a negative must be (a rewrite that reaches the reference by another route is not one).
  ``negative_check=positive`` restores the released check.
- *The assistant's request*: as released, a completely incorrect, plausible, similar-length response, at
  temperature 0.7 with ``max_tokens`` = the positive's word count + 500; our prompt is worded anew.
- *Other negative sources*: ``perturb`` (the positive with its final answer changed) and ``group`` (a wrong
  rollout of the same prompt) are ours, for machines where no assistant LLM fits beside the policy.
- *Warm-up*: the released run asks for a warm-up over 1% of the reward model's total steps
  (``lr_warmup_steps_ratio=0.01``), but its trainer sets ``total_training_steps`` for the actor and critic
  optimizers only; the reward model's stays -1, so ``int(0.01 * -1)`` = 0 warm-up steps: in practice the released
  reward model trains at full learning rate from its first update. ``warmup_updates`` (0 by default) matches that.
- *Learning rate*: the released script sets the reward model's lr to 1e-5 against the policy's 1e-6, ten times
  the policy's; our default is the released 1e-5; at another policy lr, keep the ratio by setting
  ``learning_rate``.
- *Steps per update*: the released update runs ``ppo_epochs`` over mini-batches of pairs; ours takes
  ``update_steps`` optimizer steps (default 1) over all the step's pairs (accumulated in micro-batches of
  ``micro_batch_pairs``).
- *Orchestration*: the released trainer scores a step's rollouts with the reward model, computes advantages,
  updates the reward model from that step's pairs (``update_reward``) and then the policy (``update_actor``).
  The snapshot read here (commit 44679eb) holds ``update_reward`` in ``recipe/cooper/fsdp_workers.py`` but no call
  to it in its vendored ``verl/trainer/ppo/ray_trainer.py``; the order above is the one later published in
  ``recipe/cooper/ray_trainer.py``. Ours is the same: score a step's rollouts and hand the rewards out, learn
  from that step (positives picked by the rule reward), then score the next.
