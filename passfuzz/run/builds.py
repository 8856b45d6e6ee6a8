"""How the optimized side is compiled: the second differential axis, beside the passes.

The original side is always the plain build (tvm.compile's default pipeline, bytecode VM,
in memory). A ``Build`` changes one or more of: the Relax pipeline (the target's own default
pipeline, which fuses), llvm's opt-level or mcpu, the codegen (C instead of LLVM), the VM's
exec mode, a round trip through export_library, the kernels' schedules (a random one drawn
per example, or MetaSchedule's tuning), and the PassContext configuration it compiles under (drawn
per example from passfuzz.passes.pass_configs). Any divergence is then a bug of that
build path, or of the passes run before it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from passfuzz.passes.pass_configs import from_config


class BuildError(ValueError):
    """A --build or --pipeline value that does not parse; the message is one line."""


@dataclass(frozen=True)
class Build:
    pipeline: str = "default"  # "default": tvm.compile's; "target": relax.get_default_pipeline(target)
    opt_level: int | None = None  # llvm opt-level 0..3
    mcpu: str | None = None  # llvm mcpu; "host" is this machine's CPU
    codegen: str | None = None  # "c": the C codegen in place of LLVM
    exec_mode: str = "bytecode"  # or "compiled": VM bytecode turned into native code
    export: bool = False  # export_library and load the library back
    schedule: str | None = None  # "random": each example draws a schedule for every kernel
    schedule_steps: tuple = ()  # one example's drawn steps ((primitive, choices), ...); not in the text
    tune: int | None = None  # MetaSchedule tuning of every kernel, this many trials each (passfuzz.run.tuning)
    tune_records: tuple = ()  # what one tuning chose ((kernel, trace JSON), ...); not in the text
    tune_dir: str = ""  # where tuning writes its logs (under the run's directory); not in the text
    dlight: str | None = None  # "random": GPU kernels get drawn dlight rules in place of the default ones
    dlight_rules: tuple | None = None  # one example's drawn rule names (passfuzz.portable.dlight_rules); not in the text
    config: str | None = None  # "random": each example draws PassContext configs (passfuzz.passes.pass_configs)
    pass_config: tuple = ()  # one example's drawn ((key, value), ...); not in the text

    @property
    def default_schedules(self) -> "Build":
        """This build with the kernels scheduled as by default: no tuning, dlight's default rules."""
        return replace(self, tune=None, tune_records=(), tune_dir="", dlight=None, dlight_rules=None)

    def with_dlight(self, rules) -> "Build":
        """This build scheduling GPU kernels with dlight ``rules`` (then Fallback)."""
        return replace(self, dlight_rules=tuple(rules))

    def with_tune_records(self, records) -> "Build":
        """This build applying ``records`` (passfuzz.portable.tuning_records) to the kernels."""
        return replace(self, tune_records=tuple((kernel, trace) for kernel, trace in records))

    def with_pass_config(self, items) -> Build:
        """This build compiling under the PassContext configuration ``items`` ((key, value), ...)."""
        return replace(self, pass_config=tuple(items))

    def with_schedule(self, steps) -> "Build":
        """This build applying ``steps`` (passfuzz.portable.schedules) to the kernels."""
        return replace(self, schedule_steps=tuple((name, tuple(choices)) for name, choices in steps))

    @property
    def blamed_primitive(self) -> str:
        """The schedule primitive a finding of this build blames: the last step, once the steps
        are cut to the first prefix that shows the finding; "" without steps."""
        return self.schedule_steps[-1][0] if self.schedule_steps else ""

    @property
    def text(self) -> str:
        """The canonical spelling, as --build takes it; "" for the plain build."""
        parts = []
        if self.pipeline != "default":
            parts.append(f"pipeline={self.pipeline}")
        if self.opt_level is not None:
            parts.append(f"opt-level={self.opt_level}")
        if self.mcpu is not None:
            parts.append(f"mcpu={self.mcpu}")
        if self.codegen is not None:
            parts.append(f"codegen={self.codegen}")
        if self.exec_mode != "bytecode":
            parts.append(f"exec-mode={self.exec_mode}")
        if self.export:
            parts.append("export")
        if self.schedule is not None:
            parts.append(f"schedule={self.schedule}")
        if self.tune is not None:
            parts.append(f"tune={self.tune}")
        if self.dlight is not None:
            parts.append(f"dlight={self.dlight}")
        if self.config is not None:
            parts.append(f"config={self.config}")
        return ",".join(parts)

    def as_dict(self) -> dict:
        """Plain data for passfuzz.portable.standalone.load (and a script's compile_with call): what the tuning
        chose, not how (its trials and log directory)."""
        return {key: value for key, value in asdict(self).items()
                if value != getattr(PLAIN_BUILD, key) and key not in ("tune", "tune_dir", "dlight", "config")}


