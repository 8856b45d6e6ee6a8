"""Public Hypothesis strategies of passfuzz, for use in your own tests::

    from hypothesis import given
    from strategies import relax_programs
    from passfuzz.relax.build import build_module

    @given(relax_programs(max_nodes=6))
    def test_my_pass_keeps_well_formedness(program):
        mod = build_module(program)
        ...
"""

from ._pass_configs import pass_configs
from ._passes import pass_sequences
from ._programs import relax_programs, tensor_values
from ._schedules import dlight_rule_sequences, schedule_steps
from ._seeded import emi_programs, seeded_programs

__all__ = ["dlight_rule_sequences", "emi_programs", "pass_configs", "pass_sequences", "relax_programs", "schedule_steps", "seeded_programs", "tensor_values"]
