import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from testing.config.modes import Mode
from tools.select.bucket.engines import Context, DeterministicEngine
from tools.select.bucket.llm import LLMEngine
from tools.select.tests.helpers import unit


def _vectors(**named):
    out = {}
    for test_id, values in named.items():
        v = np.asarray(values, dtype=np.float32)
        out[test_id] = v / np.linalg.norm(v)
    return out


def _units():
    ok = unit(name="test_ok", variant="")
    bad = unit(name="test_bad", variant="", kernel_ops=("aten::mm",))
    tie = unit(name="test_tie", variant="", status=None)
    return [ok, bad, tie]


def test_neighbours_break_ties_by_similarity(small_caps):
    units = _units()
    ids = {u.test: u.test_id for u in units}
    near_bad = _vectors(
        **{ids["test_ok"]: [1, 0, 0], ids["test_bad"]: [0, 1, 0], ids["test_tie"]: [0.1, 1, 0]}
    )
    verdicts = DeterministicEngine().decide(units, Context(small_caps, {}, near_bad))
    tie = verdicts[ids["test_tie"]]
    assert tie.source == "neighbours" and tie.mode == Mode.skip and "test_bad" in tie.rationale
    near_ok = _vectors(
        **{ids["test_ok"]: [1, 0, 0], ids["test_bad"]: [0, 1, 0], ids["test_tie"]: [1, 0.1, 0]}
    )
    assert (
        DeterministicEngine().decide(units, Context(small_caps, {}, near_ok))[ids["test_tie"]].mode
        == Mode.mandatory_success
    )


def test_no_neighbours_means_skip_with_reason(small_caps):
    tie = unit(name="test_tie", variant="", status=None)
    verdict = DeterministicEngine().decide([tie], Context(small_caps, {}, {}))[tie.unit_id]
    assert verdict.mode == Mode.skip and "no decided neighbour" in verdict.rationale


class _FakeLLM(BaseHTTPRequestHandler):
    replies: list = []
    seen: list = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((self.path, body, self.headers.get("Authorization")))
        status, content = (
            type(self).replies.pop(0) if type(self).replies else (200, '{"mode": "skip", "rationale": "x"}')
        )
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_llm():
    server = HTTPServer(("127.0.0.1", 0), _FakeLLM)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _FakeLLM.replies, _FakeLLM.seen = [], []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", _FakeLLM
    server.shutdown()
    server.server_close()


def test_llm_decides_only_ties(fake_llm, small_caps, monkeypatch):
    url, handler = fake_llm
    monkeypatch.setenv("FAKE_KEY", "k-123")
    handler.replies = [(200, '{"mode": "mandatory_success", "rationale": "only view ops"}')]
    engine = LLMEngine(url, "tiny", api_key_env="FAKE_KEY", retries=0)
    units = _units()
    verdicts = engine.decide(units, Context(small_caps, {}, {}))
    tie = verdicts[units[2].unit_id]
    assert tie.source == "llm" and tie.mode == Mode.mandatory_success and "only view ops" in tie.rationale
    assert verdicts[units[1].unit_id].source == "rules"
    ((path, body, auth),) = handler.seen  # exactly one request: the tie
    assert path == "/v1/chat/completions" and body["model"] == "tiny" and auth == "Bearer k-123"
    assert json.loads(body["messages"][1]["content"])["facts"]["unit"] == units[2].unit_id


def test_llm_garbage_and_errors_fall_back(fake_llm, small_caps):
    url, handler = fake_llm
    tie = unit(name="test_tie", variant="", status=None)
    handler.replies = [(200, "I think it should pass")]
    verdict = LLMEngine(url, "tiny", retries=0).decide([tie], Context(small_caps, {}, {}))[tie.unit_id]
    assert verdict.source == "neighbours" and "LLM unavailable" in verdict.rationale
    handler.replies = [(503, "{}"), (200, '{"mode": "skip", "rationale": "retry worked"}')]
    verdict = LLMEngine(url, "tiny", retries=2).decide([tie], Context(small_caps, {}, {}))[tie.unit_id]
    assert verdict.source == "llm" and "retry worked" in verdict.rationale


def test_llm_unreachable_falls_back(small_caps):
    tie = unit(name="test_tie", variant="", status=None)
    engine = LLMEngine("http://127.0.0.1:9/v1", "tiny", retries=0, timeout=2)
    verdict = engine.decide([tie], Context(small_caps, {}, {}))[tie.unit_id]
    assert verdict.source == "neighbours" and "LLM unavailable" in verdict.rationale