PLAIN_BUILD = Build()

_USAGE = ("pipeline=default|target, opt-level=0..3, mcpu=host|NAME, codegen=c, exec-mode=bytecode|compiled, export, "
          "schedule=random, tune=TRIALS, dlight=random, config=random")


def parse_build(text: str) -> Build:
    """``"exec-mode=compiled,export"`` -> Build; "" is the plain build."""
    fields: dict = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, _, value = item.partition("=")
        key = key.strip().replace("-", "_")
        value = value.strip()
        if key == "export" and not value:
            fields["export"] = True
        elif key == "pipeline" and value in ("default", "target"):
            fields["pipeline"] = value
        elif key == "opt_level" and value in ("0", "1", "2", "3"):
            fields["opt_level"] = int(value)
        elif key == "mcpu" and value:
            fields["mcpu"] = value
        elif key == "codegen" and value == "c":
            fields["codegen"] = value
        elif key == "schedule" and value == "random":
            fields["schedule"] = value
        elif key == "dlight" and value == "random":
            fields["dlight"] = value
        elif key == "config" and value == "random":
            fields["config"] = value
        elif key == "tune" and value.isdigit() and int(value) > 0:
            fields["tune"] = int(value)
        elif key == "exec_mode" and value in ("bytecode", "compiled"):
            fields["exec_mode"] = value
        else:
            raise BuildError(f"--build: cannot read {item!r} (expected {_USAGE})")
    build = Build(**fields)
    if build.codegen == "c" and build.exec_mode == "compiled":
        raise BuildError("--build: codegen=c with exec-mode=compiled does not compile in TVM (gcc rejects the "
                         "generated VM code)")
    if build.codegen == "c" and build.pipeline == "target":
        raise BuildError("--build: TVM has no default pipeline for the c target; use pipeline=target with llvm")
    if build.codegen == "c" and (build.opt_level is not None or build.mcpu is not None):
        raise BuildError("--build: opt-level and mcpu are llvm options; they do not apply with codegen=c")
    if build.tune is not None and build.schedule is not None:
        raise BuildError("--build: schedule=random and tune=N both schedule the kernels; choose one")
    if build.dlight is not None and build.schedule is not None:
        raise BuildError("--build: schedule=random and dlight=random both draw the kernels' schedules; choose one")
    if build.tune is not None and build.codegen == "c":
        raise BuildError("--build: tune=N tunes for llvm (MetaSchedule's runner runs what llvm builds)")
    return build


def recorded_build(record: dict) -> Build:
    """The build a saved finding (a corpus record) was found with: its --build text and what its
    example drew for the kernels (schedule steps, dlight rules, tuning records), none of which
    the text holds; without them a replay would compare an unscheduled (or retuned) build."""
    build = parse_build(record.get("build", ""))
    if record.get("schedule"):
        build = build.with_schedule(record["schedule"])
    if record.get("dlight_rules") is not None:
        build = build.with_dlight(record["dlight_rules"])
    if record.get("tune_records"):
        build = build.with_tune_records(record["tune_records"])
    if record.get("pass_config"):
        build = build.with_pass_config(from_config(record["pass_config"]))
    return build
