"""Warehouse fixtures: every test that takes `wh` runs twice, against the embedded chdb
directory and against a real clickhouse-server (Debian's) that this file starts on
127.0.0.1 with its own config under a temp dir and stops by PID."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from crcr.warehouse.backends import open_warehouse

SERVER_CANDIDATES = ("clickhouse-server", "/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server")

CONFIG = """<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{d}/log/server.log</log><errorlog>{d}/log/err.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>{port}</tcp_port>
  <path>{d}/data/</path>
  <tmp_path>{d}/tmp/</tmp_path>
  <user_files_path>{d}/user_files/</user_files_path>
  <format_schema_path>{d}/format_schemas/</format_schema_path>
  <users_config>{d}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>5368709</mark_cache_size>
  <timezone>UTC</timezone>
</yandex>
"""
USERS = """<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_binary() -> str:
    for name in SERVER_CANDIDATES:
        found = shutil.which(name) or (name if os.access(name, os.X_OK) else None)
        if found:
            return found
    pytest.fail("clickhouse-server is not installed (.ci/run installs Debian's clickhouse-server)")


@pytest.fixture(scope="session")
def clickhouse_url(tmp_path_factory):
    d = tmp_path_factory.mktemp("clickhouse")
    port = free_port()
    for sub in ("log", "data", "tmp", "user_files", "format_schemas"):
        (d / sub).mkdir()
    (d / "config.xml").write_text(CONFIG.format(d=d, port=port))
    (d / "users.xml").write_text(USERS)
    proc = subprocess.Popen(
        [server_binary(), f"--config-file={d / 'config.xml'}"],
        stdout=open(d / "log" / "stdout", "wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"clickhouse://127.0.0.1:{port}/"
    try:
        _wait_ready(port, proc, d)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait_ready(port: int, proc: subprocess.Popen, d: Path) -> None:
    from clickhouse_driver import Client

    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(
                f"clickhouse-server exited {proc.returncode}: {(d / 'log' / 'err.log').read_text()[-2000:]}"
            )
        try:
            Client("127.0.0.1", port=port, connect_timeout=1).execute("SELECT 1")
            return
        except Exception:
            time.sleep(0.3)
    pytest.fail("clickhouse-server did not answer within 60 s")


@pytest.fixture(params=["embedded", "server"])
def wh(request, tmp_path):
    """A fresh warehouse: a chdb directory, or a new database on the test's server."""
    if request.param == "embedded":
        backend = open_warehouse(str(tmp_path / "warehouse"), {})
    else:
        url = request.getfixturevalue("clickhouse_url")
        backend = open_warehouse(url + f"t_{uuid.uuid4().hex[:12]}", {})
    yield backend
    backend.close()
