"""Drive trace_worker subprocesses: one per test file, restarted past a crashing test."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

PACKAGE_ROOT = Path(__file__).resolve().parents[2]   # the directory holding tools/


@dataclass
class FileTrace:
    items: list[dict] = field(default_factory=list)      # the variants of the file
    done: list[dict] = field(default_factory=list)       # traces produced now
    import_error: str | None = None
    torch_version: str = ""


def _worker_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), env.get("PYTHONPATH")]))
    env.setdefault("OMP_NUM_THREADS", "1")   # 2-core machine: keep one trace per core
    return env


def _run_once(spec: dict, on_event: Callable[[dict], None]) -> tuple[int, str | None, list[dict], str]:
    proc = subprocess.Popen([sys.executable, "-m", "tools.select.trace_worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_worker_env(),
                            cwd=str(PACKAGE_ROOT))
    proc.stdin.write(json.dumps(spec))
    proc.stdin.close()
    in_flight, events = None, []
    for line in proc.stdout:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # a test printed to stdout; not ours
        if not isinstance(event, dict) or "event" not in event:
            continue
        in_flight = event["key"] if event["event"] == "start" else None if event["event"] == "done" else in_flight
        events.append(event)
        on_event(event)
    stderr = proc.stderr.read()
    return proc.wait(), in_flight, events, stderr


def trace_file(path: Path, test_hashes: dict[str, str], opinfo_hashes: dict[str, str], known_keys: set[str],
               on_event: Callable[[dict], None] = lambda e: None, timeout: float = 60.0, jobs: int = 1,
               request: dict | None = None) -> FileTrace:
    """Trace every untraced variant of one file in ``jobs`` parallel workers (round-robin shards).
    ``request``: what to trace beyond the defaults (trace_worker's spec: untraced, trace_dtypes,
    device_ops)."""
    request = dict(request or {})
    if jobs <= 1:
        return _trace_shard(path, test_hashes, opinfo_hashes, known_keys, on_event, timeout, (0, 1), request)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        parts = list(pool.map(lambda i: _trace_shard(path, test_hashes, opinfo_hashes, known_keys, on_event,
                                                     timeout, (i, jobs), request), range(jobs)))
    merged = FileTrace(items=parts[0].items, torch_version=parts[0].torch_version,
                       import_error=next((p.import_error for p in parts if p.import_error), None))
    for part in parts:
        merged.done.extend(part.done)
    return merged


def _trace_shard(path: Path, test_hashes: dict[str, str], opinfo_hashes: dict[str, str], known_keys: set[str],
                 on_event: Callable[[dict], None], timeout: float, shard: tuple[int, int],
                 request: dict | None = None) -> FileTrace:
    """One worker's share; a crash marks that test and the worker restarts past it."""
    result = FileTrace()
    skip: list[str] = []
    while True:
        spec = {"path": str(path.resolve()), "root": str(PACKAGE_ROOT), "test_hashes": test_hashes,
                "opinfo_hashes": opinfo_hashes, "known_keys": sorted(known_keys), "skip_keys": skip,
                "timeout": timeout, "shard": list(shard), **(request or {})}
        code, in_flight, events, stderr = _run_once(spec, on_event)
        for event in events:
            if event["event"] == "variants":
                result.items, result.torch_version = event["items"], event.get("torch", "")
            elif event["event"] == "done":
                result.done.append(event)
            elif event["event"] == "import_error":
                result.import_error = event["error"]
        if code == 0 or in_flight is None:
            if code != 0 and not events:
                result.import_error = f"trace worker exited with {code}: {stderr.strip().splitlines()[-1:] or ''}"
            return result
        crash = {"event": "done", "key": in_flight, "status": "crash", "dtype": None, "ops": [], "kernel_ops": [], "compare_ops": [],
                 "error": f"process died with exit code {code}"}
        result.done.append(crash)
        on_event(crash)
        skip.append(in_flight)
        known_keys = known_keys | {e["key"] for e in result.done}
