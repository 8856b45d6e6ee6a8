"""A planted defect in passes of TVM's build pipelines: ``planted(name)`` stands for
``relax.transform.<name>``, runs the real pass, then raises on any module that computes an
``exp``. Both pipelines look their passes up in ``relax.transform`` each time they run, so a
planted pass set there (``monkeypatch``, or ``plant()`` in a ``sitecustomize`` that reproducer
scripts and their children import) replaces the real one in every build: KillAfterLastUse in
tvm.compile's default pipeline, FuseOps in the llvm target's pipeline (``--pipeline target``)."""

import tvm
from tvm import relax

_real = {"KillAfterLastUse": relax.transform.KillAfterLastUse, "FuseOps": relax.transform.FuseOps}


def _computes_exp(mod) -> bool:
    return any("exp" in gv.name_hint for gv in mod.get_global_vars())  # the legalized exp, fused or not


def planted(name):
    def factory(*args, **kwargs):
        real = _real[name](*args, **kwargs)

        @tvm.transform.module_pass(opt_level=0, name=name)
        def defective(mod, ctx):
            mod = real(mod)
            if _computes_exp(mod):
                raise ValueError(f"planted defect: {name} rejects a module that computes exp")
            return mod
        return defective
    return factory


def plant(names=("KillAfterLastUse",)) -> None:
    for name in names:
        setattr(relax.transform, name, planted(name))
