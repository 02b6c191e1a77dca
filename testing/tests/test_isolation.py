"""isolation.py: exit descriptions and the worker-side filter (the protocol is in test_acceptance)."""

import signal

from testing.plugin.isolation import _describe_exit, _tail


def test_describe_exit():
    assert _describe_exit(-signal.SIGSEGV) == "signal 11 (SIGSEGV)"
    assert _describe_exit(-signal.SIGABRT) == "signal 6 (SIGABRT)"
    assert _describe_exit(3) == "exit code 3"


def test_tail(tmp_path):
    log = tmp_path / "w.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)))
    assert _tail(str(log), 2) == "line 98\nline 99\n"
    assert _tail(str(tmp_path / "missing")) == ""
