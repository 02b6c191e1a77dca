import copy
import json
import pathlib
import uuid

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(autouse=True)
def _private_home(tmp_path_factory, monkeypatch):
    """Every default store (warehouse, checkouts, state) under a fresh HOME: a test run outside Bazel
    (which gives each test its own HOME) must not read or grow the user's ~/.cache/oot-ci."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)


@pytest.fixture
def pr_event():
    return json.loads((EXAMPLES / "pull_request_synchronize.json").read_text())


@pytest.fixture
def push_event():
    return json.loads((EXAMPLES / "push_ciflow_tag.json").read_text())


@pytest.fixture
def pr_payload(pr_event):
    return copy.deepcopy(pr_event["client_payload"])


@pytest.fixture
def fresh_payload(pr_payload):
    """The example payload under a new delivery id (the relay refuses a replayed one)."""
    pr_payload["delivery_id"] = str(uuid.uuid4())
    return pr_payload


@pytest.fixture(scope="module")
def emu():
    """A relay emulator on a free port with the relay tests' allowlist (tests/relay_helpers.py)."""
    from crcr.tests.relay_helpers import emulator

    yield from emulator()
