"""Request bodies of the reward server (validated by FastAPI; wrong types get a 422 with the field named)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class OpenRLHFRequest(BaseModel):
    query: list[str]
    prompts: list[str]
    labels: list[Any]


class ItemIn(BaseModel):
    question: str = ""
    reference: str | int | float  # datasets store answers as numbers too
    completion: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class ScoreRequest(BaseModel):
    items: list[ItemIn]


class SlimeRequest(BaseModel):
    """slime's ``--rm-type remote_rm`` body, one sample per request (``slime/rollout/rm_hub/__init__.py``,
    ``remote_rm``): the prompt (text, or chat messages), the response, and the label."""

    prompt: str | list[dict[str, Any]]
    response: str
    label: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
