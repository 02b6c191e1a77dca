import copy
import json

import pytest

from crcr.callback_client.errors import ConfigError, PayloadError
from crcr.callback_client.refs import ZERO_SHA, ref_problem
from crcr.dispatch.event import decide, load_dispatch, load_dispatch_text


def test_bundled_pr_example_runs(pr_event):
    d = load_dispatch(pr_event)
    assert (d.event_type, d.pr_number, d.upstream_repo) == ("pull_request", 184442, "pytorch/pytorch")
    assert d.sha == pr_event["client_payload"]["payload"]["pull_request"]["head"]["sha"]
    assert decide(d).run
    assert d.client_payload == pr_event["client_payload"]  # echoed verbatim


def test_bare_client_payload_is_accepted(pr_payload):
    assert load_dispatch(pr_payload).delivery_id == pr_payload["delivery_id"]


def test_push_ciflow_tag_gives_pr_number(push_event):
    d = load_dispatch(push_event)
    assert (d.pr_number, d.base_sha, decide(d).run) == (184442, None, True)


def test_deleted_push_is_skipped(push_event):
    p = push_event["client_payload"]["payload"]
    p.update(deleted=True, after=ZERO_SHA)
    decision = decide(load_dispatch(push_event))
    assert not decision.run and "deletes" in decision.reason


def test_zero_after_without_deleted_is_invalid(push_event):
    push_event["client_payload"]["payload"]["after"] = ZERO_SHA
    with pytest.raises(PayloadError, match="payload.after"):
        load_dispatch(push_event)


@pytest.mark.parametrize(
    "action,merged,labels,run",
    [
        ("opened", False, [], True),
        ("reopened", False, [], True),
        ("synchronize", None, [], True),
        ("closed", True, [], True),
        ("closed", False, ["Merged"], True),
        ("closed", False, [], False),
        ("labeled", False, [], False),
        ("edited", False, [], False),
    ],
)
def test_pr_actions_and_landed(pr_payload, action, merged, labels, run):
    pr_payload["payload"]["action"] = action
    pr_payload["payload"]["pull_request"].update(merged=merged, labels=[{"name": n} for n in labels])
    d = load_dispatch(pr_payload)
    assert decide(d).run is run
    assert d.landed is (bool(merged) or "Merged" in labels)


@pytest.mark.parametrize(
    "path,value,needle",
    [
        (("event_type",), "nightly", "event_type"),
        (("delivery_id",), "", "delivery_id"),
        (("delivery_id",), "a;b", "delivery_id"),
        (("payload", "pull_request", "head", "sha"), "8d3e1c2b", "head.sha"),
        (("payload", "pull_request", "base", "sha"), "g" * 40, "base.sha"),
        (("payload", "pull_request", "head", "ref"), "feature..x", "head.ref"),
        (("payload", "pull_request", "head", "ref"), "x.lock", "head.ref"),
        (("payload", "pull_request", "number"), -3, "number"),
        (("payload", "repository", "full_name"), "not a repo", "full_name"),
    ],
)
def test_bad_fields_give_one_line_errors_naming_the_field(pr_payload, path, value, needle):
    node = pr_payload
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(PayloadError) as err:
        load_dispatch(pr_payload)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_not_json_and_oversize(pr_payload):
    with pytest.raises(PayloadError, match="not JSON"):
        load_dispatch_text("{nope", "event.json")
    pr_payload["payload"]["pull_request"]["body"] = "x" * 70000
    with pytest.raises(PayloadError, match="over GitHub"):
        load_dispatch(pr_payload)


@pytest.mark.parametrize(
    "ref,ok",
    [
        ("refs/heads/main", True),
        ("refs/tags/ciflow/trunk/1", True),
        ("refs/heads/$(id)", True),
        ("refs/heads/a b", False),
        ("refs/heads/a~1", False),
        ("refs/heads/.hidden", False),
        ("refs/heads/x/", False),
        ("refs//x", False),
        ("refs/heads/a@{1}", False),
        ("main", False),
        ("refs/heads/x\n", False),
        ("refs/heads/end.", False),
    ],
)
def test_full_ref_rules(ref, ok):
    assert (ref_problem(ref, full=True) is None) is ok


