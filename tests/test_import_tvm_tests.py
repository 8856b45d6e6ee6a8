"""The import rate of TVM's own test modules (benchmarks/import_tvm_tests.py), on one file of a
TVM checkout where there is one: half its modules are what LegalizeOps makes (call_tir of TIR
kernels), and 46 of its 122 imported before opaque kernels (b9f95d5), 92 since."""

import importlib.util
from pathlib import Path

import pytest

from passfuzz.campaign.seeds import find_seeds

from .conftest import ROOT

TVM_TESTS = Path("/work/tvm-checkout/tests/python/relax")


def _benchmark():
    spec = importlib.util.spec_from_file_location("import_tvm_tests", ROOT / "benchmarks" / "import_tvm_tests.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.skipif(not (TVM_TESTS / "test_transform_legalize_ops_binary.py").is_file(), reason="no TVM checkout")
def test_most_modules_of_a_legalization_test_file_import():
    results = _benchmark().measure([TVM_TESTS / "test_transform_legalize_ops_binary.py"], 300)
    imported, total, reasons = _benchmark().summary(results)
    assert total >= 100 and imported >= 0.7 * total, (imported, total, reasons.most_common(5))
    assert not reasons.get("op relax.call_tir is not in passfuzz's catalogue")


def test_seeds_of_a_file_are_counted_and_reasons_grouped(tmp_path):
    """The benchmark's count on a file written here: a kernel call imports, a packed call does not."""
    source = tmp_path / "test_two.py"
    source.write_text('''
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module(s_tir=True)
class Kernel:
    @T.prim_func(private=True, s_tir=True)
    def copy(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
        for i in range(2):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((2,), "float32")):
        cls = Kernel
        with R.dataflow():
            y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((2,), "float32"))
            R.output(y)
        return y

@I.ir_module
class Packed:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        with R.dataflow():
            y = R.call_dps_packed("my_copy", (x,), out_ty=R.Tensor((2,), "float32"))
            R.output(y)
        return y
''')
    benchmark = _benchmark()
    imported, total, reasons = benchmark.summary(benchmark.measure([source], 120))
    assert (imported, total) == (1, 2)
    assert list(reasons) == ["op relax.call_dps_packed is not in passfuzz's catalogue"]
    assert find_seeds([source]).summary().startswith("2 module(s) in 1 file(s), 1 imported")
