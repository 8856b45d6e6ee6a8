"""Packed layouts (NCHW4c, OIHW4o): what ConvertLayout leaves for the passes after it.

A module written as TVM's tests write ConvertLayout's NCHW4c result is not imported: TVM cannot
compile a packed convolution (no legalization), so the catalogue neither imports nor draws one; its
numpy reference computes what TVM computes for the plain convolution, ready for the day TVM can. Packed
pools do compile and are drawn, rarely; a pass that unpacks them with the inner block taken as the
major part of the channel is found by a short fuzz run over pools seeded with one such module, and
its corrected twin is not.
"""

import re
from pathlib import Path

import numpy as np
import pytest
import tvm
from hypothesis import HealthCheck, given, settings
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

from passfuzz.campaign.engine import FuzzConfig, Fuzzer
from passfuzz.ir.catalogue import BY_NAME
from passfuzz.ir.graph import analyse, evaluate
from passfuzz.ir.program import Node, Param, Program
from passfuzz.passes.names import resolve
from passfuzz.portable.standalone import load, numpy_outputs, to_tvm
from passfuzz.relax.importer import ImportRejected, import_module
from strategies import relax_programs


@I.ir_module
class Plain:
    @R.function
    def main(x: R.Tensor((2, 8, 6, 5), "float32"), w: R.Tensor((8, 4, 3, 3), "float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, strides=[1, 2], padding=[1, 0, 0, 1], groups=2, out_dtype="float32")
            R.output(gv)
        return gv


# Plain after ConvertLayout({"relax.nn.conv2d": ["NCHW4c", "OIHW4o"]}), as TVM's
# test_transform_convert_layout.py writes its expected modules
@I.ir_module
class Packed:
    @R.function
    def main(x: R.Tensor((2, 8, 6, 5), "float32"), w: R.Tensor((8, 4, 3, 3), "float32")):
        with R.dataflow():
            lv = R.layout_transform(x, index_map=T.index_map(lambda i0, i1, i2, i3: (i0, i1 // 4, i2, i3, i1 % 4),
                                                              index_dtype="int32"), pad_value=None)
            lv1 = R.layout_transform(w, index_map=T.index_map(lambda i0, i1, i2, i3: (i0 // 4, i1, i2, i3, i0 % 4),
                                                               index_dtype="int32"), pad_value=None)
            lv2 = R.nn.conv2d(lv, lv1, strides=[1, 2], padding=[1, 0, 0, 1], groups=2, data_layout="NCHW4c",
                              kernel_layout="OIHW4o", out_layout="NCHW4c", out_dtype="float32")
            gv = R.layout_transform(lv2, index_map=T.index_map(lambda i0, i1, i2, i3, i4: (i0, i1 * 4 + i4, i2, i3),
                                                               index_dtype="int32"), pad_value=None)
            R.output(gv)
        return gv


def run(mod, arguments):
    executable, device = load(mod, "llvm")
    return numpy_outputs(relax.VirtualMachine(executable, device)["main"](*[to_tvm(a, device) for a in arguments]))


def test_an_nchw4c_convolution_is_not_imported_since_tvm_cannot_compile_it_yet_its_reference_computes_what_tvm_computes_unpacked():
    rng = np.random.default_rng(0)
    x, w = rng.uniform(-1, 1, (2, 8, 6, 5)).astype("float32"), rng.uniform(-1, 1, (8, 4, 3, 3)).astype("float32")
    with pytest.raises(ImportRejected, match="TVM cannot compile a conv2d in a packed layout"):
        import_module(Packed, arguments=[x, w])
    with pytest.raises(Exception, match="CodeGenVM cannot emit"):  # why: LegalizeOps leaves a packed conv2d as it is
        tvm.compile(Packed, target="llvm")
    # the catalogue's reference of the packed conv2d, on the operands packed as Packed packs them
    packed_x = x.reshape(2, 2, 4, 6, 5).transpose(0, 1, 3, 4, 2)  # NCHW4c: channel outer * 4 + inner
    packed_w = w.reshape(2, 4, 4, 3, 3).transpose(0, 2, 3, 4, 1)  # OIHW4o
    attrs = {"strides": [1, 2], "padding": [1, 0, 0, 1], "dilation": [1, 1], "groups": 2, "data_layout": "NCHW4c",
             "kernel_layout": "OIHW4o", "out_layout": "NCHW4c", "out_dtype": "float32"}
    program = Program((Param(packed_x.shape, "float32", -1, 1, packed_x.tolist()),
                       Param(packed_w.shape, "float32", -1, 1, packed_w.tolist()), Node("conv2d", (0, 1), attrs)), (2,))
    analyse(program)
    assert BY_NAME["conv2d"].unbuildable(attrs) and not BY_NAME["conv2d"].unbuildable(
        {**attrs, "data_layout": "NCHW", "kernel_layout": "OIHW", "out_layout": "NCHW"})
    [want] = run(Plain, [x, w])
    [packed_out] = evaluate(program)
    assert packed_out.shape == (2, 2, 5, 2, 4)
    np.testing.assert_allclose(packed_out.transpose(0, 1, 4, 2, 3).reshape(want.shape), want, rtol=1e-5, atol=1e-5)


@I.ir_module
class PackedPool:  # as TVM's test_transform_legalize_ops_nn.py writes test_max_pool2d_NCHW16c
    @R.function
    def main(x: R.Tensor((1, 2, 5, 5, 4), "float32")):
        gv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 1], padding=[1, 0, 0, 1], layout="NCHW4c")
        return gv


def fuzz_pools(tmp_path, pass_name: str):
    """A short run over pools alone, seeded with PackedPool: half its examples mutate it, the
    others are drawn, where a packed pool is rare."""
    config = FuzzConfig(passes=[resolve(f"tests.planted_passes:{pass_name}")], targets=["llvm"], corpus_dir=tmp_path,
                        max_examples=10, seed=0, round_size=10, ops=["max_pool2d"], shrink_seconds=2, reduce_seconds=3,
                        seeds=(import_module(PackedPool),))
    return Fuzzer(config).run()


def test_a_pass_that_unpacks_pools_with_the_inner_block_swapped_is_found_by_a_short_run_over_pools(tmp_path):
    stats = fuzz_pools(tmp_path, "plain_pools_swapped")
    [(finding, saved)] = stats.findings.items()
    assert finding.startswith("wrong-result-"), finding
    assert re.search(r'"layout": "NCHW\d+c"', Path(saved).read_text())  # the reduced Program keeps a packed pool


def test_its_corrected_twin_fires_on_the_same_run_and_is_not_flagged(tmp_path):
    stats = fuzz_pools(tmp_path, "plain_pools")
    assert stats.fired and not stats.findings and not stats.generator_defects, stats


def test_pools_are_drawn_on_packed_channels_now_and_then_and_convolutions_never():
    layouts = {"max_pool2d": [], "conv2d": []}

    @settings(max_examples=200, database=None, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=True)
    @given(relax_programs(ops=["max_pool2d", "conv2d"], max_nodes=4))
    def collect(program):
        for node in program.nodes:
            if node.op in layouts:
                layouts[node.op].append(node.attrs.get("layout") or node.attrs["data_layout"])
                if node.op == "max_pool2d" and node.attrs["layout"][-1] == "c":
                    assert program.values[node.args[0]].op == "layout_transform"

    collect()
    packed = [lay for lay in layouts["max_pool2d"] if lay[-1] == "c"]
    assert 0 < len(packed) < 0.2 * len(layouts["max_pool2d"]), layouts
    assert layouts["conv2d"] and all(lay in ("NCHW", "NHWC") for lay in layouts["conv2d"]), layouts
