"""Which catalogue ops to focus generation on (``--focus``), and how to tell that a program holds
two of them meeting.

For TVM's passes the pass catalogue records the ops each one matches (``PassInfo.matches``, read
off its source; ``benchmarks/probe_catalogue.py`` holds it against the probe). For a user's own
pass they are observed (``observed_ops``): its Python source is read for hints (the Relax op
names it looks for in strings: ``is_op("relax.X")``, ``Op.get("relax.X")``, a comparison with
``call.op.name``; the ops it calls, ``relax.op.X`` or ``R.X``, mostly what it builds; the feeds
its patterns nest; the dtypes and constants its operands want), and the pass is then applied in
forked children to programs drawn around those ops and, unless they fire, around every op
(``passfuzz.reach.probe``). What fires decides; the source only orders the probe, and stands
alone only when nothing fired.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from passfuzz.ir.catalogue import OPS
from passfuzz.ir.catalogue.base import FLOATS, INTS
from passfuzz.ir.program import Node, Program

# The Relax op a catalogue op is built around when it is not the op of its own name (linear is
# matmul(x, permute_dims(w)) + b, but a pass naming add does not look for it).
EMITS: dict[str, str] = {"masked_fill": "where", "relu6": "clip", "linear": "matmul", "reshape_runtime": "reshape",
                         "batch_norm_training": "batch_norm"}
# Catalogue entries that are structure, not Relax ops: a mention of "relax.Tuple" names none.
_STRUCTURE = {"const", "tuple", "tuple_get_item", "call", "if"}
# Op names in strings ("relax.nn.conv2d" in is_op, Op.get, a comparison with call.op.name) are
# what a pass looks for; calls (relax.op.add(...), R.add(...)) are mostly what it builds, so they
# count only when the source names no op in a string.
_LOOKED_FOR = re.compile(r"""["']relax\.((?:[a-z_][a-z0-9_]*\.)*[a-z_][a-z0-9_]*)["']""")
_BUILT = re.compile(r"""(?:\brelax\.op\.|\bR\.)((?:[a-z_][a-z0-9_]*\.)*[a-z_][a-z0-9_]*)""")
# A pattern that wants a constant operand: the pattern language's is_const, or a Constant test.
_WANTS_CONSTANT = re.compile(r"\bis_const\s*\(|\b(?:Generic)?Const(?:ant)?\b")
# A dtype in a string literal is what a rewrite checks its operands against ("int" in dtype).
_DTYPE_LITERAL = re.compile(r"""["'](u?int(?:8|16|32|64)?|b?float(?:16|32|64)?|bool)["']""")
_DTYPE_FAMILIES = {"int": INTS, "uint": ("uint8",), "float": FLOATS}


@dataclass(frozen=True)
class FocusPlan:
    """What ``--focus`` steers generation toward: the ops most steps draw, the feeds a pattern
    nests, and the operands it wants (constants, dtypes), with a line saying where they come
    from."""

    ops: tuple[str, ...] = ()
    reason: str = ""
    constants: bool = False  # the pattern wants constant operands (is_const)
    dtypes: tuple[str, ...] = ()  # the dtypes its rewrite checks for; (): any
    # (producer, consumer, operand position): the producer's value is that operand of the consumer
    feeds: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class OperandHints:
    constants: bool = False
    dtypes: tuple[str, ...] = ()


def operand_hints(source: str) -> OperandHints:
    """What a pass's source says of the operands it rewrites: whether its pattern wants
    constants, and the drawable dtypes its string literals name ("int" stands for every integer
    dtype, "float" for every float one)."""
    dtypes: list[str] = []
    for name in _DTYPE_LITERAL.findall(source):
        for dtype in _DTYPE_FAMILIES.get(name, (name,)):
            if dtype in INTS + FLOATS + ("bool",) and dtype not in dtypes:
                dtypes.append(dtype)
    return OperandHints(bool(_WANTS_CONSTANT.search(source)), tuple(dtypes))


# Refinements of a pattern that leave the op it matches as it was: is_op("relax.f")(x).has_attr(...)
_REFINEMENTS = ("has_attr", "has_dtype", "has_shape", "has_struct_info")


def pattern_feeds(source: str) -> tuple[tuple[str, str, int], ...]:
    """The feeds the pattern-language calls in ``source`` nest, as (producer, consumer, operand
    position) of catalogue ops: ``is_op("relax.f")(x, is_op("relax.g")(y))`` has g feeding f at
    operand 1, also when the inner pattern is bound to a name first (``inner = is_op(...)(y)``).
    Names are resolved across the whole source, as a pass's helpers bind them."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    bound: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = node.value
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                        and len(target.elts) == len(node.value.elts):
                    bound.update((t.id, v) for t, v in zip(target.elts, node.value.elts) if isinstance(t, ast.Name))

    def matched_op(expr: ast.expr, depth: int = 0) -> str | None:
        """The Relax op name a pattern expression matches a call of, or None."""
        if isinstance(expr, ast.Name) and expr.id in bound and depth < 8:
            return matched_op(bound[expr.id], depth + 1)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _REFINEMENTS:
            return matched_op(expr.func.value, depth + 1)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Call):
            is_op = expr.func
            name = is_op.func.id if isinstance(is_op.func, ast.Name) else getattr(is_op.func, "attr", "")
            if name == "is_op" and is_op.args and isinstance(is_op.args[0], ast.Constant) \
                    and isinstance(is_op.args[0].value, str):
                return is_op.args[0].value
        return None

    def catalogue_op(name: str | None) -> str | None:  # the op of that very name: its operands are the call's
        short = (name or "").rsplit(".", 1)[-1]
        return short if short in drawable() and short not in _STRUCTURE else None

    feeds: list[tuple[str, str, int]] = []
    for node in ast.walk(tree):
        consumer = catalogue_op(matched_op(node)) if isinstance(node, ast.Call) else None
        for position, arg in enumerate(node.args if consumer else ()):
            producer = catalogue_op(matched_op(arg))
            if producer and (producer, consumer, position) not in feeds:
                feeds.append((producer, consumer, position))
    return tuple(feeds)


class FocusError(ValueError):
    """A --focus value that names no catalogue op; the message is one line for the user."""


def drawable() -> list[str]:
    return [op.name for op in OPS if op.drawable]


def ops_named(names: Iterable[str]) -> list[str]:
    """The catalogue ops a set of Relax op names (``matmul``, ``nn.conv2d``, ``relax.take``)
    stands for: each op of that name, and each op built around it (``linear`` for matmul)."""
    wanted = {name.rsplit(".", 1)[-1] for name in names}
    return [name for name in drawable() if name not in _STRUCTURE and
            (name in wanted or EMITS.get(name) in wanted)]


def mentioned_ops(source: str) -> list[str]:
    """The catalogue ops whose Relax op ``source`` mentions: those it names in strings, else
    those it calls."""
    return ops_named(_LOOKED_FOR.findall(source)) or ops_named(_BUILT.findall(source))


@functools.lru_cache(maxsize=None)  # read once per pass: the ops and the operand hints both come from it
def pass_source(module_name: str, attr: str) -> str:
    """The Python source a custom pass ``module_name:attr`` is made of: the module-level
    definition of ``attr`` with every module-level definition it refers to (transitively).
    '' when there is none (a pass built in C++, a module without source)."""
    try:
        text = inspect.getsource(importlib.import_module(module_name))
    except (OSError, TypeError, ImportError):
        return ""
    tree = ast.parse(text)
    definitions: dict[str, list[ast.stmt]] = {}
    for statement in tree.body:
        for bound in _bound_names(statement):
            definitions.setdefault(bound, []).append(statement)
    if attr not in definitions:
        return ""
    seen, queue, parts = {attr}, [attr], []
    while queue:
        for statement in definitions[queue.pop()]:
            parts.append(ast.get_source_segment(text, statement) or "")
            for node in ast.walk(statement):
                used = node.id if isinstance(node, ast.Name) else None
                if used in definitions and used not in seen:
                    seen.add(used)
                    queue.append(used)
    return "\n".join(parts)


def _bound_names(statement: ast.stmt) -> list[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return []


def source_hints(spec) -> tuple[list[str], list[str]]:
    """(the ops a custom pass's source looks for, in strings; the ops it calls, which are mostly
    what it builds): hints that order the probe, never a verdict."""
    source = pass_source(*spec.name.split(":", 1))
    return ops_named(_LOOKED_FOR.findall(source)), ops_named(_BUILT.findall(source))


@dataclass(frozen=True)
class Probing:
    """How a run probes its custom passes: the time each may take (0: not at all, the source
    decides as before), where results are cached, and the contract's limits on probe programs."""

    budget: float = 30.0
    cache: Path | None = None
    match_cast: bool = True
    dtypes: tuple[str, ...] = ()
    ops: tuple[str, ...] = ()  # the ops the run may draw (--ops, less what the contracts leave out); (): all

    def allowed(self) -> list[str]:
        return [op for op in drawable() if not self.ops or op in self.ops]


def observed_ops(spec, probing: Probing) -> tuple[list[str], str, bool, tuple[tuple[str, str, int], ...]]:
    """The ops a custom pass matches, from evidence: (ops, how they were found, constants
    wanted, the feeds between them the probe saw firing programs hold). When its source looks for ops (in strings), those are probed for a few seconds, on
    their own and in pairs, and stand whether they fire or not (a rare form of the pattern, which
    the run's re-plan catches if the pass stays untested); when it names only what it builds, or
    nothing, the whole catalogue is probed (``reach.probe``), and the ops it builds stand only
    when nothing fires."""
    import tvm

    from passfuzz import __version__

    from . import probe

    looked_for, built = source_hints(spec)
    hints = list(dict.fromkeys(looked_for + built))
    source = pass_source(*spec.name.split(":", 1))
    wanted, nested = operand_hints(source), pattern_feeds(source)
    if probing.budget <= 0:
        return (looked_for or built), "source" if (looked_for or built) else "its source names no Relax op", False, ()
    scope = f"{','.join(probing.dtypes)}|{probing.match_cast}|{','.join(probing.allowed())}|{probing.budget:g}"
    key = probe.identity(spec, source, tvm.__version__, __version__, scope)
    result = probe.cached(probing.cache, key) if probing.cache else None
    if result is None:
        kwargs = dict(match_cast=probing.match_cast, dtypes=probing.dtypes or None,
                      hinted_dtypes=wanted.dtypes, feeds=nested)
        if looked_for:  # the ops the source looks for, confirmed in a few seconds: any of them firing
            result = probe.probe_pass(spec, probing.allowed(), budget=min(10.0, probing.budget), hints=looked_for,
                                         alone=looked_for, share=0.0, **kwargs)
        else:  # the source names only what it builds, or nothing: the whole catalogue
            result = probe.probe_pass(spec, probing.allowed(), budget=probing.budget, hints=hints, **kwargs)
        if probing.cache and not result.hung:  # a hang may be the machine's load: probe again next time
            probing.cache.mkdir(parents=True, exist_ok=True)
            probe.store(probing.cache, key, result)
    # Confirming the source's ops counts any program that fired: keep those ops (and a partner
    # met in pairs), not the helpers their proposals add (a clip before a take).
    ops = [op for op in result.ops if op in looked_for or result.stage == 2] if looked_for else list(result.ops)
    if ops:
        return ops, f"probe: {result.line()}", result.constants, tuple(f for f in result.feeds if {f[0], f[1]} <= set(ops))
    if result.everything:
        return [], f"the probe finds it {result.line()}", False, ()
    if looked_for:  # a rare form of them, or a wrong hint: the re-plan is the safety net
        return looked_for, f"source; the probe of them {result.line()}", False, ()
    if built:
        return built, f"source; the probe {result.line()}", False, ()
    return [], f"its source names no Relax op and the probe {result.line()}", False, ()


def meeting(program: Program, a: str, b: str) -> bool:
    """Does ``program`` hold a node of op ``a`` and one of op ``b`` that meet: one reads the
    other's value, or both read one value (for ``a == b``, two distinct nodes)?"""
    nodes = [(i, v) for i, v in enumerate(program.values) if isinstance(v, Node)]
    for i, x in nodes:
        for j, y in nodes:
            if i == j or x.op != a or y.op != b:
                continue
            if i in y.args or j in x.args or set(x.args) & set(y.args):
                return True
    return False


def resolve(text: str, passes, pool: Sequence[str] = (), probing: Probing = Probing(budget=0)) -> FocusPlan:
    """The focus for ``--focus text``.

    ``auto``: the union of what the named passes match (``PassInfo.matches``, inferred for a
    custom pass, whose source also tells the operands its pattern wants); none when every one
    of them looks at every op (a pass that does still sees the focused programs and the
    unfocused steps among them); with ``--passes random`` (``passes`` None), none, since a drawn
    sequence may hold any pass of ``pool``. ``none``: none. Otherwise a comma-separated list of
    catalogue ops (FocusError for an unknown one). ``probing``: how custom passes are probed
    (``observed_ops``); by default not at all."""
    from passfuzz.passes.catalogue import CATALOGUE

    text = text.strip()
    if text == "none":
        return FocusPlan(reason="no focus (--focus none)")
    if text != "auto":
        names = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in names if n not in drawable()]
        if unknown or not names:
            raise FocusError(f"--focus: unknown op {', '.join(unknown) or '(none given)'}; "
                             "give auto, none or ops as `passfuzz ops` lists them")
        return FocusPlan(tuple(names), "as given")
    if passes is None:
        return FocusPlan(reason=f"no focus: random sequences of {len(pool)} passes")
    if not passes:
        return FocusPlan(reason="no focus: no pass named")
    ops, why, unfocused = [], [], []
    constants, dtypes, feeds = False, [], []
    for spec in passes:
        if spec.is_builtin:
            info = CATALOGUE.get(spec.name)
            found, how = (list(info.matches) if info else []), "pass catalogue"
        else:
            found, how, seen_constants, seen_feeds = observed_ops(spec, probing)
            if found:
                source = pass_source(*spec.name.split(":", 1))
                hints = operand_hints(source)
                nested = [f for f in dict.fromkeys(pattern_feeds(source) + seen_feeds)
                          if f not in feeds and {f[0], f[1]} <= set(found)]
                constants = constants or hints.constants or seen_constants
                dtypes += [d for d in hints.dtypes if d not in dtypes]
                feeds += nested
                how += "".join([", constants" if hints.constants or seen_constants else "",
                                f", {'/'.join(hints.dtypes)}" if hints.dtypes else "",
                                "".join(f", {p} into {c}[{k}]" for p, c, k in nested)])
        if found:
            ops += [op for op in found if op not in ops]
            why.append(f"{spec.name} matches {','.join(found)} ({how})")
        else:
            unfocused.append(f"{spec.name} looks at every op" if spec.is_builtin else f"{spec.name}: {how}")
    if not ops:
        return FocusPlan(reason="no focus: " + "; ".join(unfocused))
    return FocusPlan(tuple(ops), "; ".join(why + unfocused), constants, tuple(dtypes), tuple(feeds))
