"""Hypothesis-fuzzed dispatches: one-line errors, no tracebacks, no injection."""

import copy
import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crcr.callback_client.errors import PayloadError
from crcr.dispatch.event import decide, load_dispatch
from crcr.dispatch.plan import plan_candidates, plan_legs

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PR = json.loads((EXAMPLES / "pull_request_synchronize.json").read_text())
PUSH = json.loads((EXAMPLES / "push_ciflow_tag.json").read_text())
MARK = "CRCR_PWNED"
INJECTIONS = [
    f"$(touch {MARK})",
    f"`touch {MARK}`",
    f"; touch {MARK}",
    f"| touch {MARK}",
    f"&& touch {MARK}",
    f"'; touch {MARK}; '",
    f'"; touch {MARK}; "',
    f"$(touch${{IFS}}{MARK})",
    f"x\ntouch {MARK}",
    "${{ github.token }}",
    f"refs/heads/$(touch${{IFS}}{MARK})",
]
FIELDS = [
    ("payload", "pull_request", "title"),
    ("payload", "pull_request", "head", "ref"),
    ("payload", "pull_request", "base", "ref"),
    ("payload", "pull_request", "head", "sha"),
    ("payload", "action"),
    ("delivery_id",),
    ("event_type",),
    ("payload", "pull_request", "number"),
    ("payload", "pull_request", "merged"),
    ("payload", "repository", "full_name"),
    ("payload", "pull_request", "labels"),
    ("payload",),
    ("payload", "pull_request"),
]
PUSH_FIELDS = [
    ("payload", "ref"),
    ("payload", "after"),
    ("payload", "before"),
    ("payload", "deleted"),
    ("payload", "base_ref"),
    ("payload", "repository"),
]

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63),
    st.floats(allow_nan=True),
    st.text(max_size=80),
    st.sampled_from(INJECTIONS),
    st.just("0" * 40),
    st.just("a" * 40),
)
json_value = st.recursive(
    json_leaf,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=10), kids, max_size=4)
    ),
    max_leaves=12,
)


def _set(doc, path, value):
    node = doc["client_payload"]
    for key in path[:-1]:
        if not isinstance(node, dict):
            return doc
        node = node.setdefault(key, {})
    if isinstance(node, dict):
        node[path[-1]] = value
    return doc


@st.composite
def events(draw):
    kind = draw(st.sampled_from(["pr", "push", "raw"]))
    if kind == "raw":
        return draw(json_value)
    base = copy.deepcopy(PR if kind == "pr" else PUSH)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(FIELDS if kind == "pr" else PUSH_FIELDS))
        base = _set(base, path, draw(json_value))
    return base


def check_one(event):
    try:
        d = load_dispatch(event)
    except PayloadError as err:
        msg = str(err)
        assert "\n" not in msg and "Traceback" not in msg and 0 < len(msg) <= 300
        return None
    decision = decide(d)
    assert decision.reason and "\n" not in decision.reason
    if decision.run:
        for leg in plan_legs(plan_candidates(d), [("ops", ("configs/ops.yaml",))]):
            assert re.fullmatch(r"[A-Za-z0-9_.-]+", leg.job_name)
    return d


@settings(max_examples=1000, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(events())
def test_fuzzed_payloads_never_traceback(event):
    check_one(event)


def test_injection_strings_are_never_executed(tmp_path, monkeypatch):
    """Valid-looking dispatches carrying shell metacharacters go through plan and
    the local cycle (legs are real subprocesses, callbacks go to the emulator);
    none of them may create the marker file."""
    from crcr.handler import main as handler

    monkeypatch.chdir(tmp_path)  # a relative `touch` would land here
    ws = tmp_path / "ws"
    (ws / "configs").mkdir(parents=True)
    (ws / "configs" / "ops.yaml").write_text("test_suite_config:\n  files: [{path: x.py}]\n")
    leg = "{python} -c \"import sys,pathlib; pathlib.Path(sys.argv[1]).write_text('<testsuite/>')\" {junit}"
    env = {"CRCR_STATE_DIR": str(tmp_path / "s")}
    accepted = 0
    for i, evil in enumerate(INJECTIONS):
        event = copy.deepcopy(PR)
        pr = event["client_payload"]["payload"]["pull_request"]
        pr["title"] = evil
        pr["labels"].append({"name": evil})
        if "\n" not in evil and " " not in evil:
            pr["head"]["ref"] = evil.removeprefix("refs/heads/")
        if check_one(event) is None:
            continue
        accepted += 1
        path = tmp_path / f"e{i}.json"
        path.write_text(json.dumps(event))
        assert handler.run(["plan", "--event", str(path), "--workspace", str(ws)], env) == 0
        code = handler.run(
            [
                "--event",
                str(path),
                "--workspace",
                str(ws),
                "--out",
                str(tmp_path / "out"),
                "--test-command",
                leg,
            ],
            env,
        )
        assert code == 0
        rows = json.loads((tmp_path / "out" / "hud.json").read_text())
        assert len(rows) == 2 and {r["status"] for r in rows} == {"completed"}  # auto: 2 shards
    assert accepted >= 5  # most strings are legal in titles/labels (and some even in refs)
    assert not list(tmp_path.rglob(MARK)) and not Path(MARK).exists()
