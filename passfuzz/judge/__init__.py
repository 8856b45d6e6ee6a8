"""Outcomes -> verdicts: the oracles, one example's trial, Gradient's oracle, blame of TVM's own
pipeline, and which known bug a finding is a case of."""
