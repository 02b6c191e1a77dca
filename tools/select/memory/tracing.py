"""Drive trace_worker subprocesses: one per test file, restarted past a crashing test.

The restart loop is testing/supervisor's; trace_worker's stdout lines are read as its
events (``decode_worker_line``), and a worker stuck in C code is killed by its watchdog.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from testing.results.outcomes import Outcome
from testing.supervisor.children import Spawned
from testing.supervisor.events import Begin, Crashed, End, Event, Payload
from testing.supervisor.scratch import scratch_dir
from testing.supervisor.supervisor import Progress, describe_exit, supervise

PACKAGE_ROOT = Path(__file__).resolve().parents[3]  # the directory holding tools/


@dataclass
class FileTrace:
    items: list[dict] = field(default_factory=list)  # the variants of the file
    done: list[dict] = field(default_factory=list)  # traces produced now
    import_error: str | None = None
    torch_version: str = ""


def _worker_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), env.get("PYTHONPATH")]))
    env.setdefault("OMP_NUM_THREADS", "1")  # 2-core machine: keep one trace per core
    return env


def decode_worker_line(line: bytes) -> Event | None:
    """trace_worker's stdout lines as the supervisor's events (the raw dict rides along)."""
    try:
        event = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None  # a test printed to stdout; not ours
    if not isinstance(event, dict) or "event" not in event:
        return None
    if event["event"] == "start":
        return Begin(event["key"], event)
    if event["event"] == "done":
        return End(event["key"], event)
    return Payload(event)


def trace_file(
    path: Path,
    test_hashes: dict[str, str],
    opinfo_hashes: dict[str, str],
    known_keys: set[str],
    on_event: Callable[[dict], None] = lambda e: None,
    timeout: float = 60.0,
    jobs: int = 1,
    request: dict | None = None,
) -> FileTrace:
    """Trace every untraced variant of one file in ``jobs`` parallel workers (round-robin shards).
    ``request``: what to trace beyond the defaults (trace_worker's spec: untraced, trace_dtypes,
    device_ops)."""
    request = dict(request or {})
    if jobs <= 1:
        return _trace_shard(path, test_hashes, opinfo_hashes, known_keys, on_event, timeout, (0, 1), request)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        parts = list(
            pool.map(
                lambda i: _trace_shard(
                    path, test_hashes, opinfo_hashes, known_keys, on_event, timeout, (i, jobs), request
                ),
                range(jobs),
            )
        )
    merged = FileTrace(
        items=parts[0].items,
        torch_version=parts[0].torch_version,
        import_error=next((p.import_error for p in parts if p.import_error), None),
    )
    for part in parts:
        merged.done.extend(part.done)
    return merged


def _trace_shard(
    path: Path,
    test_hashes: dict[str, str],
    opinfo_hashes: dict[str, str],
    known_keys: set[str],
    on_event: Callable[[dict], None],
    timeout: float,
    shard: tuple[int, int],
    request: dict | None = None,
) -> FileTrace:
    """One worker's share; a crash marks that test and the next worker resumes past it."""
    result = FileTrace()
    logs = scratch_dir("trace-")
    workers: list[Spawned] = []

    def launch(progress: Progress) -> Spawned:
        spec = {
            "path": str(path.resolve()),
            "root": str(PACKAGE_ROOT),
            "test_hashes": test_hashes,
            "opinfo_hashes": opinfo_hashes,
            "known_keys": sorted(known_keys | progress.done),
            "skip_keys": sorted(progress.done),
            "timeout": timeout,
            "shard": list(shard),
            **(request or {}),
        }
        workers.append(
            Spawned(
                [sys.executable, "-m", "tools.select.memory.trace_worker"],
                _worker_env(),
                str(PACKAGE_ROOT),
                os.path.join(logs, f"worker-{len(workers)}.log"),
                stdin_text=json.dumps(spec),
                events_on_stdout=True,
            )
        )
        return workers[-1]

    def sink(event: Event) -> None:
        if isinstance(event, Begin):
            on_event(event.info)
        elif isinstance(event, End):
            result.done.append(event.info)
            on_event(event.info)
        elif isinstance(event, Payload):
            if event.data["event"] == "variants":
                result.items, result.torch_version = event.data["items"], event.data.get("torch", "")
            elif event.data["event"] == "import_error":
                result.import_error = event.data["error"]
            on_event(event.data)
        elif isinstance(event, Crashed):
            crash = {
                "event": "done",
                "key": event.key,
                "status": Outcome.CRASHED.value,  # the one outcome vocabulary (testing/results)
                "dtype": None,
                "ops": [],
                "kernel_ops": [],
                "compare_ops": [],
                "error": f"process died: {event.why}",
            }
            result.done.append(crash)
            on_event(crash)

    try:
        progress = supervise(
            launch, sink, timeout=timeout, decode=decode_worker_line, clean_exit_finishes=True
        )
        if progress.status and not result.items and result.import_error is None:
            last = workers[-1].tail(1).strip()
            result.import_error = f"trace worker exited with {describe_exit(progress.status)}: {last}"
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    return result
