"""A planted defect in a build path: importing this module makes the target's default Relax
pipeline (``--pipeline target``) start with the planted permute-as-reshape rewrite. The plain
build is untouched, so only a run that compiles the optimized side that way can see it."""

import tvm
from tvm import relax

from tests.planted_passes import permute_as_reshape

_real_pipeline = relax.get_default_pipeline


def _planted_pipeline(target):
    return tvm.transform.Sequential([permute_as_reshape, _real_pipeline(target)])


relax.get_default_pipeline = _planted_pipeline
