"""Several devices per host: one worker per device, probed, drained when sick, re-balanced.

    python -m tools.shard.runner --devices 0,1,2,3 [--device-type spyre]
        [--device-env SPYRE_VISIBLE_DEVICES] [--device-node '$SPYRE_STATE_DIR/spyre{i}.lock']
        [--probe-every 50] [--hang-window 300] -- <pytest args>

The shard's tests are collected once and queued, while each card's first probe runs
(testing/supervisor/health.py: a known kernel in a fresh interpreter). Each device has a
worker (a thread) that takes the next batch of ``probe_every`` tests and runs it in a pytest
child pinned to its card (``device_env`` = the card's number, as CUDA_VISIBLE_DEVICES pins
one); after each test the same kernel runs in the test's own process (cardcheck.py), so a
test whose check passed is proven good, and a batch whose checks all passed needs no fresh
probe. A crash or a hang stops the batch early and is probed at once. A card that fails a
check or a probe is **poisoned**: its worker stops, what it ran after its last good check or
probe is marked ``infra`` and goes back to the front of the queue for the healthy cards, so
the test that was running is re-run on a healthy device (not the whole batch). Before a
probe, whatever still holds the card (a grandchild that escaped the killed test's group) is
killed; a card still held then, or held again by a holder the probe's own process left (the
runtime leaks it, not a test: health.py), is ``device busy`` with the holder's pid. A shard that
loses every card reports its remaining tests as not run with the cards' states: ``infra``,
never a failure of the backend.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import threading
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from testing.config import runs
from testing.supervisor import health, supervisor
from testing.supervisor.events import Crashed, End
from testing.supervisor.supervisor import supervise
from tools.shard import cardcheck, child
from tools.shard.merge_junit import Attempt
from tools.shard.shardrun import ShardRun, Workspace

INFRA = "infra"  # the detail prefix of an attempt a sick device spoiled

MAX_ESCAPES = 2  # batches in a row that leave the card held: then it is drained
ESCAPED = f"a process still held it after its tests, {MAX_ESCAPES} batches in a row"


def spoiled(attempt: Attempt) -> bool:
    """Whether a sick device spoiled this attempt (it is not the test's own result)."""
    return attempt.detail.startswith(INFRA)


@dataclass(frozen=True)
class DevicePlan:
    """How this host's cards are used: read once from the command line."""

    devices: tuple[str, ...]  # physical card numbers, as the pinning variable takes them
    device_type: str = "spyre"
    device_module: str = "torch_spyre"  # imported by each probe ("": torch autoloads it)
    device_env: str = "SPYRE_VISIBLE_DEVICES"
    node: Optional[str] = None  # the file whose holders hold card {i} ($VARS expanded)
    probe_every: int = 50
    probe_timeout: float = health.DEFAULT_TIMEOUT
    hang_window: Optional[float] = None  # the zygote's (testing/supervisor/stall.py) when given

    def env(self, card: str) -> dict[str, str]:
        extra = {} if self.hang_window is None else {"OOT_HANG_WINDOW": f"{self.hang_window:g}"}
        return {**os.environ, self.device_env: card, **extra}

    def node_of(self, card: str) -> Optional[Path]:
        return Path(os.path.expandvars(self.node.replace("{i}", card))) if self.node else None


@dataclass
class Card:
    """One device's worker state and what it reports."""

    number: str
    state: str = "healthy"  # healthy | poisoned
    probe: str = ""  # the last probe's line
    tests_run: int = 0
    spoiled: int = 0  # attempts marked infra (run while it was sick or held)
    escapes: int = 0  # batches in a row after which a process still held it

    def report(self, device_type: str) -> dict:
        return {
            "device": f"{device_type}:{self.number}",
            "state": self.state,
            "probe": self.probe,
            "tests_run": self.tests_run,
            "infra_attempts": self.spoiled,
        }


def device_list(text: str) -> tuple[str, ...]:
    """--devices: distinct card numbers, comma-separated."""
    cards = tuple(part.strip() for part in text.split(","))
    if not all(card.isdigit() for card in cards):
        raise argparse.ArgumentTypeError(f"expected card numbers like 0,1,2,3, got {text!r}")
    if len(set(cards)) != len(cards):
        raise argparse.ArgumentTypeError(f"a card is named twice in {text!r}")
    return cards


def collect(pytest_args: list[str], scratch: Path) -> list[str]:
    """The shard's node ids: one `--collect-only` pytest, sharded as the runner's children
    are, its selection read back from the journal it writes (not from its terminal output,
    which the user's own -q/-v flags shape)."""
    from tools.shard import journal
    from tools.shard import plugin as journal_plugin

    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / "collected.jsonl"
    argv = runs.PytestCommand(
        args=pytest_args,
        plugins=[runs.SHARD_PLUGIN, journal_plugin.PLUGIN],
        collect_only=True,
        extra=[f"--shard-journal={path}"],
    ).argv()
    # as the runner's child, which skips the interpreter's teardown: the cards wait for this one
    subprocess.run(child.as_child(argv), capture_output=True, text=True, env=dict(os.environ))
    return journal.read(path).selected if path.exists() else []


def _proven(ran: dict[str, Attempt], checks: dict[str, dict]) -> list[str]:
    """The tests ``ran`` (in the order they ran) up to the card's last good check."""
    proven = []
    for key in ran:
        if checks.get(key, {}).get("state") != health.HEALTHY:
            break
        proven.append(key)
    return proven


class Pool:
    """The queue of tests and one worker per card; ``run`` returns attempts per test."""

    def __init__(self, plan: DevicePlan, pytest_args: list[str], root: Path, log) -> None:
        self.plan, self.pytest_args, self.root, self.log = plan, pytest_args, root, log
        self.cards = [Card(n) for n in plan.devices]
        self.queue: deque[str] = deque()
        self.lock = threading.Condition()  # guards the queue; notified when work returns or ends
        self.busy = 0  # workers running a batch: they may yet give tests back
        self.attempts: dict[str, list[Attempt]] = {}
        self.workspaces: list = []
        self.ahead: dict[str, threading.Thread] = {}  # each card's first probe, when started early

    def probe_ahead(self) -> None:
        """Each card's first probe, in parallel with what the caller does next (the shard's
        collection): a leg waits for one interpreter's start there, not two in a row."""
        for card in self.cards:
            self.ahead[card.number] = threading.Thread(
                target=self._probe, args=(card, "at start"), daemon=True
            )
            self.ahead[card.number].start()

    def _first_probe(self, card: Card) -> bool:
        ahead = self.ahead.pop(card.number, None)
        if ahead is None:
            return card.state != "poisoned" and self._probe(card, "at start")
        ahead.join()
        return card.state != "poisoned"

    def run(self, tests: list[str]) -> dict[str, list[Attempt]]:
        """Run ``tests`` on the cards not yet poisoned (a rerun round calls it again)."""
        self.attempts = {}
        self.queue.extend(tests)
        threads = [threading.Thread(target=self._work, args=(card,), daemon=True) for card in self.cards]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self._left_over()
        return self.attempts

    def report(self) -> list[dict]:
        for ahead in self.ahead.values():  # a shard without tests: its probes still count
            ahead.join()
        return [card.report(self.plan.device_type) for card in self.cards]

    # ------------------------------------------------------------ one card's worker

    def _work(self, card: Card) -> None:
        if not self._first_probe(card):
            return
        while True:
            batch = self._take()
            if not batch:
                return
            try:
                self._batch(card, batch)
            except Exception as err:  # never lose the batch with the worker
                with self.lock:
                    self.queue.extendleft(reversed(batch))
                self._drain(card, health.Health(self._name(card), health.FAULT, f"its worker failed: {err}"))
            finally:
                with self.lock:
                    self.busy -= 1
                    self.lock.notify_all()
            if card.state == "poisoned":
                return

    def _batch(self, card: Card, batch: list[str]) -> None:
        """Run one batch on the card, then judge the card and what it ran."""
        ran, unfinished, checks = self._run_batch(card, batch)
        escaped = self._end_escaped(card)
        if escaped:  # the card was held behind the tests' backs: what they did is not theirs
            healthy = self._probe(card, "after a process escaped with it")
            card.escapes += 1
            self._spoil(card, ran, batch)
            if healthy and card.escapes >= MAX_ESCAPES:
                self._drain(card, health.Health(self._name(card), health.BUSY, ESCAPED, escaped))
            return
        card.escapes = 0
        proven = _proven(ran, checks)
        doubtful = {key: attempt for key, attempt in ran.items() if key not in proven}
        self._accept(card, {key: ran[key] for key in proven}, unfinished)  # the others take these at once
        if not doubtful and not unfinished:  # each test's check was this batch's probe
            card.probe = (
                f"{self._name(card)}: {health.HEALTHY} (checked after each of its last {len(proven)} tests)"
            )
            return
        failed = [checks[key] for key in doubtful if key in checks]
        if failed:  # the card went wrong in its tests' own process: what ran after is spoiled
            card.probe = health.Health(self._name(card), failed[0]["state"], failed[0]["detail"]).line()
            self._spoil(card, doubtful, list(doubtful))
            self._probe(card, "after a failed check")
        elif self._probe(card, "after a crash or hang"):
            self._accept(card, doubtful, [])  # a healthy card: the crash or hang was the test's own
        else:
            self._spoil(card, doubtful, list(doubtful))

    def _take(self) -> list[str]:
        """The next batch; waits while the queue is empty but a busy card may give work back."""
        with self.lock:
            while not self.queue and self.busy:
                self.lock.wait()
            batch = [self.queue.popleft() for _ in range(min(self.plan.probe_every, len(self.queue)))]
            self.busy += bool(batch)
            return batch

    def _run_batch(self, card: Card, batch: list[str]) -> tuple[dict[str, Attempt], list[str], dict]:
        """Run ``batch`` pinned to the card until done or the first crash/hang; also each
        test's device check (cardcheck.py)."""
        ws = Workspace(self.root / f"card-{card.number}-{len(self.workspaces)}")
        ws.root.mkdir(parents=True)
        with self.lock:
            self.workspaces.append(ws)
        checked = ws.root / "checks.jsonl"
        run = ShardRun(
            self.pytest_args + self._check_args(checked), batch, ws, env=self.plan.env(card.number)
        )
        troubled: list[Crashed] = []

        def sink(event) -> None:
            run.sink(event)
            if isinstance(event, Crashed):  # the pytest child itself died
                troubled.append(f"{event.trouble} in {event.key}: {event.why}")
            elif isinstance(event, End) and (event.info or {}).get("outcome") == "crashed":
                troubled.append(f"{event.key}: {event.info.get('detail', '')}")  # a zygote's fork

        # no stall policy here: the child is a zygote (or a restarting pytest) that samples
        # its own tests (OOT_HANG_WINDOW); its parent process idles while a test runs
        supervise(run.launch, sink, max_restarts=supervisor.MAX_RESTARTS, should_stop=lambda: bool(troubled))
        ran = {key: attempt for key, attempt in run.with_cases().items() if key in set(batch)}
        unfinished = [key for key in batch if key not in ran]
        for line in troubled:
            self.log(f"{self.plan.device_type}:{card.number}: {line}")
        return ran, unfinished, cardcheck.read(checked)

    def _check_args(self, path: Path) -> list[str]:
        module = [f"--card-check-module={self.plan.device_module}"] if self.plan.device_module else []
        device = f"{self.plan.device_type}:0"  # pinned: the card is the child's device 0
        return ["-p", cardcheck.PLUGIN, f"--card-check={path}", f"--card-check-device={device}", *module]

    def _name(self, card: Card) -> str:
        return f"{self.plan.device_type}:{card.number}"

    def _end_escaped(self, card: Card) -> tuple[int, ...]:
        """End whatever still holds the card after its batch (a grandchild that escaped)."""
        node = self.plan.node_of(card.number)
        return health.end_holders(node, self.log) if node is not None else ()

    def _probe(self, card: Card, when: str) -> bool:
        found = health.probe(
            f"{self.plan.device_type}:0",  # pinned: the card is the worker's device 0
            self.plan.env(card.number),
            node=self.plan.node_of(card.number),
            module=self.plan.device_module or None,
            timeout=self.plan.probe_timeout,
        )
        found = health.Health(self._name(card), found.state, found.detail, found.holders)
        card.probe = found.line()
        if not found.ok:
            self._drain(card, found, f" (probe {when})")
        return found.ok

    def _drain(self, card: Card, found: health.Health, when: str = "") -> None:
        card.state, card.probe = "poisoned", found.line()
        self.log(f"{found.line()}{when}: drained, no more tests on it")

    def _accept(self, card: Card, ran: dict[str, Attempt], unfinished: list[str]) -> None:
        with self.lock:
            for key, attempt in ran.items():
                self.attempts.setdefault(key, []).append(replace(attempt, device=self._name(card)))
            self.queue.extendleft(reversed(unfinished))
            card.tests_run += len(ran)
            self.lock.notify_all()  # a card waiting for work takes it now, not after our probe

    def _spoil(self, card: Card, ran: dict[str, Attempt], again: list[str]) -> None:
        """What ``ran`` since the card's last good probe or check is infra; ``again`` runs again."""
        why = f"{INFRA}: ran on {self._name(card)} after its last good probe; {card.probe}"
        with self.lock:
            for key, attempt in ran.items():
                spoilt = Attempt("error", attempt.seconds, None, why, self._name(card))
                self.attempts.setdefault(key, []).append(spoilt)
            self.queue.extendleft(reversed(again))
            card.spoiled += len(ran)
            self.lock.notify_all()  # re-run at once (README: before the confirming probe)

    def _left_over(self) -> None:
        if not self.queue:
            return
        states = "; ".join(card.probe for card in self.cards)
        why = f"{INFRA}: not run: every device was drained ({states})"
        for key in self.queue:
            self.attempts.setdefault(key, []).append(Attempt("error", 0.0, None, why))
        self.log(f"{len(self.queue)} tests not run: every device was drained")
        self.queue.clear()
