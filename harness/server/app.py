"""The FastAPI application behind ``harness serve``.

Routes: ``POST /get_reward`` (OpenRLHF), ``POST /slime`` (slime's remote_rm), ``POST /score`` (the item contract),
``POST /step`` (a training-step boundary: a learning reward learns, a recorded run closes its step),
``GET /health``, ``GET /metrics``. Bad input
is answered with a 4xx and a message (FastAPI validates types; bodies over ``max_body_bytes`` get 413). Every
valid request is answered within ``deadline_s``: an item the reward fails on, or does not finish in time, gets
reward 0 and its cause, and its batch-mates their own rewards. An optional bearer token guards every route but
``/health``.
"""

from __future__ import annotations

import functools
import hmac
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from harness.core.optional import require
from harness.server.batcher import DynamicBatcher
from harness.server.observer import Recording, TrainingObserver
from harness.server.openrlhf import ProtocolError, items_from_request, parse_label, response_body
from harness.server.schemas import (  # module level: FastAPI resolves annotations here
    OpenRLHFRequest,
    ScoreRequest,
    SlimeRequest,
)
from rewards.contract import ChecksWithRule, Item, Reward, Score, reward_value
from rewards.inputs import clean_completion, prompt_text, reference_text

MetricsView = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ServerConfig:
    reward_spec: str = ""
    max_batch: int = 64
    max_wait_ms: float = 10.0
    items_per_step: int = 0
    token: str = ""
    max_body_bytes: int = 64 * 1024 * 1024  # counted as the bytes arrive, chunked bodies included
    body_timeout_s: float = 30.0  # a sender that sends no body bytes for this long gets 408
    header_timeout_s: float = 30.0  # a request line and headers not whole this long after connecting get 408
    concurrent_batches: int = 4  # stateless rewards only; a learning reward scores one batch at a time
    deadline_s: float = 60.0  # every request is answered by then; OpenRLHF's client gives up at 180 s
    stop_tokens: tuple[str, ...] = ()  # end-of-turn tokens of the policy's tokenizer, beyond the common ones
    recording: Recording | None = None  # record the served training run in the store


def _score_json(r: Score) -> dict[str, Any]:
    return {"value": r.value, "verdict": r.verdict, "reason": r.reason, "answer": r.answer, "detail": r.detail,
            "error": f"{r.reason}: {r.detail}" if r.is_failure else None}


class BodyGuard:
    """ASGI middleware that counts request-body bytes as they arrive, chunked or not, and refuses a body over
    ``max_bytes`` (413) as soon as it passes the limit, or a sender that sends nothing for ``timeout_s`` (408): the
    refusal is sent at once, the application below sees the client gone, and whatever it answers is dropped. The
    server never holds more than the limit of one body, however the body is sent."""

    def __init__(self, app: Any, max_bytes: int, timeout_s: float, on_refused: Callable[[int], None] = lambda s: None
                 ) -> None:
        self.app, self.max_bytes, self.timeout_s, self.on_refused = app, max_bytes, timeout_s, on_refused

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        import asyncio

        seen = 0
        started = refused = False

        async def refuse(status: int, detail: str) -> dict:
            nonlocal refused
            if not started and not refused:
                refused = True
                self.on_refused(status)
                body = json.dumps({"detail": detail}).encode()
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json"), (b"connection", b"close"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
            return {"type": "http.disconnect"}

        async def counted() -> dict:
            nonlocal seen
            if refused:
                return {"type": "http.disconnect"}
            try:
                message = await asyncio.wait_for(receive(), self.timeout_s)
            except asyncio.TimeoutError:
                return await refuse(408, f"no body bytes for {self.timeout_s:g}s; send the request whole")
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    return await refuse(413, f"body over the {self.max_bytes}-byte limit (refused at {seen} bytes)")
            return message

        async def sending(message: dict) -> None:
            nonlocal started
            if refused:
                return  # the refusal was the answer
            if message["type"] == "http.response.start":
                started = True
                if 400 <= message["status"] < 500:  # every refusal, whichever layer answered it
                    self.on_refused(message["status"])
            await send(message)

        await self.app(scope, counted, sending)


@functools.lru_cache(maxsize=1)
def ascii_json_response() -> Any:
    """JSON responses written with ASCII escapes: a lone surrogate in an echoed answer is valid JSON that way,
    where UTF-8 encoding would fail and turn a reward into a 500."""
    from fastapi.responses import JSONResponse

    class _Ascii(JSONResponse):
        def render(self, content: Any) -> bytes:
            return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")

    return _Ascii


