"""tracing.py through testing/supervisor: a unit that kills its trace worker is recorded as
crashed and the worker that replaces it traces the rest (real subprocesses, CPU)."""

from __future__ import annotations

import textwrap

from tools.select.memory.tracing import trace_file

# Upstream-style, without op_db (a worker start stays short). The crashing unit sits between
# the others in trace order, so something is left to trace after it.
SUITE = textwrap.dedent(
    """
    import os
    import resource
    import signal

    import torch
    from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
    from torch.testing._internal.common_utils import TestCase

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file for the deliberate crash


    class TestTraceCrash(TestCase):
        @dtypes(torch.float32)
        def test_a_add(self, device, dtype):
            self.assertEqual((torch.ones(3, device=device, dtype=dtype) + 1).sum().item(), 6.0)

        @dtypes(torch.float32)
        def test_b_segfaults(self, device, dtype):
            torch.ones(2, device=device, dtype=dtype).neg()
            os.kill(os.getpid(), signal.SIGSEGV)

        @dtypes(torch.float32)
        def test_c_mul(self, device, dtype):
            self.assertEqual((torch.ones(3, device=device, dtype=dtype) * 2).sum().item(), 6.0)


    instantiate_device_type_tests(TestTraceCrash, globals(), only_for="cpu")
    """
)
TESTS = ("test_a_add", "test_b_segfaults", "test_c_mul")


def test_a_segfaulting_unit_is_recorded_as_crashed_and_the_rest_are_traced(tmp_path):
    path = tmp_path / "test_trace_crash.py"
    path.write_text(SUITE)
    hashes = {f"TestTraceCrash::{t}": f"hash-{t}" for t in TESTS}
    events = []

    result = trace_file(path, hashes, {}, set(), on_event=events.append, timeout=60.0)

    assert result.import_error is None
    assert sorted(i["test"] for i in result.items) == list(TESTS)
    key_of = {i["key"]: i["test"] for i in result.items}
    done = {key_of[d["key"].split("|")[0]]: d for d in result.done}
    assert sorted(done) == list(TESTS), done  # each unit once: none lost, none traced twice
    crash = done["test_b_segfaults"]
    assert crash["status"] == "crashed" and "SIGSEGV" in crash["error"], crash
    for name in ("test_a_add", "test_c_mul"):
        assert done[name]["status"] == "passed", done[name]
        assert done[name]["ops"], done[name]  # really traced: the aten ops it ran
    assert any("add" in op for op in done["test_a_add"]["ops"])
    assert any("mul" in op for op in done["test_c_mul"]["ops"])
    # the caller (memory.py's saver) saw the crash once, as a finished unit
    assert [e for e in events if e.get("status") == "crashed"] == [crash]
