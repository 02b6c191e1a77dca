"""testing/supervisor: events, the restart decisions, fork safety, the loop over real forks, and
the fork server (a real server process, testing/tests/forkserver_echo.py)."""

import os
import signal
import sys
import time

import pytest

from testing.supervisor import events, forksafety
from testing.supervisor.children import Forked
from testing.supervisor.events import Begin, Crashed, End, Finished, NotRun, Payload, Planned, Writer
from testing.supervisor.forkserver import Client
from testing.supervisor.supervisor import (
    GIVE_UP,
    RESTART,
    STOP,
    Progress,
    describe_exit,
    next_step,
    supervise,
)


def test_events_round_trip_and_junk_is_ignored():
    for event in (
        Planned(["a", "b"], {"a": [1]}),
        Begin("a", {"pid": 3}),
        Payload({"x": 1}),
        End("a"),
        Finished(),
        Crashed("a", "signal 6 (SIGABRT)", "tail"),
        NotRun(["b"], "limit"),
    ):
        assert events.decode(events.encode(event)) == event
    assert events.decode(b"hello from a test\n") is None
    assert events.decode('{"e": "nope"}') is None
    assert events.decode('{"e": "begin"}') is None  # missing field


def test_describe_exit():
    assert describe_exit(-signal.SIGSEGV) == "signal 11 (SIGSEGV)"
    assert describe_exit(-signal.SIGABRT) == "signal 6 (SIGABRT)"
    assert describe_exit(3) == "exit code 3"


@pytest.mark.parametrize(
    "planned, done, finished, crashed, restarts, step",
    [
        (["a", "b"], {"a", "b"}, True, False, 0, STOP),  # all done
        (["a", "b"], {"a"}, True, False, 0, STOP),  # stopped on purpose (-x)
        (["a", "b"], {"a"}, False, True, 0, RESTART),  # crashed on a, b left
        (["a", "b"], {"a"}, False, False, 0, RESTART),  # died between tests
        (["a", "b"], {"a", "b"}, False, True, 0, STOP),  # crashed on the last test
        (None, set(), False, False, 0, STOP),  # died before planning: caller reports
        (None, {"a"}, False, True, 0, RESTART),  # a child that never plans (tracing)
        (["a", "b", "c"], {"a"}, False, True, 5, GIVE_UP),  # restart limit reached
    ],
)
def test_next_step(planned, done, finished, crashed, restarts, step):
    progress = Progress(planned=planned, done=set(done), finished=finished, restarts=restarts)
    assert next_step(progress, crashed, max_restarts=5) == step


def test_hazards_name_each_reason():
    assert forksafety.hazards(forksafety.Probe("linux", True, (), ())) == []
    assert forksafety.hazards(forksafety.Probe("darwin", True, (), ())) == [
        "macOS system libraries are not fork-safe"
    ]
    assert forksafety.hazards(forksafety.Probe("win32", False, (), ())) == ["no fork() on win32"]
    assert forksafety.hazards(forksafety.Probe("linux", True, ("poller",), ("cuda",))) == [
        "Python threads running: poller",
        "accelerator runtime initialised: cuda",
    ]


def _work(keys, behaviour):
    """A child that runs keys, doing behaviour[key] (None: fine)."""

    def run(fd):
        out = Writer(fd)
        out.send(Planned(list(keys)))
        for key in keys:
            out.send(Begin(key))
            action = behaviour.get(key)
            if action == "abort":
                os.abort()
            if action == "exit":
                os._exit(0)
            if action == "hang":
                time.sleep(60)
            out.send(Payload({"ran": key}))
            out.send(End(key))
        out.send(Finished())
        return 0

    return run


def _supervise(tmp_path, keys, behaviour, **kwargs):
    seen, forks = [], []

    def launch(progress):
        todo = [k for k in keys if k not in progress.done]
        forks.append(todo)
        return Forked(_work(todo, behaviour), str(tmp_path / f"child-{len(forks)}.log"))

    progress = supervise(launch, seen.append, **kwargs)
    return progress, seen, forks


def test_a_crash_costs_one_fork_and_the_run_resumes_after_it(tmp_path):
    progress, seen, forks = _supervise(tmp_path, ["a", "b", "c", "d"], {"b": "abort", "c": "exit"})
    assert forks == [["a", "b", "c", "d"], ["c", "d"], ["d"]]
    crashed = [(e.key, e.why) for e in seen if isinstance(e, Crashed)]
    assert crashed == [("b", "signal 6 (SIGABRT)"), ("c", "exit code 0")]
    assert [e.data["ran"] for e in seen if isinstance(e, Payload)] == ["a", "d"]
    assert progress.done == {"a", "b", "c", "d"} and progress.restarts == 2


def test_the_watchdog_kills_a_hang(tmp_path):
    progress, seen, _ = _supervise(tmp_path, ["a", "b"], {"a": "hang"}, timeout=0.1)
    crash = next(e for e in seen if isinstance(e, Crashed))
    assert crash.key == "a" and crash.why == "timeout: no result after 0.1s (watchdog killed the worker)"
    assert progress.done == {"a", "b"}


