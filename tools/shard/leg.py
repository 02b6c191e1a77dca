"""CI leg retry: rerun a whole leg when it failed for infrastructure reasons.

Test failures are not retried here: the shard runner already reran failing
tests, so a red test verdict is final. What a leg retry covers is the leg
dying around the tests: Bazel's infrastructure exit codes (remote cache or
executor trouble, out of memory, internal errors), an interrupt, or a signal.
"""

from __future__ import annotations

import subprocess
import sys
import time

# Bazel exit codes worth another attempt (see Bazel's ExitCode list):
# 8 interrupted, 33 out of memory, 34 remote error, 36 local environmental
# issue, 37 internal error, 38 transient remote/persistent-worker error.
RETRYABLE = frozenset({8, 33, 34, 36, 37, 38})


def should_retry(exit_code: int, attempt: int, max_attempts: int) -> bool:
    """Whether attempt `attempt` (1-based) ending in `exit_code` earns another."""
    if exit_code == 0 or attempt >= max_attempts:
        return False
    return exit_code < 0 or exit_code >= 128 or exit_code in RETRYABLE


def run_with_retry(cmd: list[str], max_attempts: int, pause_seconds: float = 5.0) -> int:
    for attempt in range(1, max_attempts + 1):
        code = subprocess.call(cmd)
        if not should_retry(code, attempt, max_attempts):
            if attempt > 1:
                print(f"[leg] attempt {attempt}/{max_attempts} ended with status {code}", file=sys.stderr)
            return code
        print(
            f"[leg] attempt {attempt}/{max_attempts} ended with status {code} "
            f"(infrastructure); retrying the leg",
            file=sys.stderr,
            flush=True,
        )
        time.sleep(pause_seconds)
    return code
