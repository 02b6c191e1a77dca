"""The configs' capability declarations compiled to the harness's capability gating, and the
tests it skips for an unsupported capability counted apart.

Upstream's contract (testing/config/gating.py; downstream-practice.md §3): a test decorated
``@requires_capabilities(...)`` fails when the device's test base does not declare a
capability and skips when it declares it unsupported. So every capability the harness in use
knows (its ``Capability`` namespace) is registered here, answered from the configs, and one the
configs do not mention is answered unsupported and named as a config problem with the line to
add: never a failure charged to the backend.

Registration is feature-detected on the loaded harness, newest form first:
``register_privateuse1_capabilities(provider)``, else an override of
``PrivateUse1TestBase._capabilities``; a harness with neither gets nothing (one line says so).

A skip is the capability's when the test asked one of our "unsupported" predicates, or its
skip message names an unsupported capability: the test then carries a ``capability``
property (JUnit) and the summary counts it under ``capability_skipped``.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable, Optional

import pytest

from testing.base.errors import Loc
from testing.config.gating import KEY, NAME, undeclared_message
from testing.plugin.planmodel import Plan
from testing.plugin.problems import Problem

PLUGIN_NAME = "oot-gating"
REGISTER = "register_privateuse1_capabilities"
OVERRIDE = "PrivateUse1TestBase._capabilities"
PROPERTY = "capability"


def known_capabilities(module: ModuleType) -> tuple[str, ...]:
    """Every capability string of the harness's ``Capability`` namespace (its inner classes)."""
    namespace = getattr(module, "Capability", None)
    found: set[str] = set()
    for group in vars(namespace).values() if isinstance(namespace, type) else ():
        for attr, value in vars(group).items() if isinstance(group, type) else ():
            # not the class's own dunders (__module__ is a dotted string too)
            if not attr.startswith("_") and isinstance(value, str) and NAME.fullmatch(value):
                found.add(value)
    return tuple(sorted(found))


def form_of(module: ModuleType) -> Optional[str]:
    """The registration the harness offers, newest first; None: no capability gating."""
    if not hasattr(module, "requires_capabilities"):
        return None
    if callable(getattr(module, REGISTER, None)):
        return REGISTER
    base = getattr(module, "PrivateUse1TestBase", None)
    return OVERRIDE if base is not None and hasattr(base, "_capabilities") else None


@dataclass
class Compiled:
    """What was registered, for the report (the summary's ``gating``)."""

    harness: str
    form: Optional[str] = None
    answers: dict[str, bool] = field(default_factory=dict)
    undeclared: tuple[str, ...] = ()
    declared: int = 0  # declarations of the configs

    def line(self) -> str:
        """One line for the run's report ('' for a harness without gating and no declarations)."""
        if self.form is None:
            if not self.declared:
                return ""
            return (
                f"oot: harness capabilities: {self.harness} has no capability gating; "
                f"{self.declared} declaration(s) not applied"
            )
        supported = sum(self.answers.values())
        return (
            f"oot: harness capabilities: {len(self.answers)} registered through {self.form} "
            f"({supported} supported, {len(self.answers) - supported} unsupported"
            + (f"; undeclared, answered unsupported: {', '.join(self.undeclared)}" if self.undeclared else "")
            + ")"
        )

    def as_json(self) -> dict:
        return {
            "harness": self.harness,
            "form": self.form,
            "answers": dict(sorted(self.answers.items())),
            "undeclared": list(self.undeclared),
            "line": self.line(),
        }


class Gate:
    """Registers the plan's answers into the harness once it has loaded; marks capability skips."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.compiled: Optional[Compiled] = None
        self.problems: list[Problem] = []
        self.queried: set[str] = set()  # unsupported capabilities the running test asked about
        self._undo: list[Callable[[], None]] = []

    def install(self, module: ModuleType) -> Compiled:
        form = form_of(module)
        self.compiled = Compiled(_where(module), form, declared=len(self.plan.gating))
        if form is None:
            return self.compiled
        answers = {name: d.supported for name, d in self.plan.gating.items()}
        undeclared = tuple(n for n in known_capabilities(module) if n not in answers)
        answers.update(dict.fromkeys(undeclared, False))  # skipped, never failed (the contract)
        self.compiled.answers, self.compiled.undeclared = answers, undeclared
        loc = self.plan.gating_loc or Loc(self.plan.sources[-1] if self.plan.sources else "<no config>", 0)
        self.problems = [Problem(loc, KEY, undeclared_message(n, self.compiled.harness)) for n in undeclared]
        provider = self._provider(answers)
        if form == REGISTER:
            self._register(module, provider)
        else:
            self._override(module.PrivateUse1TestBase, provider)
        return self.compiled

    def _provider(self, answers: dict[str, bool]) -> Callable[[], dict]:
        def predicate(name: str, answer: bool) -> Callable[[], bool]:
            def answered() -> bool:
                if not answer:
                    self.queried.add(name)
                return answer

            return answered

        return lambda: {name: predicate(name, answer) for name, answer in answers.items()}

    def _register(self, module: ModuleType, provider: Callable[[], dict]) -> None:
        getattr(module, REGISTER)(provider)
        providers = getattr(module, "_PRIVATEUSE1_CAPABILITY_PROVIDERS", None)
        if isinstance(providers, list):  # the registry is a list: ours leaves with the run
            self._undo.append(lambda: provider in providers and providers.remove(provider))

    def _override(self, base: type, provider: Callable[[], dict]) -> None:
        previous = base.__dict__.get("_capabilities")

        def _capabilities(cls) -> dict:
            # what the harness itself declares for privateuse1, then ours on top
            out = dict(previous.__get__(None, cls)()) if previous is not None else {}
            out.update(provider())
            return out

        base._capabilities = classmethod(_capabilities)
        self._undo.append(lambda: setattr(base, "_capabilities", previous) if previous else None)

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    # ------------------------------------------------------------ the skip bucket

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.queried.clear()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call):
        report = yield
        if report.skipped and report.when != "teardown":
            cause = self.cause(_skip_message(report))
            if cause:
                item.user_properties.append((PROPERTY, cause))
                report.user_properties.append((PROPERTY, cause))
        return report

    def cause(self, message: str) -> str:
        """The unsupported capabilities behind a skip ('' when it is not a capability's)."""
        if self.compiled is None:
            return ""
        named = {n for n, ok in self.compiled.answers.items() if not ok and n in message}
        return ",".join(sorted(self.queried or named))


def _skip_message(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")


def _where(module: ModuleType) -> str:
    """The harness file, short: 'torch/testing/_internal/common_device_type.py' of wherever it loaded."""
    path = getattr(module, "__file__", None) or module.__name__
    marker = "torch/testing/"
    return path[path.index(marker) :] if marker in path else path
