"""Results: JUnit properties on every adapted test, a JSON summary, promotion candidates,
config problems and collection errors.

Only the process that owns the run writes files: in --isolate mode that is the
controller, which sees the worker's reports replayed (test reports and
collection reports alike: a replayed failed ``pytest_collectreport`` lands in
the summary's ``collection_errors``).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

import pytest
from _pytest.junitxml import xml_key  # the one internal: junitxml's object, for testsuite properties

from testing.base.atomic import write_json
from testing.plugin import drift, registry, roles
from testing.plugin.problems import Problem, strict_report, warnings_of
from testing.plugin.provenance import Provenance
from testing.plugin.selection import Decision, Variant, marks_for
from testing.results import junit, models
from testing.results.outcomes import PROMOTABLE, Outcome, junit_property, of_report, rank

RECORDER = "oot-recorder"
# Properties of a model-op case (attach, and modelops.case_outcome after its call).
CASE_PROPS = ("model", "case", "case_outcome", "case_reason", "max_abs_error", "max_rel_error")


class OotConfigWarning(UserWarning):
    """A config problem that does not stop the run (problems.py); -W error::... makes it fatal."""


def attach(item: pytest.Item, v: Optional[Variant], d: Decision) -> None:
    """JUnit <properties> (pytest writes item.user_properties) and the summary read these."""
    props = [("bucket", d.mode.value), ("marks", ",".join(marks_for(v, d)) if v else "")]
    if d.reason:
        props.append(("reason", d.reason))
    if d.rule_loc:
        props.append(("rule", str(d.rule_loc)))
    if v is not None:
        props += [("class", v.cls), ("test", v.test), ("variant", v.name)]
        if v.op:
            props.append(("op", v.op))
        if v.dtypes:
            props.append(("dtype", ",".join(v.dtypes)))
        if v.module:
            props.append(("module", v.module))
        if v.recorded:  # a model-op case: the per-model report groups by these
            model = next((t[len("model__") :] for t in v.tags if t.startswith("model__")), "")
            props += [("model", model), ("case", v.op or "")]
    item.user_properties.extend(props)


def classify(report: pytest.TestReport) -> Optional[str]:
    """Outcome of one phase report (testing.results.outcomes.of_report, the one mapping every
    layer uses), or None when the phase says nothing new (a passed setup or teardown)."""
    outcome = of_report(report)
    if outcome is Outcome.PASSED and report.when != "call":
        return None
    return outcome.value


@dataclass
class NodeResult:
    nodeid: str
    outcome: str = "passed"
    duration: float = 0.0
    props: dict = field(default_factory=dict)
    message: Optional[str] = None

    def add(self, report: pytest.TestReport) -> None:
        self.duration += getattr(report, "duration", 0.0) or 0.0
        if report.failed and self.message is None:
            self.message = _first_line(report)
        self.props.update(dict(report.user_properties))
        outcome = classify(report)
        if outcome and (report.when == "call" or rank(outcome) > rank(self.outcome)):
            if report.when == "call" and self.outcome in ("error", "crashed"):
                return
            self.outcome = outcome


def _first_line(report: pytest.TestReport) -> str:
    """The failure's one-line reason (the crash message), for triage."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    return text.strip().splitlines()[0][:300] if text.strip() else ""


def collect_error_message(report) -> str:
    """The exception line of a failed collection ('ImportError: cannot import name ...'), not
    pytest's 'ImportError while importing test module' preamble."""
    lines = [line for line in str(report.longrepr or "").splitlines() if line.strip()]
    raised = [line[1:].strip() for line in lines if line.startswith("E ")]
    return (raised[-1] if raised else lines[-1].strip() if lines else "")[:300]


