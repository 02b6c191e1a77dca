"""Model-op cases' outcomes: each case's kind (passed, mismatched with its errors,
unsupported, ...) as report properties, decided where its exception is at hand: in the
process that ran it (a worker under --isolate). The cases themselves: modelops.py.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import pytest

NAME = "oot-model-cases"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    decided = call.when == "call" or (report.skipped and call.when == "setup")  # a skip decorator: at setup
    if decided and any(k == "model" for k, _ in item.user_properties):
        # Lazy: modelops imports the config models (pydantic), which a run without a config
        # never loads (testing/README.md "Start-up cost"); only model-op cases reach here.
        from testing.plugin.modelops import case_outcome

        own = dict(item.user_properties)
        props = case_outcome(
            call.excinfo.value if call.excinfo else None, own.get("case", ""), own.get("dtype", "")
        )
        item.user_properties.extend(props)  # the teardown report (JUnit's properties) copies these
        report.user_properties.extend(props)
        reason = dict(props).get("case_reason")
        if reason and getattr(report, "wasxfail", None) is not None:
            # JUnit's <skipped message> of an xfail is this text: say what the device refused
            report.wasxfail = f"{report.wasxfail}: {reason}" if report.wasxfail else reason
    return report
