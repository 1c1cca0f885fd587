"""The ``openrlhf`` trainer: OpenRLHF 0.11 on Ray, for GPU clusters.

Writes the prompt dataset (``prompt`` as chat messages, the reference answer in ``label``), starts the
project's reward server on loopback (Cooper inside when the reward is ``cooper``; its steps come from
rollout batch × samples per prompt), and launches ``python -m openrlhf.cli.train_ppo_ray`` (or the configured
``launcher``, e.g. ``ray job submit --address ... -- python3 -m openrlhf.cli.train_ppo_ray``) with GRPO's
``--algo.advantage.estimator group_norm`` and the mapped options. The server records every training step into
the run, so an OpenRLHF run shows in ``harness runs``, ``harness plot --kind training`` and the tables. Every generated flag is checked against
OpenRLHF's own argument definitions (:mod:`trainers.openrlhf_flags`) before anything starts.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.core.serving import free_port, serving
from harness.core.store import NewRun, RunKind, RunRecord, RunStore, content_hash
from trainers.grpo import GRPORunConfig, option
from trainers.hacking import alarm_message
from trainers.openrlhf_flags import check_command, read_flags
from trainers.recording import RunLog


@dataclass(frozen=True)
class OpenRLHFRunConfig(GRPORunConfig):
    """GRPO on OpenRLHF: the shared options, and the cluster's."""

    launcher: str = option("", "The command that runs OpenRLHF's trainer (default 'python -m "
                               "openrlhf.cli.train_ppo_ray'; e.g. 'ray job submit --address ADDR -- python3 -m "
                               "openrlhf.cli.train_ppo_ray').")
    gpus_per_node: int = option(8, "GPUs per node for the actor (OpenRLHF's --actor.num_gpus_per_node).")
    vllm_engines: int = option(0, "vLLM engines for generation (0: one per GPU).")


def tracker_args(cfg: GRPORunConfig) -> list[str]:
    """OpenRLHF's own logger flags for ``--report-to``: its numbers to the tracker, under the same output folder
    as the TRL backend's. W&B takes the key from ``WANDB_API_KEY`` (OpenRLHF logs in with it)."""
    import os

    flags = {
        "tensorboard": ["--logger.tensorboard_dir", str(Path(cfg.output) / "tensorboard")],
        "wandb": ["--logger.wandb.key", os.environ.get("WANDB_API_KEY", ""), "--logger.wandb.project",
                  os.environ.get("WANDB_PROJECT", "rl-reward-harness"), "--logger.wandb.run_name", Path(cfg.output).name],
    }
    return flags.get(cfg.report_to, [])


def openrlhf_args(cfg: OpenRLHFRunConfig, reward_url: str, prompt_file: Path) -> list[str]:
    rollout_batch = max(1, cfg.prompts_per_step)
    gpus = cfg.gpus_per_node
    return [
        "--actor.model_name_or_path", cfg.policy,
        "--reward.remote_url", reward_url,
        "--data.prompt_dataset", str(prompt_file),
        "--data.input_key", "prompt",
        "--data.label_key", "label",
        "--data.apply_chat_template",
        "--data.max_len", str(cfg.max_prompt_length + cfg.max_completion_length),
        "--rollout.max_new_tokens", str(cfg.max_completion_length),
        "--rollout.n_samples_per_prompt", str(cfg.num_generations),
        "--rollout.batch_size", str(rollout_batch),
        "--rollout.temperature", str(cfg.temperature),
        "--train.batch_size", str(rollout_batch * cfg.num_generations),
        "--train.num_episodes", "1",
        "--train.seed", str(cfg.seed),
        "--algo.advantage.estimator", "group_norm",
        "--algo.kl.use_loss",
        "--algo.kl.estimator", "k3",  # the low-variance estimator
        "--algo.kl.init_coef", str(cfg.beta),
        "--actor.adam.lr", str(cfg.learning_rate),
        "--actor.lr_warmup_ratio", str(min(1.0, cfg.warmup_steps / max(1, cfg.max_steps))),
        "--actor.num_gpus_per_node", str(gpus),
        "--vllm.num_engines", str(cfg.vllm_engines or gpus),
        "--train.colocate_all",
        "--ckpt.output_dir", str(Path(cfg.output) / "final"),
        "--ckpt.path", str(Path(cfg.output) / "checkpoints"),
        "--ckpt.save_steps", str(cfg.save_steps),
        "--ckpt.max_num", str(cfg.keep_checkpoints),
        "--ckpt.load_enable",
        *tracker_args(cfg),
    ]


def write_prompts(cfg: GRPORunConfig, path: Path) -> int:
    from suites.math_data import load_problems

    problems = load_problems(cfg.dataset, "train", cfg.limit or None)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for p in problems:
            fh.write(json.dumps({"prompt": p.messages(), "label": p.answer}, ensure_ascii=False) + "\n")
    return len(problems)


