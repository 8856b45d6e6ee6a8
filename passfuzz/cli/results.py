"""A fuzzing run's outcome for machines: ``--json FILE`` (checked against
``schemas/run-result.schema.json``) and ``--junit-xml FILE`` for CI, written when the run ends and
when it is interrupted.

JUnit XML has one testcase per named pass (per pass drawn, with ``--passes random``; the build,
with ``--build`` alone): CI readers list tests by what they test, and a pass is what a pass author
owns. Each new finding fails the testcase of the pass it blames (the last pass of its record, the
reducer having cut the list after the first bad pass), with the command that reproduces it; a pass
that never changed the module (or fell below ``--min-fire-rate``) is skipped, since it was not
tested. New bugs of TVM's plain build and findings outside the pass contracts do not set the exit
status, so they fail no testcase: they are listed in the suite's system-out.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree

import jsonschema

FORMAT_VERSION = 1  # of the result; the schema pins it


def schema() -> dict:
    return json.loads(resources.files("passfuzz").joinpath("schemas/run-result.schema.json").read_text())


def _finding(finding_id: str, path: str, unshrunk: set[str]) -> dict:
    kind, fingerprint = finding_id.rsplit("-", 1)
    entry = {"id": finding_id, "kind": kind, "fingerprint": fingerprint, "record": path,
             "reproduce": f"python {path[:-len('.json')]}.py", "unshrunk": fingerprint in unshrunk}
    try:  # the record says what it blames; a record removed since is listed by its id alone
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        entry["passes"] = [str(name) for name in record.get("passes", [])]
        entry["message"] = str(record.get("message", "")).splitlines()[0] if record.get("message") else ""
    except (OSError, ValueError, AttributeError):
        pass
    return entry


def result(stats, config, status: int, unshrunk: set[str] = frozenset(), run_dir: Path | None = None) -> dict:
    """The run's result as the schema describes it; ``unshrunk``: fingerprints of the findings an
    interruption left as first seen."""
    import tvm

    from passfuzz import __version__

    def listed(findings: dict[str, str]) -> list[dict]:
        return [_finding(fid, path, unshrunk) for fid, path in sorted(findings.items())]

    document = {
        "format_version": FORMAT_VERSION, "passfuzz_version": __version__, "tvm_version": tvm.__version__,
        "status": status, "stop_reason": stats.stop_reason or "done", "interrupted": stats.stop_reason == "interrupted",
        "seed": stats.seed, "run_dir": str(run_dir) if run_dir is not None else None,
        "corpus": str(config.corpus_dir),
        "passes": [spec.text for spec in config.passes] if config.passes is not None else None,
        "build": config.build.text, "targets": list(config.targets),
        "examples": stats.examples, "elapsed": round(stats.elapsed, 3), "shrink_runs": stats.shrink_runs,
        "fired": stats.fired, "known": stats.known, "known_hits": dict(sorted(stats.known_hits.items())),
        "generator_defects": stats.generator_defects, "incomparable": stats.incomparable,
        "pass_fire_rates": {name: {"runs": runs, "fired": stats.pass_fired.get(name, 0)}
                            for name, runs in sorted(stats.pass_runs.items())},
        "findings": listed(stats.findings), "unblamed": listed(stats.unblamed),
        "outside_contract": listed(stats.outside_contract),
        "observations": {"missed_rewrites": stats.missed_rewrites, "not_idempotent": stats.not_idempotent,
                         "saved": listed(stats.missed)},
    }
    error = jsonschema.exceptions.best_match(jsonschema.Draft7Validator(schema()).iter_errors(document))
    if error is not None:  # a defect of this module, not of the user's input
        raise AssertionError(f"run result does not match its schema: {error.message}")
    return document


def junit_xml(document: dict, named: tuple[str, ...], min_fire_rate: float | None) -> str:
    """``document`` (a ``result``) as a JUnit XML report: one testcase per named pass."""
    cases: dict[str, list[dict]] = {}
    build = f"build {document['build']}" if document["build"] else ""
    names = list(named) or sorted(document["pass_fire_rates"]) or ([build] if build else [])
    for name in names:
        cases.setdefault(name, [])
    for finding in document["findings"]:
        blamed = finding.get("passes", [])[-1:] or [build or "build"]
        # a pass named with arguments is recorded as named; match its bare name too
        home = next((name for name in cases if name == blamed[0] or name.split("(")[0] == blamed[0].split("(")[0]),
                    blamed[0])
        cases.setdefault(home, []).append(finding)
    failures = sum(1 for found in cases.values() if found)
    suite = ElementTree.Element("testsuite", name="passfuzz", tests=str(len(cases)), failures=str(failures),
                                errors="0", time=f"{document['elapsed']:.3f}")
    properties = ElementTree.SubElement(suite, "properties")
    for key in ("passfuzz_version", "tvm_version", "seed", "stop_reason", "examples", "known", "run_dir"):
        ElementTree.SubElement(properties, "property", name=key, value=str(document[key]))
    skipped = 0
    for name, found in cases.items():
        case = ElementTree.SubElement(suite, "testcase", classname="passfuzz", name=name)
        rates = document["pass_fire_rates"].get(name)
        if found:
            failure = ElementTree.SubElement(
                case, "failure", type=",".join(sorted({f["kind"] for f in found})),
                message=f"{len(found)} new finding{'s' * (len(found) > 1)}: "
                        + "; ".join(f"{f['id']}: {f.get('message', '')[:200]}" for f in found))
            unshrunk = f" (unshrunk: passfuzz --resume {document['run_dir']} finishes it)"
            failure.text = "\n".join(f"{f['id']}{unshrunk if f['unshrunk'] else ''}\n  record: {f['record']}\n"
                                     f"  reproduce: {f['reproduce']}" for f in found)
        elif rates is not None and _untested(rates, min_fire_rate):
            skipped += 1
            ElementTree.SubElement(case, "skipped", message=f"{name} changed the module in {rates['fired']} of "
                                                            f"{rates['runs']} examples: barely tested")
    suite.set("skipped", str(skipped))
    apart = [(what, finding) for what in ("unblamed", "outside_contract") for finding in document[what]]
    if apart or document["interrupted"]:
        lines = [f"{'plain-build bug' if what == 'unblamed' else 'outside the pass contracts'}: {finding['id']}"
                 f"  reproduce: {finding['reproduce']}" for what, finding in apart]
        if document["interrupted"]:
            lines.append(f"interrupted: passfuzz --resume {document['run_dir']} continues the run")
        ElementTree.SubElement(suite, "system-out").text = "\n".join(lines)
    ElementTree.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, encoding="unicode") + "\n"


def _untested(rates: dict, min_fire_rate: float | None) -> bool:
    if rates["runs"] == 0 or rates["fired"] == 0:
        return True
    return min_fire_rate is not None and rates["fired"] / rates["runs"] < min_fire_rate
