"""``passfuzz check-tests``: the modules of TVM-style test files checked as they are, with the passes
their tests apply, a planted wrong pass found and a correct one not, and the report per file."""

import json
import textwrap

import pytest

from passfuzz.campaign.plan import RunOptions, as_it_is
from passfuzz.campaign.seeds import Seed, SeedSet, find_seeds
from passfuzz.campaign.tvm_tests import (
    file_pass,
    file_reports,
    pass_lists,
    plan_checks,
    run_checks,
)
from passfuzz.findings.corpus import load
from passfuzz.ir.program import Node, Param, Program
from passfuzz.passes.names import resolve

# A pass as a pass author would write it, rewriting permute_dims into a reshape: the planted one
# always does (wrong when two dims longer than 1 swap), its fixed twin only where that is right.
WRONG, RIGHT = "tests.planted_passes:permute_as_reshape", "tests.planted_passes:permute_as_reshape_fixed"

TVM_STYLE_TESTS = textwrap.dedent('''
    import tvm
    import tvm.testing
    from tvm import relax
    from tvm.script import ir as I, relax as R


    class TestPermute:
        @I.ir_module
        class Before:
            @R.function
            def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((3, 2), "float32"):
                with R.dataflow():
                    y = R.permute_dims(x, [1, 0])
                    z = R.add(y, y)
                    R.output(z)
                return z

        def test_it(self):
            after = relax.transform.EliminateCommonSubexpr()(self.Before)
            tvm.ir.assert_structural_equal(after, self.Before)


    def test_fold():
        @I.ir_module
        class Before:
            @R.function
            def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                with R.dataflow():
                    y = R.exp(x)
                    R.output(y)
                return y

        relax.transform.FoldConstant()(Before)


    if __name__ == "__main__":
        tvm.testing.main()
''')


def write_tests(tmp_path):
    (tmp_path / "relax").mkdir()
    (tmp_path / "relax" / "test_transform_permute.py").write_text(TVM_STYLE_TESTS)
    return tmp_path / "relax"


def test_a_wrong_pass_named_on_the_command_line_is_found_in_a_test_module_and_saved(run_cli, tmp_path):
    tests = write_tests(tmp_path)
    result = run_cli("check-tests", str(tests), "--passes", WRONG, "--corpus", "corpus",
                     "--workers", "2", "--reduce-time", "20", "--json", "report.json", cwd=tmp_path, timeout=600)
    assert result.returncode == 1, result.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    [file] = report["files"]
    assert (file["modules"], file["imported"], file["checked"]) == (2, 2, 2)
    [finding] = file["findings"]
    assert finding["module"].endswith("test_transform_permute.py::TestPermute::Before")
    assert (finding["outcome"], finding["kind"], finding["passes"]) == ("finding", "wrong-result", [WRONG])
    record = load(tmp_path / finding["path"])
    assert record.record["passes"] == [WRONG] and "permute_dims" in record.program.op_counts()
    assert report["totals"]["new_findings"] == 1 and finding["path"] in result.stdout


def test_a_correct_pass_and_the_passes_the_tests_apply_give_no_finding(run_cli, tmp_path):
    tests = write_tests(tmp_path)
    for passes in (["--passes", RIGHT], []):
        result = run_cli("check-tests", str(tests), *passes, "--corpus", "corpus", "--workers", "1",
                         "--json", "report.json", cwd=tmp_path, timeout=600)
        assert result.returncode == 0, result.stderr
        [file] = json.loads((tmp_path / "report.json").read_text())["files"]
        assert (file["modules"], file["checked"], file["findings"], file["not_checked"]) == (2, 2, [], {})
        assert not list((tmp_path / "corpus").glob("*.json"))
    # without --passes, each module was checked with the pass its own test applies
    assert file["passes"] == {"EliminateCommonSubexpr": 1, "FoldConstant": 1}
    assert "1 file" in result.stdout and "read from the cache" in result.stderr  # the second load


REFUSED = textwrap.dedent('''
    from tvm import relax
    from tvm.script import ir as I, relax as R


    def test_half():
        @I.ir_module
        class Before:
            @R.function
            def main(x: R.Tensor((4,), "float16")) -> R.Tensor((4,), "float16"):
                return R.exp(x)

        relax.transform.ToMixedPrecision(out_dtype="float16")(Before)


    def test_lowered():
        @I.ir_module
        class Before:
            @R.function
            def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
                return R.negative(x)

        relax.transform.VMShapeLower()(Before)


    @I.ir_module
    class Alone:  # no test applies a pass to it, and the file is named after none
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            return R.abs(x)
''')


