"""`warehouse_tool simulate-stream`: the capacity table, mode x D -> gates, and the smallest D per mode."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from crcr.dispatch.gating import MODES, parse_gating
from crcr.dispatch.plan import discover_features
from crcr.dispatch.stream import check_stream, parse_stream, read_stream
from crcr.warehouse.capacity import CAPACITY_GATES, capacity, parse_devices, recorded_timings, smallest
from crcr.warehouse.synthetic import DAY, Rates, generate

COLUMNS = ("avgQueueTimeS", "e2eTimeS", "overrunRate", "timeoutRate", "passRate")
HEAD = ("avg queue", "P50 e2e", "overrun", "timeouts", "pass rate")


def load(args, now: float):
    """(stream, where it came from): --stream, else the synthetic generator's."""
    if args.stream:
        return read_stream(args.stream), str(args.stream)
    start = (now // DAY - args.days) * DAY  # whole UTC days ending today
    lines = generate(args.days, start, args.seed, Rates())
    return parse_stream(
        lines, "synthetic"
    ), f"synthetic, {args.days} days, seed {args.seed}: {Rates().describe()}"


def cmd_simulate_stream(wh, args, now: float, ws: Path) -> int:
    devices = parse_devices(args.devices)  # bad input first: one line, nothing replayed
    modes = [parse_gating(m, "--mode") for m in (args.mode or MODES)]
    stream, source = load(args, now)
    for line in stream.skipped:
        print(line, file=sys.stderr)
    check_stream(stream, source)
    rec = recorded_timings(wh)
    features = discover_features(ws)
    print(
        f"stream: {source}; {len(stream.events)} dispatches ({stream.pr_events} PR), {len(stream.skipped)} lines "
        f"skipped; leg times from {sum(map(len, rec.durations.values()))} recorded legs in {wh.where}",
        file=sys.stderr,
    )
    from crcr.warehouse.backends import open_warehouse

    with tempfile.TemporaryDirectory(prefix="capacity-") as tmp:
        scratch = open_warehouse(str(args.scratch or Path(tmp) / "warehouse"), {})
        try:
            started = time.time()
            judged = capacity(
                scratch,
                stream.arrivals(),
                features,
                rec,
                modes,
                devices,
                stream.contents(),
                reuse=not args.no_reuse,
                supersede=not args.no_supersede,
                seed=args.seed,
            )
        finally:
            scratch.close()
    print(f"replayed and judged {len(judged)} pools in {time.time() - started:.1f}s", file=sys.stderr)
    if args.json:
        print(json.dumps([as_json(j) for j in judged], indent=1))
        return 0
    print_table(judged)
    return 0


def as_json(j) -> dict:
    o = j.outcome
    return {
        "mode": o.settings.gating.describe(),
        "devices": o.settings.devices,
        "gates": {
            v.gate.key: {"value": v.value, "met": v.met}
            for v in j.readiness.verdicts
            if v.gate.key in COLUMNS
        },
        "capacity_met": j.met(),
        "legs": {"ran": o.ran, "reused": o.reused, "cancelled": o.cancelled, "dropped": o.dropped},
        "gated_out": o.gated_out,
        "device_hours": round(o.device_s / 3600, 2),
    }


def print_table(judged) -> None:
    head = ("mode", "D", *HEAD, "legs run/reused/cancelled/dropped", "device-h", "capacity gates")
    rows = []
    for j in judged:
        o, cells = j.outcome, j.cells()
        rows.append(
            (
                o.settings.gating.mode,
                str(o.settings.devices),
                *(cells.get(k, "no data") for k in COLUMNS),
                f"{o.ran}/{o.reused}/{o.cancelled}/{o.dropped}",
                f"{o.device_s / 3600:.1f}",
                "all met" if j.met() else "not met",
            )
        )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    gates = ", ".join(CAPACITY_GATES)
    for mode in dict.fromkeys(j.outcome.settings.gating.mode for j in judged):
        best = smallest([j for j in judged if j.outcome.settings.gating.mode == mode])
        tried = max(j.outcome.settings.devices for j in judged if j.outcome.settings.gating.mode == mode)
        print(
            f"smallest D for {mode}: "
            + (f"{best.outcome.settings.devices} ({gates} met)" if best else f"none up to D={tried}")
        )
