"""A planted defect in applying a tuning database: ``MetaScheduleApplyDatabase`` applies the
tuned schedules and then starts the first reduction of the first kernel from 1 instead of 0, as
a wrong rewrite of a tuned kernel's initialisation would (tests plant it with ``monkeypatch.setattr`` on
``tvm.relax.transform``, so it does not outlive them; the forked sides inherit it, the untuned
build never calls it). 0.27's Python API has no TIR statement mutator: the kernel's TVMScript is
edited and parsed back."""

import tvm
from tvm import relax

_real_apply = relax.transform.MetaScheduleApplyDatabase
_INIT = "] = T.float32(0.0)"  # a float32 reduction's initialisation


def _wrongly_initialised(func):
    text = tvm.IRModule({"main": func}).script()
    if _INIT not in text:
        return func
    return tvm.script.from_source(text.replace(_INIT, "] = T.float32(1.0)", 1))["main"]


def apply_database_initialising_wrongly(work_dir=None, enable_warning=False):
    real = _real_apply(work_dir, enable_warning)

    @tvm.transform.module_pass(opt_level=0, name="MetaScheduleApplyDatabase")
    def _apply(mod, ctx):
        mod = real(mod)
        kernels = sorted(gv.name_hint for gv, func in mod.functions.items() if isinstance(func, tvm.tirx.PrimFunc))
        if kernels:
            gv = mod.get_global_var(kernels[0])
            mod.update_func(gv, _wrongly_initialised(mod[gv]))
        return mod
    return _apply
