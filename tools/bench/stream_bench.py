"""Stream bench (issue 43): what reuse and supersession save, whether a reused result is the
one a re-run gives, and how many devices each gating mode needs for L3, in one run.

    tools/bazel run //tools/bench:stream_bench [-- --days 14 --devices 1-16 --rerun-sample 10]

1. Device-minutes: the default synthetic stream (crcr/warehouse/synthetic.py; at least 200
   dispatches) over the embedded fixture's features (configs/ and the generated upstream's
   configs), leg times from a 14-day simulated history, replayed by the capacity simulator in
   mode `all` with reuse and supersession both on, then both off, on the same pool: the ratio
   of device-minutes (goal <= 0.5), at the smallest pool that meets the gates with both on and
   at an unqueued pool (no leg waits, so supersession cancels only what a newer sync overtakes).
2. Re-run check (real legs, no simulation): the handler's local cycle on the bundled dispatch
   three times into one scratch warehouse: once to record, once with reuse (its green legs
   come from the warehouse), once with --no-reuse (they run again). Up to --rerun-sample
   reused legs are compared with their re-run: conclusion and passed/failed/skipped counts.
   Goal: 0 differ.
3. The capacity table (mode x D -> gates) for the default synthetic stream; the smallest D per mode.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from crcr.callback_client.errors import KNOWN
from crcr.dispatch.gating import MODES, parse_gating
from crcr.dispatch.plan import discover_features
from crcr.dispatch.stream import parse_stream
from crcr.upstream.fixture import CONFIGS as FIXTURE_CONFIGS
from crcr.warehouse import l3
from crcr.warehouse.backends import open_warehouse
from crcr.warehouse.capacity import (
    Recorded,
    Settings,
    capacity,
    parse_devices,
    recorded_timings,
    replay,
    smallest,
)
from crcr.warehouse.capacity_cli import print_table
from crcr.warehouse.simulate import write_history
from crcr.warehouse.synthetic import DAY, Rates, generate
from testing.base.cliargs import Parser, non_negative_int, positive_int
from testing.base.command import command

HISTORY_DAYS = 14
UNQUEUED = 512  # devices: more than any stream here has legs at once


def _args(argv=None) -> argparse.Namespace:
    p = Parser(prog="stream_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--days", type=positive_int, default=14, help="synthetic stream days (default 14)")
    p.add_argument("--devices", default="1-16", help="pool sizes for the capacity table")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--rerun-sample",
        type=non_negative_int,
        default=10,
        help="reused legs compared with a re-run (0: skip)",
    )
    p.add_argument(
        "--rerun-shards",
        type=positive_int,
        default=4,
        help="legs per feature in the re-run check's cycles (enough green legs for the sample)",
    )
    return p.parse_args(argv)


def device_minutes(arrivals, features, rec, devices: int, seed: int, contents) -> tuple[float, float, object]:
    """(both on, both off, the on replay); `contents` None: the reuse key reads commits, not content."""
    on = replay(arrivals, features, rec, Settings(devices, seed=seed), "bench/on", contents)
    off = replay(
        arrivals, features, rec, Settings(devices, supersede=False, reuse=False, seed=seed), "bench/off"
    )
    return on.device_s / 60, off.device_s / 60, on


def composition(o) -> str:
    """Where the device-minutes went (the reference for what dominates): by event kind and end."""
    by: dict[str, float] = {}
    for leg in o.legs:
        kind = "reused" if leg.reused_from else f"{leg.event_type} {leg.conclusion}"
        by[kind] = by.get(kind, 0.0) + (leg.execution_time or 0.0)
    total = sum(by.values()) or 1.0
    return ", ".join(f"{k} {v / total:.0%}" for k, v in sorted(by.items(), key=lambda x: -x[1]))


def frozen_workspace(ws: Path, tmp: Path) -> Path:
    """A clone of the workspace's HEAD for the three cycles: the reuse key holds the backend's
    commit (and a hash of uncommitted edits), so a commit or an edit in the workspace between
    the cycles would leave nothing to reuse. Not a git checkout: the workspace itself."""
    clone = tmp / "workspace"
    made = subprocess.run(["git", "clone", "-q", "--local", str(ws), str(clone)], capture_output=True)
    if made.returncode:
        return ws
    head = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    print(f"  on a clone of the workspace at {head.stdout.strip()} (uncommitted edits left out)")
    return clone


def rerun_check(ws: Path, tmp: Path, sample: int, shards: int) -> tuple[int, int]:
    """(legs compared, legs whose reused result differs from the re-run's)."""
    ws = frozen_workspace(ws, tmp)
    wh = tmp / "rerun-warehouse"
    env = {**os.environ, "CRCR_STATE_DIR": str(tmp / "state"), "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    base = [sys.executable, "-m", "crcr.handler.main", "--workspace", str(ws), "--upstream", "none"]
    base += ["--runner", "pytest", "--warehouse", str(wh), "--shards", str(shards)]
    rows = {}
    for name, more in (("record", []), ("reuse", []), ("rerun", ["--no-reuse"])):
        out = tmp / f"out-{name}"
        started = time.time()
        subprocess.run(base + ["--out", str(out), *more], env=env, cwd=ws, check=False, capture_output=True)
        print(f"  cycle {name}: {time.time() - started:.0f}s", file=sys.stderr)
        rows[name] = {r["job_name"]: r for r in json.loads((out / "hud.json").read_text())}
    store = open_warehouse(str(wh), {})
    try:
        reused = [
            r[0]
            for r in store.query(f"SELECT DISTINCT job_name FROM {store.db}.legs WHERE reused_from != ''")
        ]
    finally:
        store.close()
    fields = ("conclusion", "tests_passed", "tests_failed", "tests_skipped")
    picked = sorted(reused)[:sample]
    differ = [
        j
        for j in picked
        if [rows["reuse"][j].get(f) for f in fields] != [rows["rerun"][j].get(f) for f in fields]
    ]
    for j in picked:
        print(
            f"  {j}: reused {[rows['reuse'][j].get(f) for f in fields]} re-run {[rows['rerun'][j].get(f) for f in fields]}"
        )
    return len(picked), len(differ)


@command("stream_bench", {KNOWN: 2}, prefix="stream_bench: ")
def main(argv=None) -> int:
    args = _args(argv)
    ws = Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or ".").resolve()
    features = discover_features(ws, [FIXTURE_CONFIGS])
    # both anchored to the start of today (UTC): two runs on one day give the same figures
    today = time.time() // DAY * DAY
    stream = parse_stream(generate(args.days, today - args.days * DAY, args.seed), "synthetic")
    arrivals = stream.arrivals()
    print(
        f"stream: {len(arrivals)} dispatches ({stream.pr_events} PR) over {args.days} days: {Rates().describe()}"
    )
    print(f"features: {len(features)} (configs/ and the embedded fixture's)")
    with tempfile.TemporaryDirectory(prefix="stream-bench-") as tmp:
        history = open_warehouse(str(Path(tmp) / "history"), {})
        try:
            write_history(history, HISTORY_DAYS, today, args.seed, ws)
            rec = recorded_timings(history)
        finally:
            history.close()
        scratch = open_warehouse(str(Path(tmp) / "scratch"), {})
        try:
            judged = capacity(
                scratch,
                arrivals,
                features,
                rec,
                [parse_gating(m) for m in MODES],
                parse_devices(args.devices),
                stream.contents(),
            )
        finally:
            scratch.close()
        print("\n3. capacity (mode x D -> gates):")
        print_table(judged)
        best = smallest([j for j in judged if j.outcome.settings.gating.mode == "all"])
        print("\n1. device-minutes, reuse + supersession on / off (mode all):")
        for label, d in (
            (f"smallest D meeting the gates ({best.outcome.settings.devices})", best.outcome.settings.devices)
            if best
            else ("", 0),
            ("unqueued pool", UNQUEUED),
        ):
            if not d:
                continue
            for keyed, contents in (("content", stream.contents()), ("commit", None)):
                on, off, o = device_minutes(arrivals, features, rec, d, args.seed, contents)
                print(
                    f"  {label}, keyed by {keyed}: {on:,.0f} / {off:,.0f} device-minutes = {on / off:.3f} "
                    f"(goal <= 0.5); legs run {o.ran}, reused {o.reused}, cancelled {o.cancelled}, "
                    f"never started {o.dropped}"
                )
                print(f"    device-minutes with both on: {composition(o)}")
        # what-if (labelled so): a backend whose legs pass as often as the L3 pass-rate gate asks
        rate = next(g.target for g in l3.GATES if g.key == "passRate")
        at_gate = Recorded(rec.durations, {f: rate for f in rec.pass_rate})
        on, off, o = device_minutes(arrivals, features, at_gate, UNQUEUED, args.seed, stream.contents())
        print(
            f"  what-if, legs green at the L3 pass-rate gate ({rate:.0%}, not the history's), unqueued, keyed by "
            f"content: {on:,.0f} / {off:,.0f} = {on / off:.3f}; reused {o.reused}\n"
            f"    device-minutes with both on: {composition(o)}"
        )
        if args.rerun_sample:
            print("\n2. reused vs re-run (real legs, the handler's local cycle):")
            compared, differ = rerun_check(ws, Path(tmp), args.rerun_sample, args.rerun_shards)
            if not compared:  # nothing compared is not "0 differ"
                print("  no leg was reused (no green leg of the record cycle): re-run check NOT done")
                return 1
            print(f"  {compared} reused legs re-run: {differ} differ (goal 0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