def summarize(
    results: dict[str, NodeResult],
    collection_errors: Iterable[dict] = (),
    problems: Iterable[str] = (),
    left_out_classes: Optional[dict[str, list[str]]] = None,
) -> dict[str, Any]:
    by_bucket: dict[str, Counter] = defaultdict(Counter)
    by_op: dict[str, Counter] = defaultdict(Counter)
    by_dtype: dict[str, Counter] = defaultdict(Counter)
    tests = []
    for r in results.values():
        bucket = r.props.get("bucket", "unadapted")
        by_bucket[bucket][r.outcome] += 1
        if r.props.get("op"):
            by_op[r.props["op"]][r.outcome] += 1
        for d in filter(None, r.props.get("dtype", "").split(",")):
            by_dtype[d][r.outcome] += 1
        tests.append(
            {
                "nodeid": r.nodeid,
                "outcome": r.outcome,
                "bucket": bucket,
                "duration": round(r.duration, 6),
                **{
                    k: r.props[k]
                    for k in (
                        "op",
                        "dtype",
                        "module",
                        "reason",
                        "rule",
                        "crash",
                        "class",
                        "test",
                        "variant",
                        "capability",
                        *CASE_PROPS,
                    )
                    if k in r.props
                },
                # an unsupported model-op case says what the device refused, whatever its bucket
                **(
                    {"message": r.message or r.props.get("case_reason")}
                    if r.message or r.props.get("case_reason")
                    else {}
                ),
            }
        )
    collection_errors = list(collection_errors)
    # skipped because the device declares a harness capability unsupported (gating.py): apart
    # from config skips, by capability
    capability_skipped = Counter(
        r.props["capability"]
        for r in results.values()
        if r.outcome == "skipped" and r.props.get("capability")
    )
    counts = dict(Counter(r.outcome for r in results.values()))
    if collection_errors:
        counts["collection_error"] = len(collection_errors)
    return {
        "version": 1,
        "counts": counts,
        "by_bucket": {k: dict(v) for k, v in sorted(by_bucket.items())},
        "by_op": {k: dict(v) for k, v in sorted(by_op.items())},
        "by_dtype": {k: dict(v) for k, v in sorted(by_dtype.items())},
        "total_duration": round(sum(r.duration for r in results.values()), 6),
        "tests": tests,
        "promotion_candidates": [t["nodeid"] for t in tests if t["outcome"] in PROMOTABLE],
        "collection_errors": collection_errors,
        "capability_skipped": dict(sorted(capability_skipped.items())),
        "config_problems": list(problems),
        "left_out_device_classes": dict(sorted((left_out_classes or {}).items())),
        "models": [m.to_json() for m in models.tally(tests)],
    }


def keep_outcome_in_junit(item: pytest.Item, report: pytest.TestReport) -> None:
    """An XPASS reads as passed in pytest's JUnit XML: say it as a property (its teardown
    report, which junitxml writes the properties from, copies the item's)."""
    prop = junit_property(of_report(report))
    if prop and prop not in item.user_properties:
        item.user_properties.append(prop)


class Recorder:
    """Collects every report; writes the summary at the end (promotion.py reads it too)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.results: dict[str, NodeResult] = {}
        self.collection_errors: list[dict] = []
        self.drift: list[drift.Drift] = []  # test files needing a newer harness (drift.py)
        self.problems: list[str] = []  # the warnings, as the summary lists them
        self.found: list[Problem] = []  # every problem, hygiene ones too (testing/check reads them)
        self.left_out_classes: dict[str, list[str]] = {}
        # The adapter, provenance and scope listings as a restart-mode worker reported them (this
        # process then configured nothing itself): the first worker's, after its collection.
        self.received: dict[str, Any] = {}
        self.problems_received = False  # a restart-mode worker's config problems (receive_problems)
        self.plan = None  # the run's plan (use_plan), so the promotion report does not read it again

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call):
        report = yield
        keep_outcome_in_junit(item, report)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.results.setdefault(report.nodeid, NodeResult(report.nodeid)).add(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A file that failed to import (or collect): counted and named in the summary; one
        whose harness lacks a name it imports: harness drift, apart (drift.py)."""
        found = drift.of_report(report)
        if found is not None and found not in self.drift:
            self.drift.append(found)
        if report.failed:
            self.collection_errors.append(
                {
                    "nodeid": report.nodeid,
                    "file": str(report.fspath),
                    "message": collect_error_message(report),
                }
            )

    def summary(self) -> dict[str, Any]:
        out = summarize(self.results, self.collection_errors, self.problems, self.left_out_classes)
        out["harness_drift"] = [d.as_json() for d in self.drift]
        out.update(sections_json(self.config) or self.received)
        return out

    @pytest.hookimpl(tryfirst=True)  # before junitxml writes its file (the model properties)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        summary = self.summary()
        _junit_model_properties(self.config, summary)
        opt = self.config.option
        if opt.oot_summary:
            write_json(opt.oot_summary, summary)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        summary = self.summary()
        tr = terminalreporter
        if summary["models"]:
            tr.section("model-op cases (oot)")
            for m in models.from_summary(summary):
                tr.write_line(m.line())
            for t in summary["tests"]:
                if t.get("case_reason"):
                    tr.write_line(f"  {t['case']}: {t['case_reason']}")
        for err in summary["collection_errors"]:
            tr.write_line(f"oot: collection error: {err['nodeid']}: {err['message']}")
        for found in summary["harness_drift"]:
            tr.write_line(found["line"])
        for f in summary.get("left_out_files", ()):
            tr.write_line(f"oot: left out: {f['path']}: {f['reason']} ({f['config']})")
        adapter = summary.get("adapter")
        if adapter is not None:
            tr.section("adapter (oot)")
            tr.write_line(adapter["line"])
            counts = adapter["counts"]
            verbose = self.config.option.verbose > 0 and not self.config.option.collectonly
            tr.write_line(
                f"rules: {counts['native']} native, {counts['patched']} patched"
                + ("" if verbose else " (each with why: -v, or the --oot-summary JSON)")
            )
            # only with -v (and never under --collect-only: tools read "::" lines as node ids)
            for row in adapter["rules"] if verbose else []:
                tr.write_line(
                    f"  {row['way']:8} {row['setting']:26} {row['rule']}: {row['what']}: {row['why']}"
                )
        if "provenance" in summary:
            tr.write_line(Provenance.from_json(summary["provenance"]).line())
        if "scope" in summary:
            tr.write_line(summary["scope"]["line"])
        if "harness" in summary and not summary["harness"]["adapted"]:
            tr.write_line(summary["harness"]["line"])
        if summary.get("gating", {}).get("line"):
            tr.write_line(summary["gating"]["line"])
        if not summary["by_bucket"]:
            return
        tr.section("buckets (oot)")
        for bucket, counts in summary["by_bucket"].items():
            tr.write_line(f"{bucket}: " + ", ".join(f"{n} {o}" for o, n in sorted(counts.items())))
        for line in capability_lines(summary):
            tr.write_line(line)
        for nodeid in summary["promotion_candidates"]:
            tr.write_line(f"promotion candidate: {nodeid}")


