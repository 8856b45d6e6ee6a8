"""Passes that keep every output value but do what the observations (passfuzz.judge.observations)
watch for, each with a correct twin that differs only in the defect.

- ``relabelled`` labels main with one more than the label it finds: applied to its own output it
  changes the module again. ``labelled_once`` labels it 1 whatever it finds (idempotent).
- ``refuses_labelled`` labels main and raises on a main it labelled already: applied to its own
  output it fails, a pass-error. Its twin is ``labelled_once``.
- ``aborts_on_labelled`` is the same with the process dying instead (a crash).
- ``leaves_everything`` returns the module as it is: under FoldConstant's name (a test sets it in
  ``tvm.relax.transform``), it misses every fold the real pass makes.
"""

import os

import tvm

LABEL = "planted_label"


def _label(mod) -> int:
    attrs = mod["main"].attrs
    return int(attrs[LABEL]) if attrs is not None and LABEL in attrs else 0


@tvm.transform.module_pass(opt_level=0, name="Relabelled")
def relabelled(mod, ctx):
    mod["main"] = mod["main"].with_attr(LABEL, _label(mod) + 1)
    return mod


@tvm.transform.module_pass(opt_level=0, name="LabelledOnce")
def labelled_once(mod, ctx):
    mod["main"] = mod["main"].with_attr(LABEL, 1)
    return mod


@tvm.transform.module_pass(opt_level=0, name="RefusesLabelled")
def refuses_labelled(mod, ctx):
    if _label(mod):
        raise ValueError("main is labelled already")
    mod["main"] = mod["main"].with_attr(LABEL, 1)
    return mod


@tvm.transform.module_pass(opt_level=0, name="AbortsOnLabelled")
def aborts_on_labelled(mod, ctx):
    if _label(mod):
        os.abort()
    mod["main"] = mod["main"].with_attr(LABEL, 1)
    return mod


def leaves_everything():
    return tvm.transform.Sequential([], name="FoldConstant")
