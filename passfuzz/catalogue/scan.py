"""Scans and orderings: cumulative sums and products, sort, argsort, topk."""

from __future__ import annotations

from .base import OpDef

OPS: list[OpDef] = []