# Event gating (crcr/dispatch/gating.py): one value, the same in the handler and the workflow.
from crcr.dispatch.gating import Gating, gate, nightly_runs, parse_gating  # noqa: E402


def _pr(pr_payload, action, merged=False, labels=()):
    pr_payload["payload"]["action"] = action
    pr_payload["payload"]["pull_request"].update(merged=merged, labels=[{"name": n} for n in labels])
    return load_dispatch(pr_payload)


@pytest.mark.parametrize(
    "mode, action, merged, labels, run",
    [
        ("all", "synchronize", False, (), True),
        ("all", "closed", False, (), False),
        ("label-or-landed", "synchronize", False, (), False),
        ("label-or-landed", "synchronize", False, ("ciflow/crcr",), True),
        ("label-or-landed", "opened", False, ("other",), False),
        ("label-or-landed", "closed", True, (), True),
        ("label-or-landed", "closed", False, ("ciflow/crcr",), False),
        ("merged-only", "synchronize", False, ("ciflow/crcr",), False),
        ("merged-only", "closed", True, (), True),
        ("merged-only", "closed", False, ("Merged",), True),
    ],
)
def test_each_gating_mode_on_pr_events(pr_payload, mode, action, merged, labels, run):
    decision = gate(_pr(pr_payload, action, merged, labels), parse_gating(mode))
    assert decision.run is run and "\n" not in decision.reason
    if not run and action != "closed":
        assert decision.reason.startswith("gated out: ") and mode in decision.reason


def test_gating_pushes_and_nightlies_are_configurable(push_event):
    d = load_dispatch(push_event)
    assert gate(d, parse_gating("merged-only")).run  # pushes on by default, in every mode
    off = gate(d, parse_gating("all, push=off"))
    assert not off.run and off.reason.startswith("gated out: push")
    assert nightly_runs(parse_gating("label-or-landed")).run
    assert not nightly_runs(parse_gating("all nightly=off")).run


def test_gating_value_parses_once_with_one_line_errors():
    assert parse_gating(None) == parse_gating("") == Gating()
    g = parse_gating("label-or-landed label=ciflow/crcr/acme push=off")
    assert (g.mode, g.label, g.push, g.nightly) == ("label-or-landed", "ciflow/crcr/acme", False, True)
    assert parse_gating(g.describe()) == g
    for bad, said in (("everything", "mode 'everything'"), ("all push=maybe", "'push=maybe'")):
        with pytest.raises(ConfigError) as err:
            parse_gating(bad)
        assert said in str(err.value) and "$CRCR_GATING" in str(err.value)


# A stream of dispatches (crcr/dispatch/stream.py) and supersession (crcr/dispatch/supersede.py).
from crcr.dispatch.stream import check_stream, parse_stream  # noqa: E402
from crcr.dispatch.supersede import by_whom, superseded_at, supersession_key  # noqa: E402


def _line(at, event) -> str:
    return json.dumps({"at": at, "event": event})


def _pr_event(pr_payload, action, pr=7, sha="a" * 40):
    e = copy.deepcopy(pr_payload)
    e["payload"]["action"] = action
    e["payload"]["number"] = pr
    e["payload"]["pull_request"]["number"] = pr
    e["payload"]["pull_request"]["head"]["sha"] = sha
    return e


def test_a_stream_skips_and_counts_bad_lines_one_line_each(pr_payload, push_event):
    unknown = dict(pr_payload, event_type="issue_comment")
    lines = [
        _line(100, _pr_event(pr_payload, "opened")),
        _line(50, _pr_event(pr_payload, "synchronize")),  # out of order
        _line(110, unknown),
        "{not json",
        _line(120, _pr_event(pr_payload, "closed")),
        _line(130, _pr_event(pr_payload, "opened")),  # opened after it closed
        _line("2026-12-06T10:00:00", push_event),
        _line(2e9, _pr_event(pr_payload, "reopened")),
    ]
    s = parse_stream(lines, "s.jsonl")
    assert [e.dispatch.action for e in s.events] == ["opened", "closed", None, "reopened"]
    assert len(s.skipped) == 4 and all("\n" not in x and x.startswith("s.jsonl:") for x in s.skipped)
    assert [x.split(": ", 1)[1] for x in s.skipped] == [
        "out of order (earlier than the event before): skipped",
        "unknown event type 'issue_comment': skipped",
        "not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1)): skipped",
        "PR #7 opened after it closed: skipped",
    ]
    named = json.dumps({"at": 1, "event": pr_payload, "content": {"core": "3/1/", "suite": "0/"}})
    bad = json.dumps({"at": 2, "event": pr_payload, "content": {"core": 3}})
    s = parse_stream([named, bad], "c.jsonl")  # the simulator's content ids (synthetic.py)
    assert s.contents() == [("3/1/", "0/")]
    assert s.skipped == ['c.jsonl:2: content: expected {"core": "...", "suite": "..."}: skipped']
    with pytest.raises(ConfigError, match="no dispatch to replay"):
        check_stream(parse_stream([], "e.jsonl"), "e.jsonl")
    with pytest.raises(ConfigError, match="no pull_request events"):
        check_stream(parse_stream([_line(1, push_event)], "p.jsonl"), "p.jsonl")


