import copy
import json
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def pr_event():
    return json.loads((EXAMPLES / "pull_request_synchronize.json").read_text())


@pytest.fixture
def push_event():
    return json.loads((EXAMPLES / "push_ciflow_tag.json").read_text())


@pytest.fixture
def pr_payload(pr_event):
    return copy.deepcopy(pr_event["client_payload"])
