"""Tensor creation: full, zeros, ones, arange, the *_like ops, tril and triu."""

from __future__ import annotations

from .base import OpDef

OPS: list[OpDef] = []
