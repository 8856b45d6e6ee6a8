"""Planted defects in registered gradients, each named on the command line before Gradient:
``--passes tests.planted_gradient:doubled_exp_gradient,Gradient``.

Each pass leaves the module alone; running it re-registers the gradient of an op wrongly
(``relax.exp``'s as twice the right one, ...), so the Gradient pass that follows differentiates
that op wrongly. Passes
run in forked children (passfuzz's and the reproducer's), so the registration never leaks.
"""

import tvm
from tvm import relax


def _doubled_exp_grad(orig_var, orig_call, output_grad, ctx):
    return [relax.op.multiply(relax.op.multiply(output_grad, orig_var), relax.const(2.0, orig_var.ty.dtype))]


def _register(fgradient, name="relax.exp"):
    op = tvm.ir.Op.get(name)
    op.reset_attr("FPrimalGradient")
    op.set_attr("FPrimalGradient", fgradient)


@tvm.transform.module_pass(opt_level=0, name="DoubledExpGradient")
def doubled_exp_gradient(mod, ctx):
    _register(_doubled_exp_grad)
    return mod


# The control: the same re-registration, with the right gradient (exp' = exp).
def _exp_grad(orig_var, orig_call, output_grad, ctx):
    return [relax.op.multiply(output_grad, orig_var)]


@tvm.transform.module_pass(opt_level=0, name="RightExpGradient")
def right_exp_gradient(mod, ctx):
    _register(_exp_grad)
    return mod


# Wrong only where the gradient flowing into exp is not uniform: exp' applied to dy reversed along
# its first axis. A loss that sums exp's result directly cannot show it.
def _flipped_exp_grad(orig_var, orig_call, output_grad, ctx):
    return [relax.op.multiply(relax.op.flip(output_grad, 0), orig_var)]


@tvm.transform.module_pass(opt_level=0, name="FlippedExpGradient")
def flipped_exp_gradient(mod, ctx):
    _register(_flipped_exp_grad)
    return mod


# A second op's wrong gradient: tanh' taken as 1 - y instead of 1 - y * y.
def _wrong_tanh_grad(orig_var, orig_call, output_grad, ctx):
    one = relax.const(1.0, orig_var.ty.dtype)
    return [relax.op.multiply(output_grad, relax.op.subtract(one, orig_var))]


@tvm.transform.module_pass(opt_level=0, name="WrongTanhGradient")
def wrong_tanh_gradient(mod, ctx):
    _register(_wrong_tanh_grad, "relax.tanh")
    return mod


# relu's gradient passing output_grad on whatever the operand's sign (right only where it is positive).
def _sign_blind_relu_grad(orig_var, orig_call, output_grad, ctx):
    return [output_grad]


@tvm.transform.module_pass(opt_level=0, name="SignBlindReluGradient")
def sign_blind_relu_gradient(mod, ctx):
    _register(_sign_blind_relu_grad, "relax.nn.relu")
    return mod


# where's gradient with its branches swapped.
def _swapped_where_grad(orig_var, orig_call, output_grad, ctx):
    cond, x1, x2 = orig_call.args
    return [relax.op.zeros_like(cond), relax.op.where(cond, relax.const(0.0, x1.ty.dtype), output_grad),
            relax.op.where(cond, output_grad, relax.const(0.0, x2.ty.dtype))]


@tvm.transform.module_pass(opt_level=0, name="SwappedWhereGradient")
def swapped_where_gradient(mod, ctx):
    _register(_swapped_where_grad, "relax.where")
    return mod


# A fault of the loss every isolated node is closed with (its sum), for summing over all axes:
# every node shows it alone, so none may be named after it.
def _doubled_sum_grad(orig_var, orig_call, output_grad, ctx):
    from tvm.relax.op._op_gradient import _get_shape

    two = relax.const(2.0, orig_var.ty.dtype)
    return [relax.op.broadcast_to(relax.op.multiply(output_grad, two), _get_shape(orig_call.args[0]))]


@tvm.transform.module_pass(opt_level=0, name="DoubledSumGradient")
def doubled_sum_gradient(mod, ctx):
    _register(_doubled_sum_grad, "relax.sum")
    return mod
