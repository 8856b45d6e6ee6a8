"""[Bug][Relax][TVMScript] R.grad.take_backward prints mode="" that R.grad.take_backward does not accept: no print round trip

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the round trip). Needs: tvm.
"""
import sys

try:
    import tvm
    from tvm import relax

    # Built with the BlockBuilder: the module's own text is what does not parse.
    bb = relax.BlockBuilder()
    grad = relax.Var("grad", relax.TensorType((1,), "float32"))
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    indices = relax.Var("indices", relax.TensorType((1,), "int64"))
    with bb.function("main", [grad, x, indices]):
        out = bb.emit(relax.op.grad.take_backward(grad, x, indices, axis=0))
        bb.emit_func_output(out)
    mod = bb.get()
    text = mod.script()  # `R.grad.take_backward(grad, x, indices, axis=0, mode="")`
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    back = tvm.script.from_source(text)
except Exception as error:
    if "unexpected keyword argument 'mode'" in str(error):
        print("REPRODUCES: take_backward prints mode=\"\" and the parser's R.grad.take_backward rejects it:",
              str(error).strip().splitlines()[0])
        sys.exit(1)
    print(f"cannot run: unexpected {error!r}")
    sys.exit(125)
try:
    tvm.ir.assert_structural_equal(mod, back)
except ValueError as error:
    print(f"cannot run: the text parses now, to another module: {str(error).splitlines()[0]}")
    sys.exit(125)
print("fixed: a module calling take_backward prints and parses back to itself")
