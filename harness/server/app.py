"""The FastAPI application behind ``harness serve``.

Routes: ``POST /get_reward`` (OpenRLHF), ``POST /score`` (the item contract), ``POST /step`` (a training-step
boundary for rewards that learn), ``GET /health``, ``GET /metrics``. Bad input is answered with a 4xx and a
message (FastAPI validates types; bodies over ``max_body_bytes`` get 413); an item whose scoring fails gets an
error without taking down its batch-mates or the server. An optional bearer token guards every route but
``/health``.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from harness.optional import require
from harness.server.batcher import DynamicBatcher, ItemFailed
from harness.server.openrlhf import ProtocolError, items_from_request
from harness.server.schemas import OpenRLHFRequest, ScoreRequest  # module level: FastAPI resolves annotations here
from rewards.contract import Item, Reward, Score


@dataclass(frozen=True)
class ServerConfig:
    reward_spec: str = ""
    max_batch: int = 64
    max_wait_ms: float = 10.0
    items_per_step: int = 0
    token: str = ""
    max_body_bytes: int = 64 * 1024 * 1024
    concurrent_batches: int = 4  # stateless rewards only; a learning reward scores one batch at a time


def _score_json(s: Score) -> dict[str, Any]:
    return {"value": s.value, "verdict": s.verdict, "reason": s.reason, "answer": s.answer}


def create_app(reward: Reward, config: ServerConfig) -> Any:
    fastapi = require("fastapi", "the reward server")

    batcher = DynamicBatcher(
        reward, config.max_batch, config.max_wait_ms / 1000.0, config.items_per_step, config.concurrent_batches
    )

    @asynccontextmanager
    async def lifespan(app: Any):
        await batcher.start()
        yield
        await batcher.stop()

    app = fastapi.FastAPI(title="harness reward server", lifespan=lifespan)
    app.state.batcher = batcher

    @app.middleware("http")
    async def guard(request: Any, call_next: Any) -> Any:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > config.max_body_bytes:
            return fastapi.responses.JSONResponse(
                {"detail": f"body of {length} bytes is over the {config.max_body_bytes}-byte limit"}, status_code=413
            )
        if config.token and request.url.path != "/health":
            if request.headers.get("authorization") != f"Bearer {config.token}":
                return fastapi.responses.JSONResponse({"detail": "missing or wrong bearer token"}, status_code=401)
        return await call_next(request)

    async def _scores(items: list[Item]) -> list[Score]:
        results = await batcher.score(items)
        failed = [i for i, r in enumerate(results) if isinstance(r, ItemFailed)]
        if failed:
            raise fastapi.HTTPException(status_code=422, detail=f"the reward failed on item(s) {failed}")
        return results  # type: ignore[return-value]

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "reward": config.reward_spec}

    @app.get("/metrics")
    async def metrics() -> dict[str, Any]:
        return batcher.stats.snapshot()

    @app.post("/get_reward")
    async def get_reward(body: OpenRLHFRequest) -> dict[str, Any]:
        try:
            items = items_from_request(body.query, body.prompts, body.labels)
        except ProtocolError as exc:
            raise fastapi.HTTPException(status_code=400, detail=str(exc)) from None
        scores = await _scores(items)
        rewards = [0.0 if s.value is None else s.value for s in scores]
        return {
            "rewards": rewards,
            "scores": rewards,
            "extra_logs": {"verdict": [1.0 if s.verdict else 0.0 for s in scores]},
        }

    @app.post("/score")
    async def score(body: ScoreRequest) -> dict[str, Any]:
        items = [Item(i.question, i.reference, i.completion, i.metadata) for i in body.items]
        return {"scores": [_score_json(s) for s in await _scores(items)]}

    @app.post("/step")
    async def step() -> dict[str, Any]:
        import asyncio

        if not batcher.learns:
            raise fastapi.HTTPException(status_code=409, detail="this reward does not learn; /step is for cooper")
        metrics = await asyncio.to_thread(batcher.step_now)
        return {"updated": bool(metrics), "metrics": metrics}

    return app
