"""pytest entry point: configure/unconfigure, collection hooks (options: options.py).

Load with ``pytest -p testing.plugin``. The machinery lives in sibling
modules: config.py (YAML), capabilities.py (names, backend table),
selection.py (pure decisions), instantiate.py (torch glue), reporting.py
(JSON summary, JUnit properties), promotion.py, isolation.py (crash isolation).

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Optional

import pytest

from testing.plugin.options import (  # noqa: F401 (the hook, and names tests read from here)
    ADAPTER_CHOICES,
    COMPAT_CHOICES,
    OWN_OPTIONS,
    pytest_addoption,
)

# Only pytest at module level: the wheel's pytest11 entry point imports this module in
# every pytest run of a venv that has it, configured or not. Everything else (pydantic
# models, ruamel, the supervisor, torch) is imported by the hooks that need it, and not
# at all when the plugin is inactive (_active).

ADAPTER = pytest.StashKey["object"]()
NATIVE_REPORT = pytest.StashKey["object"]()  # native/setup.AdapterReport
TEST_TYPE = pytest.StashKey[Optional[str]]()


def _fail(msg: str) -> None:
    raise pytest.UsageError(msg)


def _strict(config: pytest.Config) -> bool:
    """Config problems are errors: --oot-strict, or pytest's own --strict (its strict mode,
    pytest 9; the wheel allows pytest 8, where --strict only means --strict-markers)."""
    try:
        pytest_strict = config.getini("strict")
    except ValueError:  # pytest 8: no such ini key
        pytest_strict = False
    return bool(config.option.oot_strict or pytest_strict)


def _load_backend(name: Optional[str]) -> None:
    if not name:
        return
    try:
        importlib.import_module(name)
    except ImportError as exc:
        _fail(f"--oot-backend/global.backend: cannot import '{name}': {exc}")


def _device_type(opt: Optional[str], configured: Optional[str]) -> str:
    if opt or configured:
        return opt or configured
    import torch

    name = torch._C._get_privateuse1_backend_name()
    if name != "privateuse1" and torch._utils._is_privateuse1_backend_available():
        return name
    return "cpu"


def _active(config: pytest.Config) -> bool:
    """Loaded by name (-p testing.plugin, pytest_plugins), or given any of its options.
    Loaded only through the wheel's entry point with none of them, the plugin registers
    its options and one marker and does nothing else: that run is not ours."""
    module = sys.modules[__package__]
    from_entry_point = any(plugin is module for plugin, _ in config.pluginmanager.list_plugin_distinfo())
    given = any(getattr(config.option, dest, None) not in (None, False, []) for dest in OWN_OPTIONS)
    return not from_entry_point or given


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "bucket__mandatory_success: test variant must pass")
    if not _active(config):
        return
    from testing.base.errors import ConfigError
    from testing.config.paths import default_roots
    from testing.plugin import labels, reporting
    from testing.plugin.plan import load_plan
    from testing.supervisor.children import ENV_FD

    try:
        test_type = labels.resolve_test_type(config.option.oot_test_type, os.environ)
    except ValueError as exc:
        _fail(f"--oot-test-type: {exc}")
    if config.option.oot_isolate or ENV_FD in os.environ:  # the supervisor: only then imported
        if _isolation().is_controller(config):
            _isolation().configure_controller(config)
            reporting.configure(config)
            return
        _isolation().configure(config)  # a zygote, or a worker the supervisor spawned
    reporting.configure(config)
    roots = default_roots(config.option.oot_upstream_root)
    try:
        plan = load_plan(list(config.option.oot_configs), roots, test_type, config.option.oot_compat)
    except ConfigError as exc:
        _fail(str(exc))
    reporting.use_plan(config, plan)
    _load_backend(config.option.oot_backend or plan.setting("backend"))
    device = _device_type(config.option.oot_device, plan.setting("device_type"))

    from testing.plugin import capabilities
    from testing.plugin.instantiate import Adapter

    known = capabilities.known_names()
    caps = groups = None
    if plan.setting("capabilities") == "backend":
        backend = config.option.oot_backend or plan.setting("backend")
        if not backend:
            _fail(f"{plan.sources[0]}: global.capabilities: 'backend' needs global.backend or --oot-backend")
        table = capabilities.backend_table(backend)
        caps, groups = capabilities.normalize_capabilities(table), capabilities.capability_groups(table)
    problems = list(plan.problems) + capabilities.validate_names(plan, known, groups)
    if _has_model_cases(plan):
        from testing.plugin import modelops

        problems += modelops.callable_problems(plan)
    support = capabilities.build_support(plan, known, caps, device, problems, groups)
    problems += _provenance(config, plan)
    hw = _scope(config, plan, roots, problems)
    reporting.report_problems(config, problems, _strict(config), at_configure=True)
    _register_marks(config, known, plan.tags, plan)
    from testing.plugin.selection import MarkFilter, is_plugin_mark

    mark_filter = MarkFilter(config.option.markexpr, lambda n: is_plugin_mark(n, plan.tags))
    from testing.plugin.native import setup as native_setup

    try:
        report, runtime = native_setup.configure(
            plan, support, known, groups, config.option.oot_adapter, config.option.oot_compat, device
        )
    except ValueError as exc:
        _fail(str(exc))
    config.stash[NATIVE_REPORT] = report
    reporting.set_adapter(config, report, runtime)
    adapter = Adapter(
        plan, support, device, mark_filter, only=_only(config.option.oot_only), native=runtime, hw=hw
    )
    _install_when_imported(adapter, lambda: _register_database_marks_when_needed(config, known))
    config.stash[ADAPTER] = adapter
    config.stash[TEST_TYPE] = test_type
    input_config = plan.setting("input_config")
    if input_config and input_config.seed is not None:
        import torch

        torch.manual_seed(input_config.seed)


def _scope(config: pytest.Config, plan, roots: dict, problems: list):
    """global.scope against the checkout's hardware classification (testing/config/hwclass.py);
    a checkout without one: a warning saying the scope is not applied."""
    from testing.base.errors import Loc
    from testing.config import hwclass
    from testing.plugin import reporting
    from testing.plugin.problems import Problem

    scope = hwclass.scope_for(plan.setting("scope"), roots.get("TORCH_ROOT"))
    if scope is None:
        return None
    if not scope.applies:
        where = plan.scope_loc or Loc(plan.sources[-1], 1)
        problems.append(Problem(where, "global.scope", scope.line().removeprefix("oot scope: ")))
    hw = hwclass.ScopeReport(scope)
    reporting.set_scope(config, hw)
    return hw


def _provenance(config: pytest.Config, plan) -> list:
    """Expired entries (warnings at file:line) and the provenance counts for the report."""
    import torch

    from testing.plugin import provenance, reporting

    try:
        today = provenance.today_from(os.environ.get("OOT_TODAY"))
    except ValueError as exc:
        _fail(str(exc))
    found, problems = provenance.check(plan, today, torch.__version__)
    reporting.set_provenance(config, found)
    return problems


_DEVICE_TYPE_MODULE = "torch.testing._internal.common_device_type"


def _only(path: Optional[str]):
    if not path:
        return None
    from testing.changes.only import OnlyError, read_only

    try:
        return read_only(path)
    except OnlyError as exc:
        _fail(str(exc))


def _install_when_imported(adapter, then) -> None:
    """Patch torch's device-type machinery (instantiate.py) when a test file first imports
    it, not before: importing it costs seconds (it pulls in dynamo/inductor), and plain
    TestCase files never need it. The patches are in place before the importing file
    binds any name from it."""
    if _DEVICE_TYPE_MODULE in sys.modules:
        adapter.install()
        then()
        return
    finder = _AfterImport(_DEVICE_TYPE_MODULE, lambda: (adapter.install(), then()))
    sys.meta_path.insert(0, finder)
    adapter._restore.append(lambda: finder in sys.meta_path and sys.meta_path.remove(finder))


class _AfterImport:
    """A meta path finder that runs ``callback`` right after module ``name`` has executed."""

    def __init__(self, name: str, callback) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader, callback = spec.loader, self.callback

        class Loader:
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                callback()

        spec.loader = Loader()
        return spec


def _has_model_cases(plan) -> bool:
    from testing.plugin.plan import model_cases

    return any(model_cases(r.entry) for fp in plan.files for r in fp.rules)


def _register_marks(config: pytest.Config, known, tags, plan=None) -> None:
    from testing.config.modes import Mode
    from testing.plugin.selection import mark_name

    lines = [f"{mark_name('dtype__', n)}: dtype {n}" for n in sorted(known.dtypes)]
    lines += [f"bucket__{m.value}: config bucket {m.value}" for m in Mode]
    lines += [f"{t}: config tag" for t in sorted(tags)]
    if plan is not None and _has_model_cases(plan):
        from testing.plugin import modelops

        lines += modelops.mark_lines(plan)
    for line in lines:
        config.addinivalue_line("markers", line)


def _register_database_marks(config: pytest.Config, known) -> None:
    from testing.plugin.selection import mark_name

    for n in sorted(known.ops):
        config.addinivalue_line("markers", f"{mark_name('op__', n)}: OpInfo {n}")
    for n in sorted(known.modules):
        config.addinivalue_line("markers", f"{mark_name('module__', n)}: ModuleInfo {n}")


def _register_database_marks_when_needed(config: pytest.Config, known) -> None:
    """op__/module__ marks need op_db and module_db (seconds to import): register them now
    if they are loaded, else just before the first device-generic test is generated
    (only such tests carry them), so a file that never uses them does not pay."""
    from testing.plugin import capabilities

    if capabilities.databases_loaded() or "torch.testing._internal.common_methods_invocations" in sys.modules:
        _register_database_marks(config, known)
        return
    from torch.testing._internal.common_device_type import DeviceTypeTestBase

    adapted = DeviceTypeTestBase.__dict__["instantiate_test"]  # restored by adapter.uninstall()

    def instantiate_test(cls, name, test, *, generic_cls=None):  # torch inspects this signature
        if DeviceTypeTestBase.__dict__["instantiate_test"] is wrapper:
            DeviceTypeTestBase.instantiate_test = adapted
            _register_database_marks(config, known)
        return adapted.__func__(cls, name, test, generic_cls=generic_cls)

    wrapper = classmethod(instantiate_test)
    DeviceTypeTestBase.instantiate_test = wrapper


# Two makereport wrappers with their own concerns: pluggy's specname keeps both registered
# (one module cannot define the same hook name twice).
@pytest.hookimpl(wrapper=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_model_case(item: pytest.Item, call):
    """A model-op case's kind (passed, mismatched with its errors, unsupported, ...) is decided
    where its exception is at hand: in the process that ran it (a worker under --isolate)."""
    report = yield
    decided = call.when == "call" or (report.skipped and call.when == "setup")  # a skip decorator: at setup
    if decided and any(k == "model" for k, _ in item.user_properties):
        from testing.plugin.modelops import case_outcome

        props = case_outcome(call.excinfo.value if call.excinfo else None)
        item.user_properties.extend(props)  # the teardown report (JUnit's properties) copies these
        report.user_properties.extend(props)
    return report


def pytest_unconfigure(config: pytest.Config) -> None:
    adapter = config.stash.get(ADAPTER, None)
    if adapter is not None:
        adapter.uninstall()


def _uncollected(config: pytest.Config, path) -> bool:
    adapter = config.stash.get(ADAPTER, None)
    fp = adapter.plan.file_plan(str(path)) if adapter is not None else None
    return fp is not None and not fp.collect


def pytest_ignore_collect(collection_path, config: pytest.Config) -> Optional[bool]:
    """Files configured with collect: false are never imported."""
    return True if _uncollected(config, collection_path) else None


class Uncollected(pytest.File):
    """A collect: false file named on the command line (pytest_ignore_collect is not asked
    for those): a node with no tests, so the file is never imported."""

    def collect(self):
        return []


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path, parent):
    return (
        Uncollected.from_parent(parent, path=module_path)
        if _uncollected(parent.config, module_path)
        else None
    )


def pytest_report_header(config: pytest.Config) -> list[str]:
    adapter = config.stash.get(ADAPTER, None)
    if adapter is None:
        return (
            ["oot: isolated controller (tests run in a worker process)"]
            if config.option.oot_isolate and _isolation().is_controller(config)
            else []
        )
    from testing.config.paths import default_roots
    from testing.plugin import upstream

    test_type = config.stash.get(TEST_TYPE, None)
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
    report = config.stash.get(NATIVE_REPORT, None)
    if report is not None:
        lines.append(report.choice.line)
    left_out = adapter.plan.left_out_sources
    if left_out:
        lines.append(f"oot: configs left out (labels exclude test type '{test_type}'): {', '.join(left_out)}")
    lines += upstream.header_lines(default_roots(config.option.oot_upstream_root).get("TORCH_ROOT"))
    return lines


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> Optional[bool]:
    if session.config.option.oot_isolate and _isolation().is_controller(session.config):
        return _isolation().skip_collection(session)
    return None


def _isolation():
    from testing.plugin import isolation  # the supervisor: only runs with --isolate need it

    return isolation


@pytest.hookimpl(wrapper=True, trylast=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_native_xfail(item: pytest.Item, call):
    """A native xfail_strict (torch's unittest.expectedFailure) that passed fails as unittest's
    "Unexpected success"; said the way a strict pytest xfail says it, so the outcome, the
    promotion signal and the JUnit text are the patch adapter's (ours: inner wrapper, before
    the recorder reads the report)."""
    report = yield
    if report.when == "call" and report.failed and str(report.longrepr).startswith("Unexpected success"):
        from testing.plugin.wrapping import strict_xpass_text

        text = strict_xpass_text(getattr(getattr(item, "cls", None), getattr(item, "name", ""), None))
        if text:
            report.longrepr = text
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    adapter = config.stash.get(ADAPTER, None)
    if adapter is None:
        return
    from testing.plugin import reporting, roles
    from testing.plugin.selection import Variant, decide, marks_for
    from testing.plugin.wrapping import DECISION_ATTR, VARIANT_ATTR

    kept, dropped, plain_seen, used, generated = [], [], {}, set(), []
    for item in items:
        fn = (
            getattr(getattr(item, "cls", None), getattr(item, "name", ""), None)
            if getattr(item, "cls", None)
            else None
        )
        decision = getattr(fn, DECISION_ATTR, None)
        variant = getattr(fn, VARIANT_ATTR, None)
        if decision is not None:
            generated.append(item)  # a device-generic test the adapter generated
        elif item.cls is not None:
            file = os.path.realpath(str(item.path))
            if adapter.out_of_scope(file, item.cls.__name__):  # a plain TestCase class (global.scope)
                dropped.append(item)
                continue
            variant = Variant(item.cls.__name__, item.name, item.name)
            plain_seen.setdefault(file, set()).add((variant.cls, variant.test))
            decision = decide(adapter.plan_for_file(file), adapter.support, variant)
            if adapter.only is not None and not adapter.only.keeps(file, variant.cls, variant.name):
                decision = None  # outside the change-aware selection
            if decision is None:
                dropped.append(item)
                continue
            for m in marks_for(variant, decision):
                if m == "xfail":
                    from testing.config.modes import Mode

                    item.add_marker(
                        pytest.mark.xfail(
                            reason=decision.reason or "", strict=decision.mode == Mode.xfail_strict
                        )
                    )
                else:
                    item.add_marker(m)
        if decision is not None:
            reporting.attach(item, variant, decision)
            used.add(decision.rule_loc)
        if config.option.oot_timeout and config.pluginmanager.hasplugin("timeout"):
            item.add_marker(pytest.mark.timeout(config.option.oot_timeout))
        kept.append(item)
    problems = _entry_problems(config, adapter, plain_seen, used) + _unadapted_problems(adapter, generated)
    reporting.report_problems(config, problems, _strict(config), at_configure=False)
    reporting.report_left_out_classes(config, adapter.left_out_classes)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    if roles.is_worker(config):
        _isolation().worker_filter(config, items)


def _unadapted_problems(adapter, generated: list) -> list:
    """Files whose generated tests no given config adapts (unadapted.py): a warning each."""
    from testing.plugin import unadapted

    return unadapted.problems(adapter.plan, unadapted.generated_by_file(generated, adapter.file_of))


def _entry_problems(config: pytest.Config, adapter, plain_seen: dict, used: set) -> list:
    """Names a config lists that the checkout no longer has, and entries that name tests yet
    generate none (not when -m or --oot-only narrows the run on purpose): warnings (--oot-strict: errors)."""
    from testing.plugin.selection import idle_rule_problems, unknown_test_problems

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
