"""The ``cooper`` reward: a VerifyRM updated online during RL (Cooper, arXiv 2508.05613).

Scoring is the ``verifyrm`` reward's: sigmoid of the classifier's logit (``discrete=true``: 1 above the
threshold, else 0, the paper's discrete-reward ablation). After a batch has been scored and its scores handed
out, :meth:`CooperReward.learn` updates the model: rollouts are grouped by prompt; a group's positive is a
rollout the rule reward verifies as correct (the first, or a random one); its negative comes from the configured
source (:mod:`rewards.cooper_negatives`) and is kept only if it is wrong (up to ``max_tries`` attempts); a rollout
or a candidate whose rule check failed (a timeout, a crash: a 0 that is no verdict) is neither; groups without a
valid pair are masked out. The loss is ``-log sigmoid(s_pos - s_neg)`` on raw logits, averaged over
valid pairs; AdamW (lr 1e-5, weight decay 0.01, ``warmup_updates`` of linear warm-up), gradients clipped at 1.0,
the step skipped when the gradient norm is not finite. Scoring and updating share one lock, so a score never
reads half-updated weights. Checkpoints (model, optimizer, step, sampler) are written atomically every
``checkpoint_every`` updates into ``checkpoint_dir``; a new instance pointed at the same folder resumes from it.
Under a trainer, the state travels with the policy's checkpoints instead (:meth:`CooperReward.save_state`,
:meth:`CooperReward.load_state`): a run stopped between the two saves would otherwise resume a policy of one step
with a reward model of another.
With ``snapshot_dir``, the weights alone are also kept every ``snapshot_every`` updates (``update-NNNN``), each
named by its hash (:meth:`CooperReward.artifacts`), so that a figure of a run can be recomputed from the model
that made it. An update whose every optimizer step was skipped (a non-finite gradient norm) left the model as it
was: it is not counted (``skipped_steps`` says so) and starts no checkpoint.

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
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from harness.core.answers import boxed_answers
from rewards.checkpoint import load_optimizer_states, read_state, weights_digest, write_checkpoint, write_weights
from rewards.classifier import ClassifierConfig, SequenceClassifier
from rewards.contract import Artifact, ClosesOnExit, Item, Reward, Score, close_reward
from rewards.cooper_negatives import perturb_final_answer, rewrite_messages
from rewards.rule import RuleReward
from rewards.verifyrm import VerifyRMFormat, scores_from_logits


class NegativeSource(Enum):
    """Where a group's negative comes from (the ``negatives`` option): an assistant model's rewrite of the
    positive (the released method), a perturbation of its final answer, or a wrong rollout of the same group."""

    ASSISTANT = "assistant"
    PERTURB = "perturb"
    GROUP = "group"


@dataclass(frozen=True)
class AssistantSpec:
    """Where the assistant's negatives come from: a generation backend, its model and server, and its budget."""

    backend: str
    model: str
    base_url: str
    max_tokens: int


@dataclass(frozen=True)
class Pair:
    positive: Item
    negative: Item


