"""Passes that keep every output value (so the differential oracle passes them) but break what the
boundary oracles check, each with a correct twin that differs only in the defect.

- ``keyword_result`` binds main's result to a variable named ``class``: the module prints
  ``class = ...``, which Python, and so the parser, rejects. ``renamed_result`` names it
  ``result`` and round-trips.
- ``counted_label`` labels main with how many times the pass has run in this process: two fresh
  copies of one module get different labels. ``constant_label`` labels every copy alike.
- ``jittered_output`` passes main's result through a packed function that flips the lowest bit
  of its first element on every other call in any process forked from this one (a counter in
  shared memory): a value well within tolerance, never bit-identical twice in a row.
  ``copied_output`` passes it through a copy.
"""

import multiprocessing

import numpy as np
import tvm
import tvm_ffi
from tvm import relax

_calls = multiprocessing.Value("i", 0)  # shared with every child forked after this import


def _with_result_bound_to(name: str):
    @tvm.transform.module_pass(opt_level=0, name=f"BindResultTo_{name}")
    def rewrite(mod, ctx):
        main = mod["main"]
        result = relax.Var(name, main.body.body.ty)
        block = relax.BindingBlock([relax.VarBinding(result, main.body.body)])
        body = relax.SeqExpr(list(main.body.blocks) + [block], result)
        mod["main"] = relax.Function(main.params, body, main.ret_ty, main.is_pure, main.attrs)
        return relax.transform.Normalize()(mod)  # types the new bindings as BlockBuilder would

    return rewrite


keyword_result = _with_result_bound_to("class")
renamed_result = _with_result_bound_to("result")


def _labelled(counted: bool):
    runs = [0]

    @tvm.transform.module_pass(opt_level=0, name="CountedLabel" if counted else "ConstantLabel")
    def label(mod, ctx):
        runs[0] += 1
        mod["main"] = mod["main"].with_attr("planted_label", f"run {runs[0] if counted else 1}")
        return mod

    return label


counted_label = _labelled(True)
constant_label = _labelled(False)


@tvm_ffi.register_global_func("tests.planted_jitter")
def _jitter(tensor):
    with _calls.get_lock():
        _calls.value += 1
        flip = _calls.value % 2
    values = tensor.numpy().copy()
    if flip and values.dtype == np.float32 and values.size:
        flat = values.reshape(-1).view(np.uint32)
        flat[0] ^= 1
    return tvm.runtime.tensor(values)


@tvm_ffi.register_global_func("tests.planted_copy")
def _copy(tensor):
    return tvm.runtime.tensor(tensor.numpy().copy())


def _through(function: str):
    @tvm.transform.module_pass(opt_level=0, name=f"Through_{function.rsplit('_', 1)[-1]}")
    def rewrite(mod, ctx):
        main = mod["main"]
        ty = main.body.body.ty
        if not isinstance(ty, relax.TensorType):
            return mod
        result = relax.Var("passed", ty)
        block = relax.BindingBlock([relax.VarBinding(result, relax.call_pure_packed(function, main.body.body,
                                                                                  ty_args=ty))])
        body = relax.SeqExpr(list(main.body.blocks) + [block], result)
        mod["main"] = relax.Function(main.params, body, main.ret_ty, main.is_pure, main.attrs)
        return relax.transform.Normalize()(mod)  # types the new bindings as BlockBuilder would

    return rewrite


jittered_output = _through("tests.planted_jitter")
copied_output = _through("tests.planted_copy")
