"""tools/cache/start and stop run a real WebDAV cache that Bazel can PUT to and GET from."""

import os
import pathlib
import re
import shutil
import socket
import subprocess

import pytest
import requests

SCRIPTS = pathlib.Path("tools/cache")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(script: str, *args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPTS / script), *args], capture_output=True, text=True, timeout=60, env=env
    )


def compiled_in_paths() -> dict[str, str]:
    """What this nginx writes when a config does not say otherwise (`nginx -V`), e.g.
    {"http-proxy-temp-path": "/var/lib/nginx/proxy", "pid-path": "/run/nginx.pid"}."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    out = subprocess.run([nginx, "-V"], capture_output=True, text=True, check=True).stderr
    return dict(re.findall(r"--((?:http-[a-z-]+-temp|pid|lock|http-log)-path)=(\S+)", out))


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
    assert (
        result.stderr.strip() == f"tools/cache: port {port} on 127.0.0.1 is busy; pick another with --port N"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--port", "http"], "--port must be a number"),
        (["--bogus"], "unknown argument '--bogus'"),
        (["--dir", '/nonexistent/a"b'], "--dir must not contain"),
    ],
)
def test_bad_arguments(tmp_path, args, message):
    result = run("start", "--dir", str(tmp_path / "c"), *args)
    assert result.returncode != 0 and message in result.stderr


def test_compiled_in_temp_paths_are_the_five_start_overrides():
    temp = sorted(k for k in compiled_in_paths() if k.endswith("-temp-path"))
    assert temp == [f"http-{k}-temp-path" for k in ("client-body", "fastcgi", "proxy", "scgi", "uwsgi")]


def test_every_path_nginx_writes_is_under_dir_with_an_empty_home(tmp_path):
    """A machine where nginx never ran: no /var/lib/nginx/*, a HOME with nothing in it.
    Inside the Bazel sandbox /var is read-only, so any compiled-in default would fail the start."""
    home = tmp_path / "home"
    home.mkdir(mode=0o555)
    defaults = compiled_in_paths()
    absent_before = {p for p in defaults.values() if p.startswith("/") and not os.path.exists(p)}
    directory, port = tmp_path / "c", free_port()
    env = {"PATH": os.environ["PATH"], "HOME": str(home)}
    started = run("start", "--port", str(port), "--dir", str(directory), env=env)
    try:
        assert started.returncode == 0, started.stderr
        conf = (directory / "nginx.conf").read_text()
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            assert f'{kind}_temp_path "{directory}/tmp/{kind}";' in conf
            assert (directory / "tmp" / kind).is_dir(), (
                f"nginx did not create its {kind} temp dir under --dir"
            )
        written = re.findall(
            r'^\s*(?:pid|lock_file|error_log|access_log|root|\w+_temp_path) "([^"]+)";', conf, re.M
        )
        assert len(written) == 10 and all(p.startswith(f"{directory}/") for p in written), written
        # A body larger than nginx's in-memory buffer goes through client_body_temp_path.
        body = os.urandom(1 << 20)
        url = f"http://127.0.0.1:{port}/cas/big"
        assert requests.put(url, data=body, timeout=10).status_code in (201, 204)
        assert requests.get(url, timeout=10).content == body
    finally:
        run("stop", "--dir", str(directory), env=env)
    assert not list(home.iterdir())
    assert {p for p in absent_before if os.path.exists(p)} == set(), "nginx wrote a compiled-in default path"


def test_no_home_and_no_dir_is_one_clear_line():
    result = run("start", env={"PATH": os.environ["PATH"]})
    assert result.returncode != 0
    assert (
        result.stderr.strip()
        == "tools/cache: no default storage dir (HOME and XDG_CACHE_HOME are unset): pass --dir DIR"
    )
