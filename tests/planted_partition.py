"""A planted defect in the merge step of a partition pipeline, and its corrected twin.

``FuseOpsByPattern`` with a backend's patterns, then a merge step, is how TVM's partition
functions hand subgraphs to an external codegen (``partition_for_tensorrt``). These stand in for
the merge step, named on the command line as ``tests.planted_partition:<name>`` after
``FuseOpsByPattern(tensorrt)``: TVM's MergeCompositeFunctions, then, in each function it made for
a codegen, the first call of a composite function whose result has its first argument's type is
dropped and its result replaced by that argument (the defect), or nothing more (the twin).
"""

import tvm
import tvm_ffi
from tvm import relax
from tvm.relax.expr_functor import PyExprMutator, mutator


def _merge(drop: bool):
    @mutator
    class DropFirstComposite(PyExprMutator):
        dropped = False

        def visit_var_binding_(self, binding):
            value = binding.value
            if (not self.dropped and isinstance(value, relax.Call) and isinstance(value.op, relax.Var)
                    and value.args and tvm_ffi.structural_equal(value.args[0].ty, binding.var.ty)):
                self.dropped = True
                self.set_var_remap(binding.var, self.visit_expr(value.args[0]))
                return
            super().visit_var_binding_(binding)

    @tvm.transform.module_pass(opt_level=0, name="MergeDroppingAComposite" if drop else "MergeKeepingComposites")
    def merge(mod, ctx):
        mod = relax.transform.MergeCompositeFunctions()(mod)
        if drop:
            for gv, func in list(mod.functions.items()):
                if isinstance(func, relax.Function) and func.attrs is not None and "Codegen" in func.attrs:
                    mod[gv] = DropFirstComposite(mod).visit_expr(func)
        return mod

    return merge


# Planted bug: a merge that loses a composite call (its first op) inside the grouped function.
merge_dropping_a_composite = _merge(drop=True)
# The corrected twin: TVM's own merge, nothing dropped.
merge_keeping_composites = _merge(drop=False)
