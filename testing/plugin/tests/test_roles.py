"""roles.py: which part of an --isolate run this process plays, asked without the supervisor."""

from types import SimpleNamespace

from testing.plugin import roles
from testing.supervisor.children import ENV_FD


def test_the_events_fd_variable_is_the_supervisors():
    assert roles.EVENTS_FD == ENV_FD


def test_isolating_with_the_option_or_an_inherited_events_fd(monkeypatch):
    monkeypatch.delenv(ENV_FD, raising=False)
    assert roles.isolating(SimpleNamespace(option=SimpleNamespace(oot_isolate=True)))
    assert not roles.isolating(SimpleNamespace(option=SimpleNamespace(oot_isolate=False)))
    monkeypatch.setenv(ENV_FD, "5")
    assert roles.isolating(SimpleNamespace(option=SimpleNamespace(oot_isolate=False)))


def test_a_restarted_worker_skips_what_its_predecessors_finished(pytester):
    config = pytester.parseconfig()
    items = [SimpleNamespace(nodeid=n) for n in ("a", "b", "c")]
    roles.skip_finished(config, items)
    assert [i.nodeid for i in items] == ["a", "b", "c"]  # not a worker: all kept
    config.stash[roles.WORKER] = SimpleNamespace(skip={"b"})
    roles.skip_finished(config, items)
    assert [i.nodeid for i in items] == ["a", "c"]
