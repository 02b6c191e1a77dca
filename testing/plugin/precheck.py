"""A set of configs checked as the plugin checks it at configure time, before a test file is
imported: a config that does not load is an error at its file:line (YAML syntax, unknown
key, bad value, unset ${TORCH_ROOT}); an op, dtype or module name torch does not know is the
plugin's own warning with the closest names. Shared by `check` (its first step) and
`dispatch_handler plan` (which must not plan a leg whose configs fail to load), so a config
reads the same wherever it is read. What needs the device (its capability table) or the
test files is left to collection.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import os
from typing import Mapping, Optional, Sequence

from testing.base.errors import ConfigError
from testing.plugin.plan import Plan, load_plan
from testing.plugin.problems import Problem


def load_error(configs: Sequence[str], roots: Mapping[str, str]) -> Optional[Problem]:
    """The first config of the set that does not load, as an error (None: all load)."""
    try:
        load_plan(list(configs), dict(roots))
    except ConfigError as exc:
        return Problem(exc.loc, exc.key, exc.problem, "error")
    return None


def config_problems(
    configs: Sequence[str], roots: Mapping[str, str], env: Mapping[str, str] = os.environ
) -> list[Problem]:
    """The load error of the set, else the names it gives that name nothing (warnings; the
    names come from the user cache where it has this harness's, names_cache.py)."""
    try:
        plan: Plan = load_plan(list(configs), dict(roots))
    except ConfigError as exc:
        return [Problem(exc.loc, exc.key, exc.problem, "error")]
    from testing.plugin import device_support, names_cache

    # the plan's own notes (a path that matches no file yet, overrides) wait for the run
    found = device_support.validate_names(plan, names_cache.known_names(env))
    return [p for p in found if p.severity != "hygiene"]