def stop_group(process: subprocess.Popen, grace_s: float = 20.0) -> None:
    """SIGTERM to the process's whole group (the launcher and what it started), SIGKILL after ``grace_s``."""
    import os
    import signal

    try:
        os.killpg(process.pid, signal.SIGTERM)  # the leader may be gone while what it started is not
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=grace_s)
    except ProcessLookupError:
        pass


class OpenRLHFTrainer:
    """GRPO on OpenRLHF (Ray, GPUs); ``dry_run`` prints the checked command instead of launching it.

    The run is recorded like a ``trl`` run: the reward server it starts records every training step (rollout
    batch x samples per prompt) into this run, and the run is completed from them when OpenRLHF exits."""

    config_class = OpenRLHFRunConfig

    def __init__(self, config: OpenRLHFRunConfig, progress: Callable[[int, int, dict[str, float]], None] | None = None,
                 warn: Callable[[str], None] = print) -> None:
        self.config = config
        self.progress = progress or (lambda step, total, values: None)
        self.warn = warn

    def command(self, reward_url: str) -> list[str]:
        """The launch command: ``config.launcher`` (default ``python -m openrlhf.cli.train_ppo_ray``) with the
        checked OpenRLHF flags."""
        cfg = self.config
        args = openrlhf_args(cfg, reward_url, Path(cfg.output) / "prompts.jsonl")
        check_command(args, read_flags())
        launcher = shlex.split(cfg.launcher) if cfg.launcher else [sys.executable, "-m", "openrlhf.cli.train_ppo_ray"]
        return [*launcher, *args]

    def dry_run(self) -> str:
        """Write the prompt data and return the checked command, one flag a line (a shell reads it as one
        command), with a placeholder for the server's port."""
        prompts = Path(self.config.output) / "prompts.jsonl"
        command = self.command("http://127.0.0.1:PORT/get_reward")  # checked (openrlhf's flags) before any write
        n = write_prompts(self.config, prompts)
        start = next((i for i, c in enumerate(command) if c.startswith("--")), len(command))
        lines = [" ".join(shlex.quote(c) for c in command[:start])]
        for c in command[start:]:
            if c.startswith("--"):
                lines.append("    " + shlex.quote(c))
            else:
                lines[-1] += " " + shlex.quote(c)
        return (f"# {n} prompts written to {prompts}; at launch PORT is the port of the reward server it starts\n"
                + " \\\n".join(lines))

    def _follow(self, process: subprocess.Popen, store: RunStore, run_id: str, every_s: float = 5.0) -> int:
        """Wait for OpenRLHF, passing each step the reward server records to ``progress`` and the hacking
        alarm's firing to ``warn``, as the trl trainer does from its own loop."""
        shown = 0
        while True:
            try:
                returncode = process.wait(timeout=every_s)
            except subprocess.TimeoutExpired:
                returncode = None
            for step, values in sorted(store.steps(run_id).items()):
                if step > shown:
                    shown = step
                    self.progress(step, self.config.max_steps, {k: v for k, v in values.items() if v is not None})
                    if values.get("hacking_alarm"):
                        self.warn(alarm_message(step, self.config.alarm_window))
            if returncode is not None:
                return returncode

    def run(self, store: RunStore) -> RunRecord:
        cfg = self.config
        output = Path(cfg.output)
        port = free_port()
        command = self.command(f"http://127.0.0.1:{port}/get_reward")  # checked before anything is written
        n_prompts = write_prompts(cfg, output / "prompts.jsonl")
        from harness.core.versions import package_versions

        items_per_step = max(1, cfg.prompts_per_step) * cfg.num_generations
        with store.recording(NewRun(
            kind=RunKind.TRAIN, reward=cfg.reward, suite=cfg.dataset, data_source=str(output / "prompts.jsonl"),
            data_hash=content_hash((output / "prompts.jsonl").read_bytes()), n_items=n_prompts, config=asdict(cfg), versions=package_versions(),
        )) as run_id:
            run_log = RunLog(store, run_id, alarm_window=cfg.alarm_window)  # the server's observer logs the steps
            options = ["--items-per-step", str(items_per_step), "--record-run", run_id, "--alarm-window",
                       str(cfg.alarm_window)]
            with serving(cfg.reward, port, options, store=str(store.path)):  # stopped on any way out
                launcher = subprocess.Popen(command, start_new_session=True)  # a group of its own: Ray's workers too
                try:
                    returncode = self._follow(launcher, store, run_id)
                finally:
                    stop_group(launcher)
            if returncode != 0:
                raise RuntimeError(f"OpenRLHF exited with code {returncode}: {' '.join(command)}")
            run_log.complete()
        return store.get(run_id)
