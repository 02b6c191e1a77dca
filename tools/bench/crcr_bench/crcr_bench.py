"""CRCR client under faults and rate limits, measured side by side in one run.

1. Delivery cost: N legs (in_progress + completed each) against the emulator
   with no faults and with 30 % injected faults (5xx, 429, dropped replies,
   latency): wall time, relay requests per callback, and how many callbacks
   ended "recorded, HUD unconfirmed" (a dropped 200 looks the same to the
   client as a HUD failure), and their ratios.
2. Rate budget: a burst of callbacks from one repo (4 concurrent senders) against the relay's
   100-per-window limit, with the client budget (90/window) and without it:
   429s received and wall time. The window is scaled from 60 s to --window
   seconds on both sides so the run stays short.

    tools/bazel run //tools/bench/crcr_bench -- [--legs 40] [--burst 200] [--window 6]
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console
from rich.table import Table

from crcr.callback_client.body import RunContext, completed_body, in_progress_body
from crcr.callback_client.budget import RateBudget
from crcr.callback_client.client import CallbackClient
from crcr.callback_client.oidc import StaticToken
from crcr.callback_client.outbox import Outbox
from crcr.callback_client.retry import default_policy
from crcr.callback_client.transport import HttpTransport
from crcr.dispatch.allowlist import Entry
from crcr.dispatch.event import load_dispatch
from crcr.handler.main import EXAMPLE
from crcr.relay.faults import FaultPlan
from crcr.relay.pipeline import Relay
from crcr.relay.ratelimit import SlidingWindow
from crcr.relay.server import RelayEmulator
from testing.base.cliargs import Parser
from testing.base.command import command

REPO = "bench/oot"


def run_legs(legs: int, fault_rate: float, state: Path) -> tuple[float, int, int, int]:
    faults = FaultPlan(rate=fault_rate, kinds=("5xx", "429", "drop", "latency"), latency=0.01, seed=3)
    relay = Relay({REPO: Entry(REPO, "L2")}, limiter=SlidingWindow(limit=10**6))
    cp = dict(load_dispatch(json.loads(EXAMPLE.read_text())).client_payload, delivery_id=str(uuid.uuid4()))
    relay.dispatch(REPO, cp)
    with RelayEmulator(faults=faults, relay=relay) as emu:
        transport = CountingTransport()
        client = CallbackClient(
            emu.url,
            StaticToken(relay.issuer.mint(REPO, lifetime=3600)),
            REPO,
            outbox=Outbox(state),
            budget=RateBudget(limit=10**6),
            transport=transport,
            policy=default_policy(total=20, backoff=0.002, jitter=0.002, cap=0.02),
        )
        start = time.perf_counter()
        outcomes = []
        for leg in range(legs):
            ctx = RunContext("bench", "1", f"leg{leg}", f"c{leg}")
            guard = client.begin_job(in_progress_body(cp, ctx), completed_body(cp, ctx, "cancelled"))
            outcomes += [guard.started, client.finish_job(guard, completed_body(cp, ctx, "success"))]
        elapsed = time.perf_counter() - start
        client.close()
    completed = sum(t.status == "COMPLETED" for t in relay.state.transitions)
    return elapsed, completed, transport.sends, sum(not o.hud_confirmed for o in outcomes)


class CountingTransport(HttpTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sends = 0

    def send(self, request):
        self.sends += 1
        return super().send(request)


def burst(callbacks: int, window: float, budget: bool, state: Path) -> tuple[float, int]:
    relay = Relay({REPO: Entry(REPO, "L2")}, limiter=SlidingWindow(limit=100, window=window))
    cp = dict(load_dispatch(json.loads(EXAMPLE.read_text())).client_payload, delivery_id=str(uuid.uuid4()))
    relay.dispatch(REPO, cp)
    with RelayEmulator(relay=relay) as emu:
        client = CallbackClient(
            emu.url,
            StaticToken(relay.issuer.mint(REPO, lifetime=3600)),
            REPO,
            outbox=Outbox(state),
            budget=RateBudget(limit=90 if budget else 10**6, window=window),
            policy=default_policy(total=30, backoff=window / 8, jitter=window / 8, cap=window),
        )
        start = time.perf_counter()
        # matrix legs report concurrently: 4 senders sharing one budget
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(
                pool.map(
                    lambda i: client.post(
                        in_progress_body(cp, RunContext("bench", "2", f"burst{i}", f"b{i}"))
                    ),
                    range(callbacks),
                )
            )
        elapsed = time.perf_counter() - start
        client.close()
    return elapsed, relay.counters.get("429", 0)


@command("crcr_bench")
def main(argv=None) -> int:
    p = Parser(prog="crcr_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--legs", type=int, default=40)
    p.add_argument("--burst", type=int, default=200)
    p.add_argument("--window", type=float, default=6.0, help="relay window in seconds (production: 60)")
    args = p.parse_args(argv)
    console = Console()
    logging.getLogger("crcr").setLevel(
        logging.ERROR
    )  # the per-callback "HUD unconfirmed" warnings are counted instead
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        clean = run_legs(args.legs, 0.0, tmp / "a")
        faulty = run_legs(args.legs, 0.3, tmp / "b")
        t = Table(title=f"delivery of {args.legs} legs ({2 * args.legs} callbacks)")
        for col in ("faults", "seconds", "COMPLETED", "HTTP attempts / callback", "HUD unconfirmed"):
            t.add_column(col)
        for name, (secs, done, sends, unconfirmed) in (("0 %", clean), ("30 %", faulty)):
            t.add_row(name, f"{secs:.2f}", str(done), f"{sends / (2 * args.legs):.2f}", str(unconfirmed))
        console.print(t)
        console.print(
            f"ratio 30 % / 0 %: time {faulty[0] / clean[0]:.2f}x; "
            f"exactly-once: {clean[1] == faulty[1] == args.legs}"
        )
        with_budget = burst(args.burst, args.window, True, tmp / "c")
        without = burst(args.burst, args.window, False, tmp / "d")
        b = Table(title=f"burst of {args.burst} callbacks, relay limit 100 per {args.window:g} s window")
        for col in ("client budget", "seconds", "429s from relay"):
            b.add_column(col)
        b.add_row("90 / window", f"{with_budget[0]:.2f}", str(with_budget[1]))
        b.add_row("off", f"{without[0]:.2f}", str(without[1]))
        console.print(b)
        console.print(
            f"429s avoided by the budget: {without[1] - with_budget[1]}; "
            f"time ratio budget/off: {with_budget[0] / max(without[0], 1e-9):.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