def test_a_module_a_pass_contract_refuses_is_reported_so_and_not_checked(tmp_path):
    test_file = tmp_path / "test_misc.py"
    test_file.write_text(REFUSED)
    found = find_seeds([test_file])
    plan = plan_checks(found, None)
    assert [check.module.split("::", 1)[1] for check in plan.checks] == ["test_half::Before"]
    config = as_it_is(RunOptions(corpus=tmp_path / "corpus", argument_draws=1))
    results, stop = run_checks(plan.checks, config, 1, lambda index, checked: None)
    [report] = file_reports(found, plan, plan.checks, results, stop)
    assert (report.modules, report.imported, report.checked, report.findings) == (3, 3, 0, [])
    assert sorted(report.not_checked.values()) == [1, 1, 1], report.not_checked
    none, phase, precondition = sorted(report.not_checked)
    assert none == "no pass: its tests apply none and its file's name names none"
    # seen by the child that applies it
    assert precondition == "outside the pass contracts: ToMixedPrecision(out_dtype='float16') assumes an fp32-only " \
                           "module (every float tensor float32)"
    # seen in the pass list, before running: VMShapeLower's prerequisite LegalizeOps comes after it
    assert phase == "outside the pass contracts: LegalizeOps belongs to the high-level/legalized phase of TVM's " \
                    "pipelines, but runs here on a lowering module (after RemovePurityChecking)"
    assert not list((tmp_path / "corpus").rglob("*.json"))


GPU_BOUND = textwrap.dedent('''
    import tvm
    from tvm import relax
    from tvm.script import ir as I, relax as R, tirx as T


    def test_reshape_pattern_detect():
        # test_transform_rewrite_dataflow_reshape.py's kind: a kernel scheduled for a GPU, compared only
        @I.ir_module(s_tir=True)
        class Module:
            @T.prim_func(private=True, s_tir=True)
            def copy(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
                for i0 in T.thread_binding(2, thread="blockIdx.x"):
                    for i1 in T.thread_binding(4, thread="threadIdx.x"):
                        with T.sblock("copy"):
                            vi = T.axis.spatial(8, i0 * 4 + i1)
                            B[vi] = A[vi]

            @R.function
            def main(x: R.Tensor((8,), "float32")):
                with R.dataflow():
                    y = R.call_tir(Module.copy, (x,), out_ty=R.Tensor((8,), "float32"))
                    R.output(y)
                return y

        relax.transform.RewriteDataflowReshape()(Module)


    def test_on_cpu():
        @I.ir_module(s_tir=True)
        class Module:
            @T.prim_func(private=True, s_tir=True)
            def copy(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
                for i in range(8):
                    with T.sblock("copy"):
                        vi = T.axis.remap("S", [i])
                        B[vi] = A[vi]

            @R.function
            def main(x: R.Tensor((8,), "float32")):
                with R.dataflow():
                    y = R.call_tir(Module.copy, (x,), out_ty=R.Tensor((8,), "float32"))
                    R.output(y)
                return y

        relax.transform.RewriteDataflowReshape()(Module)
''')


def test_a_module_with_a_kernel_bound_to_gpu_threads_is_not_checked_on_cpu_targets_and_says_why(tmp_path):
    # built for llvm, such a kernel fails in LLVM's codegen ("InternalError: not implemented"), which
    # the table reported as "the unoptimized module does not run"
    test_file = tmp_path / "test_transform_rewrite_dataflow_reshape.py"
    test_file.write_text(GPU_BOUND)
    found = find_seeds([test_file])
    plan = plan_checks(found, None)
    assert [check.module.split("::", 1)[1] for check in plan.checks] == ["test_on_cpu::Module"]
    [report] = file_reports(found, plan, plan.checks, [None] * len(plan.checks), "")
    assert report.not_checked["holds a kernel bound to GPU threads, which the CPU targets cannot build"] == 1
    assert plan.refused[f"{test_file}::test_reshape_pattern_detect::Module"].endswith("; copy on blockIdx.x")
    on_gpu = plan_checks(found, None, gpu=True)
    assert len({check.module for check in on_gpu.checks}) == 2


