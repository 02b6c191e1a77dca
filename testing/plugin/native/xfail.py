"""A native xfail_strict that passed, said the patch adapter's way.

The native adapter leaves an xfail_strict entry to torch's own ``unittest.expectedFailure``;
a test that then passes fails as unittest's "Unexpected success". This hook rewrites it the
way a strict pytest xfail says it (wrapping.strict_xpass_text), so the outcome, the
promotion signal and the JUnit text are the patch adapter's. It is the inner wrapper
(trylast): the report is rewritten before reporting's Recorder reads it.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import pytest

from testing.plugin.wrapping import strict_xpass_text

NAME = "oot-native-xfail"


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if report.when == "call" and report.failed and str(report.longrepr).startswith("Unexpected success"):
        text = strict_xpass_text(getattr(getattr(item, "cls", None), getattr(item, "name", ""), None))
        if text:
            report.longrepr = text
    return report
