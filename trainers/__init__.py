"""Trainers: GRPO backends that take any registered reward, in one registry (:data:`TRAINERS`).

Entries are added as the backends land (an in-process one and OpenRLHF on Ray); third-party trainers
register through the ``harness.trainers`` entry-point group.
"""

from __future__ import annotations

from harness.core.registry import Registry

TRAINERS: Registry = Registry("trainer", entry_point_group="harness.trainers")
TRAINERS.add_lazy("trl", "trainers.trl_backend:TRLTrainer", "TRL GRPOTrainer in-process (CPU or GPU)")
TRAINERS.add_lazy("openrlhf", "trainers.openrlhf_backend:OpenRLHFTrainer", "OpenRLHF 0.11 on Ray (GPU clusters)")

__all__ = ["TRAINERS"]
