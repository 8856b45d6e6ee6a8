"""Calling ``main`` under a convention a pass changed, at run time (tvm only).

``calling.Adapter`` decides which convention applies and calls the module through these
functions; ``reproducer.py`` copies into a script the ones its finding's adapter needs, so a
script calls the module exactly as passfuzz did (hence the one-line docstrings). Values the VM
hands to a callback are copied at once: the VM reuses their storage. ``lazy_weights`` registers
the globals before the VM is created, which looks them up.
"""

import tvm


def copy_value(value):
    """A copy of a tensor, or of a (nested) tuple of them as LazySetOutput may hand over."""
    if hasattr(value, "numpy"):
        return tvm.runtime.tensor(value.numpy())
    return [copy_value(item) for item in value]


class Collected(dict):
    """Values a callback hands over by index (set_item, fset_output), copied: the VM reuses them."""

    def put(self, index, value):
        self[int(index)] = copy_value(value)

    def in_order(self):
        return [self[index] for index in sorted(self)]


def lazy_weights(weights):
    """LazyTransformParams: transform_params() reads get_item(i), writes set_item(i, value)."""
    results = Collected()
    tvm.register_global_func("get_item", lambda index: weights[int(index)], override=True)
    tvm.register_global_func("set_item", results.put, override=True)
    return results


def param_getter(weights):
    """LazyGetInput: main reads weight i through fget_param(i, name)."""
    return lambda index, name: weights[int(index)]
