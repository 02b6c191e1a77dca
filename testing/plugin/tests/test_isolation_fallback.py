"""--isolate's fork mode where fork is unsafe: the zygote falls back to fresh workers
(testing/supervisor/forksafety.py) and the results are the same as without the hazard."""

import pytest

from testing.plugin.tests.isolation_helpers import EXPECTED, SUITE, outcomes, run


def test_a_python_thread_in_the_zygote_falls_back_to_fresh_workers(tmp_path):
    threaded = "import threading, time\nthreading.Thread(target=time.sleep, args=(600,), name='poller', daemon=True).start()\n"
    result = run(tmp_path, suite=threaded + SUITE)
    assert "zygote: not forking (Python threads running: poller)" in result.stdout
    assert outcomes(tmp_path) == EXPECTED, result.stdout
    assert (tmp_path / "imports.log").read_text().count("imported") == 1 + 4  # the zygote, then 4 workers


def test_torch_parallel_work_before_the_fork_is_caught_by_the_canary(tmp_path):
    pytest.importorskip("torch")
    busy = "import torch\ntorch.set_num_threads(2)\ntorch.ones(1 << 17).add_(1)\n"  # starts the OpenMP pool
    result = run(tmp_path, "-k", "pass or abort", suite=busy + SUITE)
    assert (
        "zygote: not forking (the first forked child ended with signal 14 (SIGALRM)" in result.stdout
        or "zygote: not forking (the first forked child ended with exit code 75" in result.stdout
    ), result.stdout
    assert outcomes(tmp_path) == {"test_pass": "passed", "test_abort": "crashed"}
