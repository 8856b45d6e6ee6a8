"""Resolving --passes names: built-ins, module:attr, and one-line errors with suggestions."""

import pytest
import tvm

from passfuzz.passes.names import PassSpecError, resolve, resolve_list


def test_builtin_and_custom_passes_resolve():
    specs = resolve_list("FoldConstant, ReorderTakeAfterMatmul,tests.planted_passes:permute_as_reshape")
    assert [s.text for s in specs] == ["FoldConstant", "ReorderTakeAfterMatmul",
                                       "tests.planted_passes:permute_as_reshape"]
    assert all(isinstance(s.instantiate(), tvm.transform.Pass) for s in specs)
    assert specs[0].python_expr() == "relax.transform.FoldConstant()"


def test_callable_returning_a_pass_resolves():
    assert isinstance(resolve("tvm.relax.transform:FoldConstant").instantiate(), tvm.transform.Pass)


@pytest.mark.parametrize("text, expected", [
    ("FoldConstnat", "did you mean FoldConstant"),
    ("NoSuchThingAtAll", "module.path:attr"),
    ("no_such_module_xyz:p", "cannot import"),
    ("tests.planted_passes:nothing", "has no attribute"),
    ("numpy:pi", "cannot construct"),
    ("AlterOpImpl", "without arguments"),
    ("", "empty pass name"),
])
def test_bad_names_give_one_line(text, expected):
    with pytest.raises(PassSpecError) as info:
        resolve(text)
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_arguments_on_the_command_line():
    specs = resolve_list("ToMixedPrecision(out_dtype=float16),ConvertLayout({'relax.nn.conv2d': ['NHWC', 'OHWI']}),"
                         "TopologicalSort('breadth-first', direction='from-outputs')")
    assert [s.name for s in specs] == ["ToMixedPrecision", "ConvertLayout", "TopologicalSort"]
    assert specs[0].kwargs == (("out_dtype", "float16"),)
    assert specs[1].args == ({"relax.nn.conv2d": ["NHWC", "OHWI"]},)
    assert specs[2].python_expr() == "relax.transform.TopologicalSort('breadth-first', direction='from-outputs')"
    assert all(isinstance(s.instantiate(), tvm.transform.Pass) for s in specs)


@pytest.mark.parametrize("text, expected", [
    ("ToMixedPrecision(out_dtype=", "unbalanced"),
    ("FoldConstant(1, 2)", "with these arguments"),
    ("ConvertLayout({'a': [1]})x", "must end with ')'"),
    ("TopologicalSort(order=lambda: 1)", "Python literals"),
])
def test_malformed_arguments_give_one_line(text, expected):
    with pytest.raises(PassSpecError) as info:
        resolve_list(text)
    assert expected in str(info.value) and "\n" not in str(info.value)