def capability_lines(summary: dict) -> list[str]:
    """One line per capability whose tests skipped as unsupported (of those buckets' skips)."""
    return [
        f"skipped: capability {name} unsupported: {n} test(s)"
        for name, n in summary.get("capability_skipped", {}).items()
    ]


def _junit_model_properties(config: pytest.Config, summary: dict) -> None:
    """Per-model counts (model.<name>: the report line) and the files left out (left_out.<path>:
    why) as JUnit testsuite properties."""
    xml = config.stash.get(xml_key, None)
    for m in models.from_summary(summary) if xml is not None else ():
        xml.add_global_property(f"model.{m.model}", m.line())
    for f in summary.get("left_out_files", ()) if xml is not None else ():
        xml.add_global_property(f"{junit.LEFT_OUT}{f['path']}", f"{f['reason']} ({f['config']})")
    for found in summary.get("harness_drift", ()) if xml is not None else ():
        xml.add_global_property(f"harness_drift.{found['file']}", found["line"])
    for name, n in summary.get("capability_skipped", {}).items() if xml is not None else ():
        xml.add_global_property(f"capability_skipped.{name}", str(n))


def configure(config: pytest.Config) -> Optional[Recorder]:
    """The Recorder, registered where the run's results are written (not in a worker)."""
    if roles.is_worker(config):
        return None
    recorder = Recorder(config)
    registry.register(config, recorder, RECORDER)
    return recorder


# What this process configured for the report's listings (kept in every process, workers too,
# so a restart-mode worker can hand them to its controller): name -> object with as_json().
_SECTIONS = pytest.StashKey[dict]()


def _set_section(config: pytest.Config, name: str, value: Any) -> None:
    config.stash.setdefault(_SECTIONS, {})[name] = value


def set_adapter(config: pytest.Config, report, runtime) -> None:
    _set_section(config, "adapter", _AdapterSection(report, runtime))


def set_provenance(config: pytest.Config, found) -> None:
    _set_section(config, "provenance", found)


def set_scope(config: pytest.Config, scope_report) -> None:
    _set_section(config, "scope", scope_report)


def set_harness(config: pytest.Config, found) -> None:
    """harness.HarnessReport: the torch.testing harness the results ran against."""
    if found is not None:
        _set_section(config, "harness", found)


def set_gating(config: pytest.Config, compiled) -> None:
    """gating.Compiled: the harness capabilities registered (or why none were)."""
    _set_section(config, "gating", compiled)


def set_left_out(config: pytest.Config, left_out) -> None:
    """left_out.LeftOutFiles: the files the configs leave out, with why."""
    _set_section(config, "left_out_files", left_out)


@dataclass(frozen=True)
class _AdapterSection:
    report: Any  # native/setup.AdapterReport
    runtime: Any  # NativeRuntime or None: its counters are read when the summary is made

    def as_json(self) -> dict:
        return self.report.as_json(self.runtime)