def test_a_newer_dispatch_of_the_same_pr_supersedes_the_older(pr_payload, push_event):
    a, b, c = (
        load_dispatch(_pr_event(pr_payload, "synchronize", pr, s * 40))
        for pr, s in ((7, "a"), (8, "b"), (7, "c"))
    )
    push = load_dispatch(push_event)
    arrivals = [(0.0, a), (5.0, b), (9.0, push), (12.0, c)]
    assert superseded_at(arrivals) == [12.0, None, None, None]
    assert by_whom(arrivals, 0) is c and by_whom(arrivals, 1) is None
    assert supersession_key(push) == "pytorch/pytorch@refs/tags/ciflow/trunk/184442"
    # pushes to main: one group per commit, so the next push never cancels the one before it
    main = [
        load_dispatch({**push_event, "client_payload": {**push_event["client_payload"], "payload": {
            **push_event["client_payload"]["payload"], "ref": "refs/heads/main", "after": sha * 40}}})
        for sha in "de"
    ]  # fmt: skip
    assert superseded_at([(0.0, main[0]), (1.0, main[1])]) == [None, None]
    assert supersession_key(main[0]) == f"pytorch/pytorch@{'d' * 40}"


# Reuse keyed exactly (crcr/dispatch/reuse_key.py): any changed input is a new key.
from crcr.dispatch.reuse_key import LegInputs, core_identity  # noqa: E402
from crcr.upstream.exactness import Exactness  # noqa: E402


def test_reuse_key_changes_with_every_input_and_needs_pinned_ones():
    from dataclasses import replace

    exact = Exactness("exact", base="b" * 40, sha="a" * 40, origin="pinned wheel")
    base = LegInputs(
        "c" * 40, core_identity(exact, "2.13.0"), "a" * 40, (("configs/ops.yaml", "1" * 64),), "", "{}"
    )
    changed = [
        dict(backend="d" * 40),
        dict(backend="c" * 40 + "-dirty-" + "e" * 12),
        dict(
            core=core_identity(Exactness("exact", base="f" * 40, sha="a" * 40), "2.13.0")
        ),  # another base wheel
        dict(core=core_identity(exact, "2.13.0", "torch-2.14.1")),
        dict(core=core_identity(exact, "2.13.0", overlay="9" * 64)),  # the overlay's content
        dict(core=core_identity(replace(exact, untested=("aten/x.cpp",)), "2.13.0")),
        dict(suite="9" * 40),
        dict(configs=(("configs/ops.yaml", "2" * 64),)),
        dict(selection='{"tests": ["a"]}'),
        dict(settings='{"smoke": 10}'),
    ]
    keys = {base.key()} | {replace(base, **c).key() for c in changed}
    assert None not in keys and len(keys) == len(changed) + 1
    assert replace(base).key() == base.key()  # equal inputs, equal key
    assert replace(base, backend="HEAD").key() is None  # a ref is not a commit
    assert core_identity(Exactness("unresolved", reason="no history"), "2.13.0") == ""
    assert replace(base, core="").key() is None
    assert core_identity(None, "2.13.0") == "pinned:2.13.0"
    # content, not commit ids: the same base wheel and overlay content at another commit
    assert core_identity(replace(exact, sha="e" * 40), "2.13.0") == core_identity(exact, "2.13.0")
