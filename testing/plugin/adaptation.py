"""Adaptation: the run's plan, support and adapter, built once at configure time, and the
collection hooks that apply them (``collect: false`` files never imported, plain TestCase
tests bucketed, config problems named after collection, the report header).

plugin.py builds it (``configure``) in every process that collects (not a restart-mode
controller) and registers the ``Adaptation`` object; pytest_unconfigure uninstalls the
adapter's patches. The torch glue itself is instantiate.py's.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import NoReturn, Optional

import pytest
import torch

from testing.base.errors import ConfigError, Loc
from testing.changes.only import Only, OnlyError, read_only
from testing.config import hwclass
from testing.config.modes import Mode
from testing.config.paths import default_roots
from testing.plugin import (
    device_support,
    drift,
    gating,
    provenance,
    registry,
    reporting,
    roles,
    unadapted,
    upstream,
)
from testing.plugin.adapters import PATCHES
from testing.plugin.afterimport import when_imported
from testing.plugin.instantiate import Adapter
from testing.plugin.left_out import left_out_files
from testing.plugin.native import setup as native_setup
from testing.plugin.plan import Plan, load_plan, model_cases
from testing.plugin.problems import Problem
from testing.plugin.selection import (
    MarkFilter,
    Variant,
    decide,
    idle_rule_problems,
    is_plugin_mark,
    mark_name,
    marks_for,
    unknown_test_problems,
)
from testing.plugin.wrapping import DECISION_ATTR, VARIANT_ATTR
from testing.supervisor.stall import HANG_WINDOW_MARK

NAME = "oot-adaptation"
_DEVICE_TYPE_MODULE = "torch.testing._internal.common_device_type"
_OP_DB_MODULE = "torch.testing._internal.common_methods_invocations"


def fail(msg: str) -> NoReturn:
    raise pytest.UsageError(msg)


def strict(config: pytest.Config) -> bool:
    """Config problems are errors: --oot-strict, or pytest's own --strict (its strict mode,
    pytest 9; the wheel allows pytest 8, where --strict only means --strict-markers)."""
    try:
        pytest_strict = config.getini("strict")
    except ValueError:  # pytest 8: no such ini key
        pytest_strict = False
    return bool(config.option.oot_strict or pytest_strict)


# ---------------------------------------------------------------- configure


def configure(config: pytest.Config, test_type: Optional[str]) -> Adaptation:
    """Plan, backend, device, support, config problems, marks and the adapter (installed when
    torch's device-type module is first imported)."""
    opt = config.option
    roots = default_roots(opt.oot_upstream_root)
    try:
        plan = load_plan(list(opt.oot_configs), roots, test_type, opt.oot_compat)
    except ConfigError as exc:
        fail(str(exc))
    reporting.use_plan(config, plan)
    reporting.set_left_out(config, left_out_files(plan))
    _load_backend(opt.oot_backend or plan.setting("backend"))
    device = device_type(opt.oot_device, plan.setting("device_type"))
    known = device_support.known_names()
    caps, groups = _backend_capabilities(opt.oot_backend or plan.setting("backend"), plan)
    problems = list(plan.problems) + device_support.validate_names(plan, known, groups)
    if has_model_cases(plan):
        problems += _modelops().callable_problems(plan)
    support = device_support.build_support(plan, known, caps, device, problems, groups)
    problems += _provenance(config, plan)
    hw = _scope(config, plan, roots, problems)
    reporting.report_problems(config, problems, strict(config), at_configure=True)
    _register_marks(config, known, plan.tags, plan)
    mark_filter = MarkFilter(opt.markexpr, lambda n: is_plugin_mark(n, plan.tags))
    try:
        report, runtime = native_setup.configure(
            plan, support, known, groups, opt.oot_adapter, opt.oot_compat, device
        )
    except ValueError as exc:
        fail(str(exc))
    reporting.set_adapter(config, report, runtime)
    way = runtime if runtime is not None else PATCHES
    adapter = Adapter(plan, support, device, mark_filter, only=_only(opt.oot_only), way=way, hw=hw)
    gate = gating.Gate(plan)
    registry.register(config, gate, gating.PLUGIN_NAME)
    registry.register(config, drift.DriftCollector(), drift.NAME)
    adapter._restore.append(
        when_imported(
            _DEVICE_TYPE_MODULE,
            lambda: (
                adapter.install(),
                _install_gate(config, gate, adapter),
                _register_database_marks_when_needed(config, known),
            ),
        )
    )
    input_config = plan.setting("input_config")
    if input_config and input_config.seed is not None:
        torch.manual_seed(input_config.seed)
    return Adaptation(config, adapter, test_type, report, gate)


def _install_gate(config: pytest.Config, gate: gating.Gate, adapter: Adapter) -> None:
    """The harness that loaded, for the report (harness.py, after adapter.install), and the
    configs' capability declarations into it (gating.py)."""
    reporting.set_harness(config, adapter.harness)
    reporting.set_gating(config, gate.install(sys.modules[_DEVICE_TYPE_MODULE]))
    adapter._restore.append(gate.uninstall)


def _modelops():
    # Lazy: modelops imports the config models (pydantic), which a run without a config never
    # loads (testing/README.md "Start-up cost"); only plans with model-op cases need it.
    from testing.plugin import modelops

    return modelops


def _load_backend(name: Optional[str]) -> None:
    if not name:
        return
    try:
        importlib.import_module(name)
    except ImportError as exc:
        fail(f"--oot-backend/global.backend: cannot import '{name}': {exc}")


def device_type(opt: Optional[str], configured: Optional[str]) -> str:
    if opt or configured:
        return opt or configured
    name = torch._C._get_privateuse1_backend_name()
    if name != "privateuse1" and torch._utils._is_privateuse1_backend_available():
        return name
    return "cpu"


def _backend_capabilities(backend: Optional[str], plan: Plan):
    """(caps, groups) of `capabilities: backend` (the backend's own table), else (None, None)."""
    if plan.setting("capabilities") != "backend":
        return None, None
    if not backend:
        fail(f"{plan.sources[0]}: global.capabilities: 'backend' needs global.backend or --oot-backend")
    table = device_support.backend_table(backend)
    return device_support.normalize_capabilities(table), device_support.capability_groups(table)


def _scope(config: pytest.Config, plan: Plan, roots: dict, problems: list) -> Optional[hwclass.ScopeReport]:
    """global.scope against the checkout's hardware classification (testing/config/hwclass.py);
    a checkout without one: a warning saying the scope is not applied."""
    scope = hwclass.scope_for(plan.setting("scope"), roots.get("TORCH_ROOT"))
    if scope is None:
        return None
    if not scope.applies:
        where = plan.scope_loc or Loc(plan.sources[-1], 1)
        problems.append(Problem(where, "global.scope", scope.line().removeprefix("oot scope: ")))
    hw = hwclass.ScopeReport(scope)
    reporting.set_scope(config, hw)
    return hw


def _provenance(config: pytest.Config, plan: Plan) -> list[Problem]:
    """Expired entries (warnings at file:line) and the provenance counts for the report."""
    try:
        today = provenance.today_from(os.environ.get("OOT_TODAY"))
    except ValueError as exc:
        fail(str(exc))
    found, problems = provenance.check(plan, today, torch.__version__)
    reporting.set_provenance(config, found)
    return problems


def _only(path: Optional[str]) -> Optional[Only]:
    if not path:
        return None
    try:
        return read_only(path)
    except OnlyError as exc:
        fail(str(exc))


def has_model_cases(plan: Plan) -> bool:
    return any(model_cases(r.entry) for fp in plan.files for r in fp.rules)


def _register_marks(config: pytest.Config, known, tags, plan: Optional[Plan] = None) -> None:
    lines = [f"{mark_name('dtype__', n)}: dtype {n}" for n in sorted(known.dtypes)]
    lines += [f"bucket__{m.value}: config bucket {m.value}" for m in Mode]
    lines.append(f"{HANG_WINDOW_MARK}(seconds): under --isolate, the test's hang window (stall.py)")
    lines += [f"{t}: config tag" for t in sorted(tags)]
    if plan is not None and has_model_cases(plan):
        lines += _modelops().mark_lines(plan)
    for line in lines:
        config.addinivalue_line("markers", line)


def _register_database_marks(config: pytest.Config, known) -> None:
    for n in sorted(known.ops):
        config.addinivalue_line("markers", f"{mark_name('op__', n)}: OpInfo {n}")
    for n in sorted(known.modules):
        config.addinivalue_line("markers", f"{mark_name('module__', n)}: ModuleInfo {n}")


def _register_database_marks_when_needed(config: pytest.Config, known) -> None:
    """op__/module__ marks need op_db and module_db (seconds to import): register them now
    if they are loaded, else just before the first device-generic test is generated
    (only such tests carry them), so a file that never uses them does not pay. Called once
    torch's device-type module has loaded (afterimport.py)."""
    # whole, not merely in sys.modules: a file that imports the op database first loads
    # torch's device-type module half-way through it, and op_db does not exist yet
    if device_support.databases_loaded() or hasattr(sys.modules.get(_OP_DB_MODULE), "op_db"):
        _register_database_marks(config, known)
        return
    # Lazy, though free here: this runs once the module has loaded; at this module's top it
    # would cost every run seconds (it pulls in dynamo/inductor).
    from torch.testing._internal.common_device_type import DeviceTypeTestBase

    adapted = DeviceTypeTestBase.__dict__["instantiate_test"]  # restored by adapter.uninstall()

    def instantiate_test(cls, name, test, *, generic_cls=None):  # torch inspects this signature
        if DeviceTypeTestBase.__dict__["instantiate_test"] is wrapper:
            DeviceTypeTestBase.instantiate_test = adapted
            _register_database_marks(config, known)
        return adapted.__func__(cls, name, test, generic_cls=generic_cls)

    wrapper = classmethod(instantiate_test)
    DeviceTypeTestBase.instantiate_test = wrapper


# ---------------------------------------------------------------- collection


class Uncollected(pytest.File):
    """A collect: false file named on the command line (pytest_ignore_collect is not asked
    for those): a node with no tests, so the file is never imported."""

    def collect(self):
        return []


class Adaptation:
    """The run's adapter and the collection hooks that apply it."""

    def __init__(
        self,
        config: pytest.Config,
        adapter: Adapter,
        test_type: Optional[str],
        report: native_setup.AdapterReport,
        gate: gating.Gate,
    ) -> None:
        self.config = config
        self.adapter = adapter
        self.test_type = test_type
        self.native_report = report
        self.gate = gate

    def uninstall(self) -> None:
        self.adapter.uninstall()

    def _uncollected(self, path) -> bool:
        fp = self.adapter.plan.file_plan(str(path))
        return fp is not None and not fp.collect

    def pytest_ignore_collect(self, collection_path) -> Optional[bool]:
        """Files configured with collect: false are never imported."""
        return True if self._uncollected(collection_path) else None

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makemodule(self, module_path, parent):
        return Uncollected.from_parent(parent, path=module_path) if self._uncollected(module_path) else None

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        adapter, test_type = self.adapter, self.test_type
        compat = config.option.oot_compat or adapter.plan.setting("compat")
        lines = [
            f"oot: device={adapter.device_type} configs={len(adapter.plan.sources)}"
            + (f" test_type={test_type}" if test_type else "")
            + (f" compat={compat}" if compat else "")
        ]
        lines.append(
            f"oot: only {adapter.device_type} device classes are instantiated "
            f"(PYTORCH_TESTING_DEVICE_ONLY_FOR={adapter.device_type}); other device classes a file "
            "instantiates (e.g. LAZY) are named after collection"
        )
        lines.append(self.native_report.choice.line)
        left_out = adapter.plan.left_out_sources
        if left_out:
            lines.append(
                f"oot: configs left out (labels exclude test type '{test_type}'): {', '.join(left_out)}"
            )
        lines += upstream.header_lines(default_roots(config.option.oot_upstream_root).get("TORCH_ROOT"))
        return lines

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list) -> None:
        adapter = self.adapter
        kept, dropped, plain_seen, used, generated = [], [], {}, set(), []
        for item in items:
            cls = getattr(item, "cls", None)
            fn = getattr(cls, getattr(item, "name", ""), None) if cls else None
            decision = getattr(fn, DECISION_ATTR, None)
            variant = getattr(fn, VARIANT_ATTR, None)
            if decision is not None:
                generated.append(item)  # a device-generic test the adapter generated
            elif item.cls is not None:
                decision, variant = _plain_decision(adapter, item, plain_seen)
                if decision is None:
                    dropped.append(item)
                    continue
                _mark_plain(item, variant, decision)
            if decision is not None:
                reporting.attach(item, variant, decision)
                used.add(decision.rule_loc)
            window = (decision.hang_window if decision else None) or adapter.plan.setting("hang_window")
            if window:  # the test's entry, else its config's: the zygote's sampler reads the mark
                item.add_marker(getattr(pytest.mark, HANG_WINDOW_MARK)(window))
            if config.option.oot_timeout and config.pluginmanager.hasplugin("timeout"):
                item.add_marker(pytest.mark.timeout(config.option.oot_timeout))
            kept.append(item)
        problems = _entry_problems(config, adapter, plain_seen, used) + _unadapted_problems(
            adapter, generated
        )
        problems += self.gate.problems  # undeclared harness capabilities (gating.py)
        reporting.report_problems(config, problems, strict(config), at_configure=False)
        reporting.report_left_out_classes(config, adapter.left_out_classes)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        roles.skip_finished(config, items)


