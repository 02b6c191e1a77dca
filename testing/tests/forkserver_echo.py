"""A fork server for test_supervisor.py (`python -m testing.tests.forkserver_echo`): each
request prints its "say" and its layer's pid and exits with its "code"; requests share a
layer by their "layer" field; a layer whose environment has ECHO_LAYER_PROBLEM refuses."""

from __future__ import annotations

import os
import sys
import time

from testing.supervisor import forkserver


def _preload() -> None:
    if os.environ.get("ECHO_FORBID"):
        import wave  # noqa: F401 - the forbidden package, imported before the fork


def _take(req: dict) -> None:
    os.environ.update(req.get("env", {}))


def _run(req: dict) -> int:
    print(req.get("say", ""), os.getppid())
    time.sleep(req.get("sleep", 0))
    return req.get("code", 0)


RECIPE = forkserver.Recipe(
    preload=_preload,
    take=_take,
    run=_run,
    forbidden=("wave",),
    layer_key=lambda req: req.get("layer", ""),
    layer_preload=lambda: os.environ.get("ECHO_LAYER_PROBLEM", ""),
)

if __name__ == "__main__":
    sys.exit(forkserver.serve(RECIPE))