def sections_json(config: pytest.Config) -> dict[str, Any]:
    """The adapter, provenance and scope listings this process configured, as the summary has them."""
    return {name: value.as_json() for name, value in config.stash.get(_SECTIONS, {}).items()}


def receive_sections(config: pytest.Config, sections: dict) -> None:
    """A restart-mode worker's listings (isolation.py): the controller configured none itself."""
    recorder = _recorder(config)
    if recorder is not None and not recorder.received and isinstance(sections, dict):
        recorder.received = dict(sections)


def _recorder(config: pytest.Config) -> Optional[Recorder]:
    return config.pluginmanager.get_plugin(RECORDER)


def problems_found(config: pytest.Config) -> list[Problem]:
    """Every config problem this run found so far, whatever its severity."""
    recorder = _recorder(config)
    return list(recorder.found) if recorder is not None else []


def collection_errors(config: pytest.Config) -> list[dict]:
    """Files that failed to import so far: {nodeid, file, message} each."""
    recorder = _recorder(config)
    return list(recorder.collection_errors) if recorder is not None else []


def harness_drift(config: pytest.Config) -> list[drift.Drift]:
    """Test files whose import failed on a name the harness in use lacks, so far (drift.py)."""
    recorder = _recorder(config)
    return list(recorder.drift) if recorder is not None else []


def use_plan(config: pytest.Config, plan) -> None:
    """The plan this run loaded, for the reports written at the end."""
    recorder = _recorder(config)
    if recorder is not None:
        recorder.plan = plan


# Config problems a restart-mode worker found (its controller configured and collected nothing):
# sent to the controller after the worker's collection (isolation.WorkerStream).
_FOR_CONTROLLER = pytest.StashKey[list]()


def report_problems(
    config: pytest.Config, problems: Iterable[Problem], strict: bool, at_configure: bool
) -> None:
    """--oot-strict: every problem is an error (file:line each, a usage error). Otherwise the
    warning-level ones become OotConfigWarnings (pytest's warnings summary) and go into the summary."""
    problems = list(problems)
    recorder = _recorder(config)
    if recorder is not None:
        recorder.found.extend(problems)
    elif roles.is_worker(config):
        config.stash.setdefault(_FOR_CONTROLLER, []).extend(problems)
    if strict and problems:
        raise pytest.UsageError(strict_report(problems))
    shown = warnings_of(problems)
    if recorder is not None:
        recorder.problems.extend(str(p) for p in shown)
    for p in shown:
        try:
            if at_configure:
                config.issue_config_time_warning(OotConfigWarning(str(p)), stacklevel=2)
            else:  # attributed to the config line, so the warnings summary names it
                warnings.warn_explicit(OotConfigWarning(str(p)), OotConfigWarning, p.loc.file, p.loc.line)
        except OotConfigWarning as exc:  # -W error::...OotConfigWarning: a usage error, not a crash
            raise pytest.UsageError(str(exc)) from None


def problems_for_controller(config: pytest.Config) -> list[dict]:
    """What a restart-mode worker found, as JSON for its controller (receive_problems)."""
    return [p.to_json() for p in config.stash.get(_FOR_CONTROLLER, [])]


def receive_problems(config: pytest.Config, found: list) -> None:
    """A restart-mode worker's config problems, recorded and warned here as the worker would have
    (the first worker's: each restarted one finds them again)."""
    recorder = _recorder(config)
    if recorder is None or recorder.problems_received or not isinstance(found, list):
        return
    recorder.problems_received = True
    problems = [Problem.from_json(p) for p in found]
    recorder.found.extend(problems)
    for p in warnings_of(problems):
        recorder.problems.append(str(p))
        message = warnings.WarningMessage(OotConfigWarning(str(p)), OotConfigWarning, p.loc.file, p.loc.line)
        config.hook.pytest_warning_recorded.call_historic(
            kwargs=dict(warning_message=message, when="collect", nodeid="", location=None)
        )


def report_left_out_classes(config: pytest.Config, left_out: dict[str, list[str]]) -> None:
    """Device classes upstream instantiates that this device's run leaves out: said after collection."""
    if not left_out:
        return
    recorder = _recorder(config)
    if recorder is not None:
        recorder.left_out_classes.update({f: sorted(set(c)) for f, c in left_out.items()})
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        for file, classes in sorted(left_out.items()):
            tr.write_line(
                f"oot: device classes left out of {os.path.basename(file)}: {', '.join(sorted(set(classes)))}"
            )
