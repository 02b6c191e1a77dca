import sys

import pytest

from tools.shard.leg import run_with_retry, should_retry


@pytest.mark.parametrize(
    "code, attempt, expected",
    [
        (0, 1, False),
        (3, 1, False),  # Bazel: tests failed (already rerun per test): final
        (1, 1, False),  # build failure: a retry would fail the same way
        (34, 1, True),  # remote cache/executor error
        (-9, 1, True),  # killed
        (137, 1, True),  # killed, as a shell reports it
        (34, 2, False),  # attempts used up
    ],
)
def test_should_retry(code, attempt, expected):
    assert should_retry(code, attempt, 2) is expected


def test_run_with_retry_reruns_an_infrastructure_failure(tmp_path):
    marker = tmp_path / "once"
    script = f"import pathlib,sys; p=pathlib.Path({str(marker)!r}); sys.exit(0 if p.exists() else (p.touch() or 34))"
    assert run_with_retry([sys.executable, "-c", script], 2, pause_seconds=0) == 0


def test_run_with_retry_keeps_a_test_failure(tmp_path):
    marker = tmp_path / "count"
    script = f"import pathlib,sys; p=pathlib.Path({str(marker)!r}); p.write_text(p.read_text()+'x' if p.exists() else 'x'); sys.exit(3)"
    assert run_with_retry([sys.executable, "-c", script], 3, pause_seconds=0) == 3
    assert marker.read_text() == "x"