def test_the_pass_lists_of_a_module_are_its_tests_then_its_files_each_with_its_prerequisites():
    seed = Seed("/x/test_transform_fuse_ops.py::TestA::Before", None, passes=("FoldConstant",))
    lists, refused = pass_lists(seed, None)
    assert [[spec.text for spec in passes] for passes in lists] == [["FoldConstant"], ["LegalizeOps", "AnnotateTIROpPattern", "FuseOps"]]
    assert refused == []
    assert pass_lists(seed, [resolve("DeadCodeElimination")])[0] == [(resolve("DeadCodeElimination"),)]
    entry = Seed("/x/test_transform_bind_symbolic_vars.py::test_a::Before::main_1", None,
                 passes=("BindSymbolicVars({'n': 16}, 'main_1')",))  # the Program names its function main
    assert [spec.text for spec in pass_lists(entry, None)[0][0]] == ["BindSymbolicVars({'n': 16}, 'main')"]
    sibling = Seed("/x/test_transform_bind_symbolic_vars.py::test_a::Before::main_2", None,
                   passes=("BindSymbolicVars({'n': 16}, 'main_1')",))  # its Program holds main_2 alone
    lists, refused = pass_lists(sibling, None, ["main_1"])
    assert refused == ["its test's BindSymbolicVars names main_1, another function of its module"]
    assert [[spec.text for spec in passes] for passes in lists] == [["BindSymbolicVars"]]  # its file's, bare
    layout = "ConvertLayout({'relax.nn.conv2d': ['NHWC', 'OHWI']})"  # arguments that do not hash, named twice
    twice = Seed("/x/test_transform_convert_layout.py::TestA::Before", None, passes=(layout, layout))
    assert [[spec.text for spec in passes] for passes in pass_lists(twice, None)[0]] == [[layout]]
    why = "BindParams with arguments that are no Python literals (dict)"
    unnamed = Seed("/x/test_other.py::test_a::Before", None, unnamed=(why,))
    assert pass_lists(unnamed, None) == ([], [f"its test applies {why}"])


def test_a_function_named_inside_a_list_argument_is_renamed_main_or_refused_as_a_sibling():
    # test_transform_lift_transform_params.py's test_share_transform_across_specified_functions: each
    # of func1, func2, func3 is a Program of its own named main, so the pass, given names its module
    # no longer holds, raised (a false pass-error)
    shared = "LiftTransformParams(shared_transform=['func1', 'func2'])"
    func1 = Seed("/x/test_transform_lift_transform_params.py::test_a::Before::func1", None, passes=(shared,))
    lists, refused = pass_lists(func1, None, ["func2", "func3"])
    assert refused == ["its test's LiftTransformParams names func2, another function of its module"]
    assert [[spec.text for spec in passes] for passes in lists] == [["LiftTransformParams"]]  # its file's, bare
    alone = Seed("/x/test_transform_lift_transform_params.py::test_a::Before::func1", None,
                 passes=("LiftTransformParams(shared_transform=['func1'])",))
    assert [spec.text for spec in pass_lists(alone, None)[0][0]] == ["LiftTransformParams(shared_transform=['main'])"]


def test_the_checks_take_the_files_in_turn_so_a_run_cut_short_reaches_every_file():
    program = Program((Param((2,), "float32", 0, 1, [0.0, 1.0]), Node("negative", (0,))), (1,))
    seeds = [Seed(f"/x/{file}.py::{module}", program, passes=("FoldConstant",))
             for file, module in (("a", "A1"), ("a", "A2"), ("a", "A3"), ("b", "B1"), ("c", "C1"), ("c", "C2"))]
    plan = plan_checks(SeedSet(seeds), None)
    assert [check.module.rsplit("::", 1)[1] for check in plan.checks] == ["A1", "B1", "C1", "A2", "C2", "A3"]


@pytest.mark.parametrize("name, named", [
    ("test_transform_fold_constant.py", "FoldConstant"),
    ("test_transform_legalize_ops_nn.py", "LegalizeOps"),
    ("test_transform_fuse_ops_by_pattern.py", "FuseOpsByPattern"),  # the longest name that fits
    ("test_transform_fuse_tir.py", "FuseTIR"),
    ("test_bind_params.py", "BindParams"),
    ("test_transform_cse.py", ""),
    ("test_vm_build.py", ""),
])
def test_a_file_named_after_a_pass_names_it(name, named):
    assert file_pass(f"/tvm/tests/python/relax/{name}") == named


def test_bad_input_is_one_line_and_exit_2(run_cli, tmp_path):
    for args, message in ((["/no/such/tests"], "no such file or directory"),
                          ([str(tmp_path), "--workers", "0"], "--workers must be at least 1"),
                          ([str(tmp_path), "--passes", "FoldConstnt"], "unknown pass 'FoldConstnt'")):
        result = run_cli("check-tests", *args, "--corpus", str(tmp_path / "corpus"), cwd=tmp_path, timeout=120)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode == 2 and len(lines) == 1 and message in lines[0], result.stderr