def _plain_decision(adapter: Adapter, item: pytest.Item, plain_seen: dict):
    """(decision or None, variant) of a plain TestCase test (none: not run); `plain_seen`
    collects the (class, test) names per file."""
    file = os.path.realpath(str(item.path))
    if adapter.out_of_scope(file, item.cls.__name__):  # a plain TestCase class (global.scope)
        return None, None
    variant = Variant(item.cls.__name__, item.name, item.name)
    plain_seen.setdefault(file, set()).add((variant.cls, variant.test))
    decision = decide(adapter.plan_for_file(file), adapter.support, variant)
    if adapter.only is not None and not adapter.only.keeps(file, variant.cls, variant.name):
        decision = None  # outside the change-aware selection
    return decision, variant


def _mark_plain(item: pytest.Item, variant: Variant, decision) -> None:
    for m in marks_for(variant, decision):
        if m == "xfail":
            strict_xfail = decision.mode == Mode.xfail_strict
            item.add_marker(pytest.mark.xfail(reason=decision.reason or "", strict=strict_xfail))
        else:
            item.add_marker(m)


def _unadapted_problems(adapter: Adapter, generated: list) -> list[Problem]:
    """Files whose generated tests no given config adapts (unadapted.py): a warning each."""
    return unadapted.problems(adapter.plan, unadapted.generated_by_file(generated, adapter.file_of))


def _entry_problems(config: pytest.Config, adapter: Adapter, plain_seen: dict, used: set) -> list[Problem]:
    """Names a config lists that the checkout no longer has, and entries that name tests yet
    generate none (not when -m or --oot-only narrows the run on purpose): warnings (--oot-strict: errors)."""
    problems, checked = [], set()
    for file in sorted(set(adapter.seen) | set(plain_seen)):
        fp = adapter.plan.file_plan(file)
        if fp is not None:
            seen = adapter.seen.get(file, set()) | plain_seen.get(file, set())
            problems += unknown_test_problems(fp, seen, os.path.basename(file))
            if not config.option.markexpr and adapter.only is None and fp.loc not in checked:
                checked.add(fp.loc)  # a glob entry: judged once, over every file it names
                seen_all = {t for f, s in adapter.seen.items() if fp.matches(f) for t in s}
                seen_all |= {t for f, s in plain_seen.items() if fp.matches(f) for t in s}
                problems += idle_rule_problems(fp, seen_all, used, adapter.support, adapter.device_type)
    return problems