class CooperReward(ClosesOnExit):
    """VerifyRM scores plus an online pairwise update after each scored batch (the reward learns)."""

    def __init__(
        self,
        model: str,
        negatives: Literal["assistant", "perturb", "group"] = "assistant",
        positive: Literal["first", "random"] = "first",
        assistant: str = "",
        assistant_backend: str = "transformers",
        assistant_base_url: str = "",
        assistant_max_tokens: int = 1024,
        max_tries: int = 3,
        learning_rate: float = 1e-5,
        weight_decay: float = 0.01,
        grad_clip: float = 1.0,
        micro_batch_pairs: int = 8,
        update_steps: int = 1,
        threshold: float = 0.5,
        discrete: bool = False,
        negative_check: Literal["reference", "positive"] = "reference",
        warmup_updates: int = 0,
        checkpoint_dir: str = "",
        checkpoint_every: int = 10,
        snapshot_dir: str = "",
        snapshot_every: int = 5,
        device: str = "auto",
        dtype: str = "auto",
        max_length: int = 0,
        seed: int = 0,
    ) -> None:
        self.negatives = NegativeSource(negatives)
        if self.negatives is NegativeSource.ASSISTANT and not assistant:
            raise ValueError("negatives=assistant needs assistant=MODEL (or use negatives=perturb or group)")
        self.positive = positive
        self.max_tries = max_tries
        self.learning_rate, self.weight_decay, self.grad_clip = learning_rate, weight_decay, grad_clip
        self.micro_batch_pairs = micro_batch_pairs
        if update_steps < 1:
            raise ValueError(f"update_steps must be at least 1 (got {update_steps})")
        self.update_steps = update_steps
        self.threshold = threshold
        self.discrete = discrete
        self.negative_check = negative_check
        self.warmup_updates = warmup_updates
        self.checkpoint_dir = Path(checkpoint_dir).expanduser() if checkpoint_dir else None
        self.checkpoint_every = checkpoint_every
        self.snapshot_dir = Path(snapshot_dir).expanduser() if snapshot_dir else None
        self.snapshot_every = snapshot_every
        self._artifacts: list[Artifact] = []
        self.negative_yield: dict[str, float] = {}
        self.rng = random.Random(seed)
        self.format = VerifyRMFormat.for_model(model)
        self._model, self._classifier_options = model, (device, dtype, max_length)
        self._optimizer: Any = None
        self._start_from(self.checkpoint_dir if self.checkpoint_dir and read_state(self.checkpoint_dir) else None)
        self._lock = threading.RLock()
        self.rule: Reward = RuleReward(workers=2)
        self._owns_rule = True
        self._assistant_spec = AssistantSpec(assistant_backend, assistant, assistant_base_url, assistant_max_tokens)
        self._assistant: Any = None

    def preflight(self) -> list[str]:
        """The classifier's needs, and the assistant's when negatives come from one."""
        from harness.core.readiness import Preflight

        problems = self.classifier.preflight()
        if self.negatives is NegativeSource.ASSISTANT and isinstance(self.assistant, Preflight):
            problems += self.assistant.preflight()
        return problems

    # -- scoring ------------------------------------------------------------------------------
    def _texts(self, items: Sequence[Item]) -> list[str]:
        return self.format.render_items(items)

    def score(self, items: Sequence[Item]) -> list[Score]:
        with self._lock:
            logits = self.classifier.logits(self._texts(items))
        scores = scores_from_logits(logits, self.threshold)
        if self.discrete:  # the released code's reward_scale: 0 or 1 by the threshold
            return [Score(1.0 if s.verdict else 0.0, s.verdict, s.reason, s.answer) for s in scores]
        return scores

    # -- learning -----------------------------------------------------------------------------
    @property
    def optimizer(self) -> Any:
        if self._optimizer is None:
            self.classifier.load()
            torch = self.classifier.torch
            self._optimizer = torch.optim.AdamW(
                self.classifier.model.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay
            )
            if self._resume_from is not None:
                self._optimizer.load_state_dict(load_optimizer_states(self._resume_from, torch)["optimizer"])
        return self._optimizer

    def _start_from(self, folder: Path | None) -> None:
        """The classifier, update count and sampler from a checkpoint folder, or as configured (``None``); the
        optimizer's state follows from the same folder when the optimizer is first needed."""
        state = read_state(folder) if folder is not None else None
        if folder is not None and state is None:
            raise FileNotFoundError(f"{folder} holds no cooper checkpoint (no state.json)")
        start = str(folder) if folder is not None else self._model
        self.classifier = SequenceClassifier(ClassifierConfig(start, *self._classifier_options))
        self._optimizer = None
        self._resume_from = folder
        self.step = int(state["step"]) if state else 0
        if state and "rng" in state:
            version, internal, gauss = state["rng"]
            self.rng.setstate((version, tuple(internal), gauss))

    def save_state(self, folder: Path) -> None:
        """The reward model, its optimizer, update count and sampler, into ``folder`` (beside a policy
        checkpoint): what :meth:`load_state` resumes from."""
        with self._lock:
            write_checkpoint(Path(folder), self.classifier, {"optimizer": self.optimizer.state_dict()},
                             {"step": self.step, "rng": list(self.rng.getstate())})
            self.format.save(Path(folder))

    def load_state(self, folder: Path | None) -> None:
        """Resume with the policy: from a folder :meth:`save_state` wrote, or, for a policy starting at step 0
        (``None``), from the configured model, whatever ``checkpoint_dir`` holds."""
        with self._lock:
            self._start_from(Path(folder) if folder is not None else None)

    def learn(self, items: Sequence[Item], scores: Sequence[Score]) -> Mapping[str, float]:
        """One Cooper update from a scored batch. Returns the loss, margin and gradient norm, and the bookkeeping
        of pairs: groups, valid pairs, groups without a rule-verified positive, and groups with a positive for which
        no negative could be made (two different reasons for a missing pair)."""
        groups = _group_by_prompt(items)
        verdicts = [checked(s) for s in self.rule.score(items)]
        pairs = self.make_pairs(items, groups, verdicts)
        no_positive = sum(not any(verdicts[i] for i in members) for members in groups)
        metrics: dict[str, float] = {
            "groups": float(len(groups)), "valid_pairs": float(len(pairs)),
            "groups_without_positive": float(no_positive),
            "groups_without_negative": float(len(groups) - no_positive - len(pairs)),
        }
        metrics.update(self.negative_yield)
        if pairs:
            metrics.update(self.update(pairs))
        return metrics

    def make_pairs(self, items: Sequence[Item], groups: list[list[int]], verdicts: Sequence[bool | None]) -> list[Pair]:
        """One pair per group that has a rule-verified rollout: that positive and a negative. ``verdicts`` are the
        rule's (:func:`checked`): a rollout it could not check (``None``) is neither positive nor negative."""
        self.negative_yield = {}
        chosen: dict[int, int] = {}
        for g, members in enumerate(groups):
            correct = [i for i in members if verdicts[i] is True]
            if correct:
                chosen[g] = correct[0] if self.positive == "first" else self.rng.choice(correct)
        negatives: dict[int, str] = {}
        if self.negatives is NegativeSource.GROUP:
            for g in chosen:
                wrong = [i for i in groups[g] if verdicts[i] is False]
                if wrong:
                    negatives[g] = items[wrong[0]].completion
        else:
            negatives = self._made_negatives({g: items[pos] for g, pos in chosen.items()})
        return [
            Pair(items[chosen[g]], Item(items[chosen[g]].question, items[chosen[g]].reference, text))
            for g, text in negatives.items()
        ]

    def _made_negatives(self, positives: dict[int, Item]) -> dict[int, str]:
        """Perturbed or assistant-written negatives, kept only when the rule reward says incorrect (not when its
        check failed: a timed-out check says nothing of the answer). Counts what was asked for and what came back
        usable in :attr:`negative_yield` (the assistant's yield)."""
        found: dict[int, str] = {}
        pending = dict(positives)
        asked = wrong = in_form = 0
        for _ in range(self.max_tries if self.negatives is NegativeSource.ASSISTANT else 1):
            if not pending:
                break
            asked += len(pending)
            candidates = self._candidates(pending)
            checks = self.rule.score([self._check_item(pending[g], text) for g, text in candidates])
            for (g, text), check in zip(candidates, checks):
                if checked(check) is False:
                    found[g] = text
                    pending.pop(g, None)
                    wrong += 1
                    in_form += bool(boxed_answers(text, limit=1))
        self.negative_yield = {"negatives_asked": float(asked), "negatives_wrong": float(wrong),
                               "negatives_wrong_boxed": float(in_form)}
        return found

    def _check_item(self, positive: Item, negative: str) -> Item:
        """What a negative is checked against: the reference (ours), or the positive's answer (the released)."""
        if self.negative_check == "positive":
            return Item(positive.question, positive.completion, negative)
        return Item(positive.question, positive.reference, negative)

    def _candidates(self, pending: dict[int, Item]) -> list[tuple[int, str]]:
        if self.negatives is NegativeSource.PERTURB:
            out = [(g, perturb_final_answer(it.completion)) for g, it in pending.items()]
            return [(g, text) for g, text in out if text]
        from harness.core.generation import SamplingParams

        order = list(pending)
        # the released budget: the positive's word count + 500 tokens (one budget per call: the longest's)
        budget = max(len(pending[g].completion.split()) for g in order) + 500
        outputs = self.assistant.generate(
            [rewrite_messages(pending[g].question, pending[g].completion) for g in order],
            SamplingParams(temperature=0.7, max_tokens=min(budget, self._assistant_spec.max_tokens)),
        )
        return [(g, out[0].text) for g, out in zip(order, outputs) if out and out[0].text.strip()]

    @property
    def assistant(self) -> Any:
        if self._assistant is None:
            from harness.core.generation import generator_from_options

            spec = self._assistant_spec
            self._assistant = generator_from_options(spec.backend, model=spec.model, base_url=spec.base_url)
        return self._assistant

    def update(self, pairs: Sequence[Pair]) -> dict[str, float]:
        """``update_steps`` optimizer steps on the pairwise loss over ``pairs``; the loss, margin and gradient
        norm reported are those of the first step (what the model was when the pairs were made)."""
        with self._lock:
            first = self._optimizer_step(pairs)
            taken = [first.pop("stepped")]
            for _ in range(self.update_steps - 1):
                taken.append(self._optimizer_step(pairs)["stepped"])
            skipped = taken.count(0.0)
            if skipped == len(taken):  # no optimizer step was taken: the model is unchanged, so no update counts
                return {**first, "skipped_steps": float(skipped), "step": float(self.step)}
            self.step += 1
            if self.checkpoint_dir and self.checkpoint_every and self.step % self.checkpoint_every == 0:
                self.save_checkpoint()
            if self.snapshot_dir and self.snapshot_every and self.step % self.snapshot_every == 0:
                self._save_snapshot()
        return {**first, "skipped_steps": float(skipped), "step": float(self.step)}

    def _save_snapshot(self) -> None:
        """The weights after this update, in their own folder, kept; recorded by hash (:meth:`artifacts`)."""
        folder = self.snapshot_dir / f"update-{self.step:04d}"
        write_weights(folder, self.classifier)
        self.format.save(folder)  # loads as verifyrm:model=FOLDER
        self._artifacts.append(Artifact(self.step, folder.name, str(folder), weights_digest(folder)))

    def artifacts(self) -> list[Artifact]:
        """The weight snapshots written so far, every ``snapshot_every`` updates (none without ``snapshot_dir``)."""
        return list(self._artifacts)

    def _optimizer_step(self, pairs: Sequence[Pair]) -> dict[str, float]:
        optimizer = self.optimizer
        clf = self.classifier
        torch = clf.torch
        model = clf.model
        model.train()
        optimizer.zero_grad()
        total_loss, margins = 0.0, []
        try:
            for start in range(0, len(pairs), self.micro_batch_pairs):
                chunk = pairs[start : start + self.micro_batch_pairs]
                pos = clf.forward(clf.encode(self._texts([p.positive for p in chunk])))
                neg = clf.forward(clf.encode(self._texts([p.negative for p in chunk])))
                diff = pos - neg
                loss = -torch.nn.functional.logsigmoid(diff).sum() / len(pairs)
                loss.backward()
                total_loss += float(loss.detach())
                margins += diff.detach().tolist()
            grad_norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), self.grad_clip))
            stepped = bool(torch.isfinite(torch.tensor(grad_norm)))
            if stepped:
                warm = min(1.0, (self.step + 1) / self.warmup_updates) if self.warmup_updates else 1.0
                for group in optimizer.param_groups:
                    group["lr"] = self.learning_rate * warm
                optimizer.step()
            optimizer.zero_grad()
        finally:
            model.eval()
        return {"loss": total_loss, "margin": sum(margins) / len(margins), "grad_norm": grad_norm,
                "stepped": float(stepped)}

    def save_checkpoint(self) -> None:
        if self.checkpoint_dir is None:
            raise ValueError("no checkpoint_dir was given")
        with self._lock:
            write_checkpoint(
                self.checkpoint_dir, self.classifier, {"optimizer": self.optimizer.state_dict()},
                {"step": self.step, "rng": list(self.rng.getstate())},
            )
            self.format.save(self.checkpoint_dir)  # the folder then also loads as verifyrm:model=FOLDER

    def use_rule(self, rule: Reward) -> None:
        """Check rollouts with the run's rule reward instead of a pool of its own (:class:`ChecksWithRule`)."""
        if self._owns_rule:
            close_reward(self.rule)
        self.rule, self._owns_rule = rule, False

    def close(self) -> None:
        if self._owns_rule:
            close_reward(self.rule)
        close_reward(self._assistant)  # an assistant on the vllm backend holds an engine process
        self._assistant = None

    def __getstate__(self) -> dict:
        raise TypeError("a cooper reward owns its weights and optimizer: serve it, do not copy it")


def checked(score: Score) -> bool | None:
    """The rule's verdict on a rollout or a candidate negative, or ``None`` when its check failed (a timeout, a
    crash): a failed check's 0 is no verdict, so what it checked is used as neither a positive nor a negative."""
    return None if score.is_failure else score.verdict


def _group_by_prompt(items: Sequence[Item]) -> list[list[int]]:
    """Indices of items sharing question and reference (a prompt id in metadata wins when present)."""
    groups: dict[Any, list[int]] = {}
    for i, it in enumerate(items):
        key = it.metadata.get("prompt_id") or (it.question, it.reference)
        groups.setdefault(key, []).append(i)
    return list(groups.values())
