"""The reward server."""

from __future__ import annotations

import click

from harness.commands.common import (
    friendly,
    run_store,
    store_option,
)
from harness.core.optional import require_all


@click.command("serve")
@click.option("--reward", "reward_spec", required=True, help="Reward spec to serve, e.g. rule or cooper:model=...")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind (loopback unless told).")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--max-batch", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--max-wait-ms", type=float, default=10.0, show_default=True, help="How long a request waits for batch-mates.")
@click.option("--items-per-step", type=click.IntRange(min=0), default=0, show_default=True,
              help="Training-step size (rollout batch x samples per prompt): a learning reward updates, a recorded "
              "run writes a step, after this many items. POST /step closes a step too.")
@click.option("--deadline", "deadline_s", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Every request is answered within this many seconds; items not scored by then get reward 0.")
@click.option("--stop-token", "stop_tokens", multiple=True,
              help="An end-of-turn token of the policy's tokenizer, beyond the common ones (repeatable).")
@click.option("--record", "record_name", default="", help="Record the served training run in the store under this "
              "name: per-step training reward, rule accuracy, agreement, response length, alarm.")
@click.option("--record-run", default="", hidden=True, help="Record into this existing run (the openrlhf trainer's).")
@click.option("--alarm-window", type=click.IntRange(min=2), default=10, show_default=True,
              help="Steps the hacking alarm looks back over, for a recorded run.")
@click.option("--replicas", type=click.IntRange(min=1), default=None,
              help="Serve with Ray Serve: this many replicas of the reward, each batching its own requests (needs "
              "the [ray] extra). Without it, one process serves.")
@click.option("--ray-address", default="", help="With --replicas: the Ray cluster to join (default: start a local Ray).")
@click.option("--replica-cpus", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="With --replicas: the CPUs each replica asks Ray for.")
@click.option("--token", envvar="HARNESS_SERVER_TOKEN", default="", help="Require this bearer token (env HARNESS_SERVER_TOKEN).")
@click.option("--max-body-mb", type=click.FloatRange(min=0.001), default=64.0, show_default=True,
              help="Largest request body in MB; a larger one is refused with 413 as its bytes arrive (chunked too), "
                   "and a sender silent for 30 s mid-body gets 408.")
@store_option
@click.pass_context
@friendly
def serve_command(ctx: click.Context, reward_spec: str, host: str, port: int, max_batch: int, max_wait_ms: float,
                  items_per_step: int, deadline_s: float, stop_tokens: tuple[str, ...], record_name: str,
                  record_run: str, alarm_window: int, replicas: int | None, ray_address: str, replica_cpus: float,
                  token: str, max_body_mb: float) -> None:
    """Serve a reward over HTTP: /get_reward (OpenRLHF), /slime, /score, /step, /health, /metrics."""
    require_all(("fastapi", "uvicorn", "pydantic", "httpx"), "harness serve")  # before the app's own imports
    from harness.server.app import ServerConfig
    from harness.server.process import serve_spec
    from harness.server.replicas import ReplicaSettings

    if (ray_address or replica_cpus != 1.0) and replicas is None:
        raise click.UsageError("--ray-address and --replica-cpus go with --replicas N")
    settings = ReplicaSettings(replicas, ray_address, replica_cpus) if replicas is not None else None

    config = ServerConfig(reward_spec, max_batch, max_wait_ms, items_per_step, token, deadline_s=deadline_s,
                          stop_tokens=stop_tokens, max_body_bytes=int(max_body_mb * 1024 * 1024))
    record = (str(run_store(ctx).path), record_run, record_name, alarm_window) if record_name or record_run else None

    def ready(config: ServerConfig, address: str) -> None:
        recording = config.recording
        where = f" on {replicas} Ray Serve replica{'s' * (replicas > 1)}" if replicas else ""
        click.echo(f"serving {reward_spec}{where} at {address} (POST /get_reward, /slime, /score, /step; GET /health, "
                   "/metrics): "
                   f"batches of up to {max_batch} items gathered for up to {max_wait_ms:g} ms, every request answered "
                   f"within {deadline_s:g} s" + (f", a step every {items_per_step} items" if items_per_step else "")
                   + (f", recording to {recording.store_path}" if recording else ""), err=True)

    serve_spec(reward_spec, config, host, port, record=record, on_ready=ready, replicas=settings)
