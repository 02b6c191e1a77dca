"""Bad SPYRE_* values are rejected with a one-line error naming the variable."""

from __future__ import annotations

import pytest
from conftest import python_env, run_python

from torch_spyre.environment import check_environment


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"SPYRE_DEVICE_COUNT": "2"},
        {"SPYRE_DEVICE_COUNT": "0"},
        {"SPYRE_CPU_FALLBACK": "1"},
        {"SPYRE_TRACE": "0"},
    ],
)
def test_good_values(environ):
    check_environment(environ)


@pytest.mark.parametrize(
    "environ, message",
    [
        ({"SPYRE_DEVICE_COUNT": "two"}, "SPYRE_DEVICE_COUNT must be an integer from 0 to 64, got 'two'"),
        ({"SPYRE_DEVICE_COUNT": "65"}, "got '65'"),
        ({"SPYRE_DEVICE_COUNT": "-1"}, "got '-1'"),
        ({"SPYRE_CPU_FALLBACK": "yes"}, "SPYRE_CPU_FALLBACK must be 0 or 1, got 'yes'"),
        ({"SPYRE_TRACE": "true"}, "SPYRE_TRACE must be 0 or 1"),
    ],
)
def test_bad_values(environ, message):
    with pytest.raises(ValueError, match=message):
        check_environment(environ)


def test_import_fails_on_a_bad_device_count():
    result = run_python("import torch_spyre", env=python_env(SPYRE_DEVICE_COUNT="abc"))
    assert result.returncode != 0
    assert "SPYRE_DEVICE_COUNT must be an integer" in result.stderr
