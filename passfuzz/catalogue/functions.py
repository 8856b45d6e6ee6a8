"""Elementwise math beyond the basics: float functions, rounding, activations."""

from __future__ import annotations

from .base import OpDef

OPS: list[OpDef] = []
