"""The handler's options, built once at its entry: the command line over the environment,
the values derived from both, and a bad value as one line before anything runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest

from crcr.handler import main as handler
from crcr.handler.options import Options

HOME = {"HOME": "/home/u"}


def opts(argv, env=None) -> Options:
    return handler.parse_options(["plan", *argv], {**HOME, **(env or {})})


@pytest.mark.parametrize(
    "argv,env,field,given,from_env",
    [
        (["--relay-url", "http://a"], {"CRCR_CALLBACK_URL": "http://b"}, "relay_url", "http://a", "http://b"),
        (["--repo", "o/a"], {"GITHUB_REPOSITORY": "o/b"}, "repo", "o/a", "o/b"),
        (["--state-dir", "/s/a"], {"CRCR_STATE_DIR": "/s/b"}, "state_dir", Path("/s/a"), Path("/s/b")),
        (["--core-config", "c1"], {"CRCR_CORE_CONFIGS": "c2 c3"}, "core_configs", ("c1",), ("c2", "c3")),
        (["--select-on", "push"], {"CRCR_SELECT_ON": "nightly"}, "select_on", ("push",), ("nightly",)),
        (["--select-budget", "10%"], {"CRCR_SELECT_BUDGET": "off"}, "select_budget", 0.1, None),
        (
            ["--upstream-url", "file:///a"],
            {"OOT_UPSTREAM_URL": "file:///b"},
            "upstream_url",
            "file:///a",
            "file:///b",
        ),
        (
            ["--upstream-cache", "/c/a"],
            {"OOT_UPSTREAM_CACHE": "/c/b"},
            "upstream_cache",
            Path("/c/a"),
            Path("/c/b"),
        ),
        (["--warehouse", "/w/a"], {"OOT_WAREHOUSE": "/w/b"}, "warehouse", "/w/a", "/w/b"),
        (
            ["--change-map", "/m/a.json"],
            {"OOT_CHANGE_MAP": "/m/b.json"},
            "change_map",
            Path("/m/a.json"),
            Path("/m/b.json"),
        ),
        (
            ["--event", "/e/a.json"],
            {"GITHUB_EVENT_PATH": "/e/b.json"},
            "event",
            Path("/e/a.json"),
            Path("/e/b.json"),
        ),
    ],
)
def test_the_command_line_wins_over_the_environment(argv, env, field, given, from_env):
    assert getattr(opts(argv, env), field) == given
    assert getattr(opts([], env), field) == from_env


def test_bisection_limits_argument_over_environment():
    env = {"CRCR_BISECT_MAX_RUNS": "3", "CRCR_BISECT_MAX_SECONDS": "60"}
    assert (opts([], env).bisect.max_steps, opts([], env).bisect.max_seconds) == (3, 60.0)
    o = opts(["--bisect-max-runs", "5", "--bisect-max-seconds", "7"], env)
    assert (o.bisect.max_steps, o.bisect.max_seconds) == (5, 7.0)


def test_derived_once_from_arguments_and_environment(tmp_path):
    o = opts([], {"CRCR_STATE_DIR": str(tmp_path)})
    assert o.state_dir == tmp_path and o.out == tmp_path / "out"
    assert o.green_store_path == tmp_path / "last_green.sqlite"
    assert o.emulator_state == tmp_path / "local"  # the default's private corner
    assert (
        opts(["--state-dir", str(tmp_path)]).emulator_state == tmp_path
    )  # a given one is the emulator's too
    assert opts([]).state_dir == Path("/home/u/.cache/crcr")
    assert opts([]).emulator_state == Path("/home/u/.cache/crcr/local")
    assert opts(["--out", str(tmp_path / "o")]).out == tmp_path / "o"
    assert opts([], {"CRCR_GREEN_STORE": "/g.sqlite"}).green_store_path == Path("/g.sqlite")
    assert opts([], {"RUNNER_TEMP": "/rt"}).state_dir == Path("/rt/crcr")


def test_runner_smoke_upstream_and_actions_values():
    assert opts([]).runner == "bazel"
    assert opts([], {"BUILD_WORKSPACE_DIRECTORY": "/ws"}).runner == "pytest"  # inside bazel run
    assert opts(["--runner", "bazel"], {"BUILD_WORKSPACE_DIRECTORY": "/ws"}).runner == "bazel"
    assert opts([]).workspace != Path("/ws") and opts(
        [], {"BUILD_WORKSPACE_DIRECTORY": "/ws"}
    ).workspace == Path("/ws")
    assert (opts([]).smoke, opts(["--smoke", "3"]).smoke, opts(["--full", "--smoke", "3"]).smoke) == (
        10,
        3,
        1,
    )
    assert opts([]).upstream == "fixture" and opts(["--event", "e.json"]).upstream == "none"
    assert opts(["--event", "e.json"], {"OOT_UPSTREAM_URL": "file:///u"}).upstream == "fetch"
    actions = {"GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "7", "GITHUB_WORKFLOW": "ci"}
    o = opts([], actions)
    assert o.run_url == "https://github.com/o/r/actions/runs/7" and opts([]).run_url == ""
    assert o.actions_ctx.run_id == "7" and opts([]).actions_ctx is None
    assert opts([], {"CRCR_LEVEL": "L3"}).level == "L3"
    assert opts([], {"GITHUB_OUTPUT": "/out.txt"}).github_output == Path("/out.txt")


def test_the_options_value_is_frozen_and_its_leg_settings_typed(tmp_path):
    o = opts(["--leg-timeout", "12", "--select", "not slow", "--state-dir", str(tmp_path)])
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.runner = "pytest"
    how = o.leg_settings(smoke=4)
    assert (how.out, how.runner, how.timeout, how.select, how.smoke) == (
        tmp_path / "out",
        "bazel",
        12.0,
        "not slow",
        4,
    )


def test_the_cycle_says_where_its_state_lives_and_that_it_is_shared():
    # the last-green store and the warehouse were shared by every checkout, said only in a README
    shared = handler.parse_options([], HOME).state_line()
    assert shared.startswith("state: /home/u/.cache/crcr (last-green store, outbox, outputs); ")
    assert "warehouse: /home/u/.cache/oot-ci/warehouse;" in shared
    assert "shared by every checkout of this repository" in shared
    own = handler.parse_options(["--state-dir", "/s", "--warehouse", "/w"], HOME).state_line()
    assert own.startswith("state: /s (") and "warehouse: /w;" in own and "shared" not in own


def test_plan_needs_no_state_dir():
    o = handler.parse_options(["plan"], {})  # no HOME: nothing derived that plan does not use
    assert o.mode == "plan" and o.warehouse is None


@pytest.mark.parametrize(
    "argv,env,message",
    [
        (["--runner", "nope", "plan"], {}, "--runner must be auto, pytest or bazel, not 'nope'"),
        (["plan"], {"CRCR_BISECT_MAX_RUNS": "many"}, "bisection limit: invalid literal for int()"),
        (["plan"], {"CRCR_SELECT_BUDGET": "most"}, "--select-budget: budget 'most'"),
        (["plan"], {"CRCR_SELECT_ON": "merge"}, "--select-on 'merge'"),
        (["plan"], {"CRCR_EMULATOR_FAULTS": "{"}, "$CRCR_EMULATOR_FAULTS: Expecting property name"),
        (["--relay-url", "http://127.0.0.1:9"], {}, "needs --repo OWNER/NAME"),
    ],
)
def test_a_bad_value_is_one_line_before_anything_runs(argv, env, message, monkeypatch, capsys):
    monkeypatch.setattr(handler, "make_fixture", lambda o: pytest.fail("ran past the options"))
    monkeypatch.setattr(handler, "load_plan", lambda *a: pytest.fail("ran past the options"))
    for key in ("CRCR_CALLBACK_URL", "GITHUB_REPOSITORY", "CRCR_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert handler.main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("dispatch_handler: ") and message in err[0], err


def test_the_baseline_event_is_parsed_and_planned_once(tmp_path, monkeypatch):
    read = []
    parse = handler.load_dispatch_text
    monkeypatch.setattr(
        handler, "load_dispatch_text", lambda text, where: read.append(where) or parse(text, where)
    )
    ran = []
    store = SimpleNamespace(has_run=lambda url, sha: False, record_run=lambda url, sha: None)
    hooks = SimpleNamespace(store=store, setup=SimpleNamespace(url="file:///u"), close=lambda: None)
    monkeypatch.setattr(handler, "make_hooks", lambda *a: hooks)
    monkeypatch.setattr("crcr.handler.cycle.run_cycle", lambda o, d, legs, h: ran.append(len(legs)))
    fixture = SimpleNamespace(baseline_event=handler.EXAMPLE, configs=tmp_path, base="a" * 40)
    o = handler.parse_options(["--event", str(handler.EXAMPLE), "--state-dir", str(tmp_path)], {})
    handler.run_baseline(o, fixture, "HEAD")
    assert read == [str(handler.EXAMPLE)] and len(ran) == 1