def test_after_the_restart_limit_the_rest_is_reported_not_dropped(tmp_path):
    keys = ["a", "b", "c", "d"]
    progress, seen, forks = _supervise(
        tmp_path, keys, {"a": "abort", "b": "abort", "c": "abort"}, max_restarts=1
    )
    assert len(forks) == 2
    not_run = [e for e in seen if isinstance(e, NotRun)]
    assert [e.keys for e in not_run] == [["c", "d"]]
    assert "restart limit 1" in not_run[0].reason
    assert progress.done == set(keys)


def test_should_stop_ends_the_run(tmp_path):
    seen = []

    def launch(progress):
        return Forked(_work(["a", "b", "c"], {}), str(tmp_path / "child.log"))

    progress = supervise(launch, seen.append, should_stop=lambda: any(isinstance(e, End) for e in seen))
    assert progress.done == {"a"} and progress.finished


def test_canary_passes_in_a_fork_of_a_pinned_process(tmp_path):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    forksafety.pin_torch_threads()
    try:

        def run(fd):
            forksafety.unpin_torch_threads()
            return 0 if forksafety.canary() is None and torch.get_num_threads() == before else 1

        child = Forked(run, str(tmp_path / "c.log"))
        assert child.wait() == 0, child.tail()
    finally:
        forksafety.unpin_torch_threads()
    assert torch.get_num_threads() == before


def test_a_forbidden_import_is_a_hazard_and_the_probe_finds_one():
    assert forksafety.hazards(forksafety.Probe("linux", True, (), (), ("torch", "torch.nn"))) == [
        "a preload imported torch"
    ]
    assert forksafety.probe(("json",)).imported[0] == "json"  # imported by this module's imports
    assert forksafety.probe(("no_such_package_here",)).imported == ()


def test_a_fresh_fork_starts_as_a_new_interpreter_would(tmp_path):
    log = tmp_path / "fresh.log"
    log.write_text("an earlier run's output\n")

    def run(fd):
        fresh = (
            os.path.samefile("/proc/self/fd/0", os.devnull),
            signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
            os.getpgid(0) == os.getpid(),
        )
        os.write(1, f"{fresh}\n".encode())  # fd 1: pytest captures sys.stdout in this process
        return 3

    child = Forked(run, str(log), as_fresh=True)
    assert child.wait() == 3 and child.cpu >= 0.0
    assert log.read_text() == "(True, True, True)\n"  # the log written anew


def _echo(tmp_path, **env):
    paths = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    return Client("testing.tests.forkserver_echo", tmp_path, {**os.environ, "PYTHONPATH": paths, **env})


def test_the_fork_server_forks_each_request_sharing_layers_by_key(tmp_path):
    server = _echo(tmp_path)
    try:
        done = [
            server.request({"say": f"r{i}", "layer": key, "code": i, "log": str(tmp_path / f"{i}.log")}, 30)
            for i, key in enumerate(("a", "a", "b", "a"))
        ]
        assert [(d.exit, d.timed_out, d.layer, d.why) for d in done] == [
            (0, False, "new", ""),
            (1, False, "reused", ""),
            (2, False, "new", ""),
            (3, False, "new", ""),
        ]
        said = [(tmp_path / f"{i}.log").read_text().split() for i in range(4)]
        assert [s[0] for s in said] == ["r0", "r1", "r2", "r3"]
        layers = [s[1] for s in said]  # each run's parent: its layer
        assert layers[0] == layers[1] and len({layers[0], layers[2], layers[3]}) == 3
        assert server.start_seconds > 0 and server.off == ""
    finally:
        server.close()


def test_a_layer_that_refuses_leaves_the_request_to_the_server(tmp_path):
    server = _echo(tmp_path)
    try:
        req = {"say": "x", "layer": "a", "env": {"ECHO_LAYER_PROBLEM": "no torch here"}}
        done = server.request({**req, "log": str(tmp_path / "x.log")}, 30)
        assert (done.exit, done.layer, done.why) == (0, "", "no torch here")
        assert (tmp_path / "x.log").read_text().split()[1] == str(server.proc.pid)  # forked by the server
    finally:
        server.close()


def test_a_request_past_its_timeout_has_its_group_stopped(tmp_path):
    server = _echo(tmp_path)
    try:
        t = time.monotonic()
        done = server.request({"sleep": 60, "log": str(tmp_path / "s.log")}, 1)
        assert done.timed_out and done.exit == -signal.SIGTERM and time.monotonic() - t < 30
        assert server.request({"code": 4, "log": str(tmp_path / "q.log")}, 30).exit == 4  # serves on
    finally:
        server.close()


def test_a_server_whose_preload_imports_a_forbidden_package_refuses(tmp_path):
    server = _echo(tmp_path, ECHO_FORBID="1")
    assert server.request({"log": str(tmp_path / "x.log")}, 30) is None
    assert server.off == "a preload imported wave" and server.proc is None
    assert server.request({"log": str(tmp_path / "x.log")}, 30) is None  # stays off
