"""isolation.py: exit descriptions and the worker-side filter (the protocol is in test_acceptance)."""

import signal

from testing.plugin.isolation import _describe_exit, _skip_location, _tail


def test_describe_exit():
    assert _describe_exit(-signal.SIGSEGV) == "signal 11 (SIGSEGV)"
    assert _describe_exit(-signal.SIGABRT) == "signal 6 (SIGABRT)"
    assert _describe_exit(3) == "exit code 3"


def test_tail(tmp_path):
    log = tmp_path / "w.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)))
    assert _tail(str(log), 2) == "line 98\nline 99\n"
    assert _tail(str(tmp_path / "missing")) == ""


class _Crash:
    path, lineno, message = "t.py", 7, "Skipped: not on this device"


class _Rendered:
    reprcrash = _Crash()


class _SkipReport:
    def __init__(self, longrepr):
        self.longrepr, self.location = longrepr, ("t.py", 3, "T::test_x")


def test_skip_with_rendered_traceback_becomes_a_location_triple():
    assert _skip_location(_SkipReport(_Rendered())) == ("t.py", 7, "Skipped: not on this device")


def test_skip_with_text_reason_uses_the_test_location():
    assert _skip_location(_SkipReport("unittest skip")) == ("t.py", 4, "unittest skip")