def validation_answer(errors: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], int]:
    """A body the schema refuses, answered in words: 400 when it is not JSON at all, else 422 with one line naming
    each field and what is wrong with it (and the same as a list, without the inputs echoed back)."""
    if any(e.get("type") == "json_invalid" for e in errors):
        why = next(e for e in errors if e.get("type") == "json_invalid").get("ctx", {}).get("error", "")
        return {"detail": f"the body is not JSON ({why}); send a JSON object such as "
                          '{"query": [...], "prompts": [...], "labels": [...]}'}, 400
    problems = [{"field": ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body", "problem": e.get("msg", "")}
                for e in errors]
    return {"detail": "; ".join(f"{p['field']}: {p['problem']}" for p in problems), "errors": problems}, 422


def create_app(reward: Reward, config: ServerConfig, metrics_view: MetricsView | None = None) -> Any:
    """The application serving ``reward``. ``metrics_view`` turns this process's counters into what ``GET /metrics``
    answers (a Ray Serve replica adds every other replica's); by default they are answered as they are."""
    fastapi = require("fastapi", "the reward server")
    observer = _observer(reward, config)
    batcher = DynamicBatcher(
        reward, config.max_batch, config.max_wait_ms / 1000.0, config.items_per_step, config.concurrent_batches,
        config.deadline_s, on_batch=observer.observe if observer else None,
        on_update=observer.updated if observer else None,
    )

    @asynccontextmanager
    async def lifespan(app: Any):
        await batcher.start()
        yield
        await batcher.stop()
        if observer is not None:
            observer.close()

    app = fastapi.FastAPI(title="harness reward server", lifespan=lifespan, default_response_class=ascii_json_response())
    app.state.batcher = batcher
    app.state.observer = observer

    _guard(app, config, batcher)
    _routes(app, config, batcher, observer, metrics_view)
    return app


def _observer(reward: Reward, config: ServerConfig) -> TrainingObserver | None:
    """The recorder of the served training run, when one is recorded; one rule reward checks each rollout, for the
    record and for a reward that checks with the rule reward itself (Cooper)."""
    if not config.recording:
        return None
    rule = None
    if isinstance(reward, ChecksWithRule):  # one rule reward checks each rollout, for the record and for the reward
        from rewards.rule import RuleReward

        rule = RuleReward(workers=2)
        reward.use_rule(rule)
    return TrainingObserver(config.recording, config.reward_spec, rule=rule)


def _guard(app: Any, config: ServerConfig, batcher: DynamicBatcher) -> None:
    """What stands before the routes: the body limit and the token, readable answers to unreadable bodies, and the
    count of every refused request."""
    fastapi = require("fastapi", "the reward server")

    @app.middleware("http")
    async def guard(request: Any, call_next: Any) -> Any:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > config.max_body_bytes:
            return fastapi.responses.JSONResponse(
                {"detail": f"body of {length} bytes is over the {config.max_body_bytes}-byte limit"}, status_code=413
            )
        if config.token and request.url.path != "/health":
            # a bearer header, or ?token= in the URL for clients that send only a URL (OpenRLHF's remote_url)
            given = request.headers.get("authorization", "").removeprefix("Bearer ") or request.query_params.get("token", "")
            if not hmac.compare_digest(given.encode(), config.token.encode()):
                return fastapi.responses.JSONResponse(
                    {"detail": "missing or wrong token: send 'Authorization: Bearer TOKEN', or add ?token=TOKEN to "
                               "the URL (for OpenRLHF: --reward.remote_url http://HOST:PORT/get_reward?token=TOKEN)"},
                    status_code=401)
        return await call_next(request)

    @app.exception_handler(RecursionError)
    async def too_deep(request: Any, exc: RecursionError) -> Any:
        return ascii_json_response()({"detail": "the JSON body is nested too deep to read"}, status_code=400)

    @app.exception_handler(fastapi.exceptions.RequestValidationError)
    async def unreadable(request: Any, exc: Any) -> Any:
        return ascii_json_response()(*validation_answer(exc.errors()))

    def refused(status: int) -> None:
        batcher.stats.refused_requests += 1

    app.add_middleware(BodyGuard, max_bytes=config.max_body_bytes, timeout_s=config.body_timeout_s,
                       on_refused=refused)


def _routes(app: Any, config: ServerConfig, batcher: DynamicBatcher, observer: TrainingObserver | None,
            metrics_view: MetricsView | None) -> None:
    """The routes: OpenRLHF's /get_reward, slime's /slime, the native /score, /step, /health and /metrics."""
    fastapi = require("fastapi", "the reward server")

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "reward": config.reward_spec}

    @app.get("/metrics")
    async def metrics() -> dict[str, Any]:
        snapshot = batcher.stats.snapshot()
        if observer is not None:
            snapshot["recorded_run"] = observer.run_id
            snapshot["recorded_steps"] = observer.step
        return await metrics_view(snapshot) if metrics_view is not None else snapshot

    @app.post("/get_reward")
    async def get_reward(body: OpenRLHFRequest) -> dict[str, Any]:
        try:
            items = items_from_request(body.query, body.prompts, body.labels, config.stop_tokens)
        except ProtocolError as exc:
            raise fastapi.HTTPException(status_code=400, detail=str(exc)) from None
        return response_body(await batcher.score(items))

    @app.post("/score")
    async def score(body: ScoreRequest) -> dict[str, Any]:
        items = [
            Item(i.question, reference_text(i.reference), clean_completion(i.completion, config.stop_tokens), i.metadata)
            for i in body.items
        ]
        return {"scores": [_score_json(r) for r in await batcher.score(items)]}

    @app.post("/slime")
    async def slime(body: SlimeRequest) -> float:
        """slime's remote reward model: the JSON body of the answer is the reward itself (a failure is 0.0;
        its cause is in /metrics and the server's log, since slime reads nothing else)."""
        try:
            reference, meta = parse_label(body.label)
        except ProtocolError as exc:
            raise fastapi.HTTPException(status_code=400, detail=f"label: {exc}") from None
        item = Item(prompt_text(body.prompt), reference, clean_completion(body.response, config.stop_tokens),
                    {**body.metadata, **meta})
        [result] = await batcher.score([item])
        return float(reward_value(result) or 0.0)

    @app.post("/step")
    async def step() -> dict[str, Any]:
        import asyncio

        if not batcher.learns and observer is None:
            raise fastapi.HTTPException(
                status_code=409, detail="this reward does not learn and no run is recorded; /step is for cooper or --record"
            )
        metrics = await asyncio.to_thread(batcher.step_now) if batcher.learns else {}
        if observer is not None:
            observer.close_step()
        return {"updated": bool(metrics), "metrics": metrics}
