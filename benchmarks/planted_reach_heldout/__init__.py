"""Held-out planted wrong passes of the reach set (see passes.py): run only to check, never to tune."""
