"""Planted wrong passes that find their pattern in ways the pattern-language passes of
benchmarks/planted_focus do not (see passes.py; held-out ones in benchmarks/planted_reach_heldout)."""
