"""tools/cache/start and stop run a real WebDAV cache that Bazel can PUT to and GET from."""

import os
import pathlib
import socket
import subprocess

import pytest
import requests

SCRIPTS = pathlib.Path("tools/cache")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPTS / script), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def cache(tmp_path):
    port = free_port()
    started = run("start", "--port", str(port), "--dir", str(tmp_path / "c"))
    assert started.returncode == 0, started.stderr
    yield port, tmp_path / "c"
    run("stop", "--dir", str(tmp_path / "c"))


def test_put_then_get_roundtrip(cache):
    port, _ = cache
    url = f"http://127.0.0.1:{port}/cas/0123abcd"
    assert requests.get(url, timeout=5).status_code == 404
    assert requests.put(url, data=b"payload", timeout=5).status_code in (201, 204)
    got = requests.get(url, timeout=5)
    assert got.status_code == 200 and got.content == b"payload"


def test_start_is_idempotent_and_stop_kills_the_pid(cache):
    port, directory = cache
    again = run("start", "--port", str(port), "--dir", str(directory))
    assert again.returncode == 0 and "already running" in again.stdout
    pid = int((directory / "nginx.pid").read_text())
    stopped = run("stop", "--dir", str(directory))
    assert stopped.returncode == 0
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_busy_port_gives_one_clear_line(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run("start", "--port", str(port), "--dir", str(tmp_path / "c"))
    assert result.returncode != 0
    assert result.stderr.strip() == f"tools/cache: port {port} on 127.0.0.1 is busy; pick another with --port N"


@pytest.mark.parametrize("args, message", [(["--port", "http"], "--port must be a number"), (["--bogus"], "unknown argument '--bogus'")])
def test_bad_arguments(tmp_path, args, message):
    result = run("start", "--dir", str(tmp_path / "c"), *args)
    assert result.returncode != 0 and message in result.stderr
