"""`python3 -m pytest testing/tests` by a python3 without the repository's environment: one line
saying which it needs, before any test module's import fails with a traceback."""

import pytest

from testing.base import environment


def pytest_configure(config: pytest.Config) -> None:
    said = environment.message("python3 -m pytest testing/tests")
    if said:
        pytest.exit(said, returncode=environment.EXIT_ENVIRONMENT)
