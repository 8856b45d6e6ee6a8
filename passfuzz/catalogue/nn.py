"""Neural-network ops: normalizations, convolutions, pooling, padding, attention."""

from __future__ import annotations

from .base import OpDef

OPS: list[OpDef] = []
