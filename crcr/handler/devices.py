"""A leg's devices: the emulated cards the handler's legs run on, each probed before and after
the leg it runs, and the fault a run injects on purpose (issue #41, in the handler).

    dispatch_handler --inject-fault corrupt[:DEVICE][@AFTER] [--devices 0,1]

Without `--devices` or `--inject-fault` a leg runs as always: no probe, no pinning. With them,
each leg runs pinned to one card of the run's emulated host (`SPYRE_VISIBLE_DEVICES`: the card
is then the leg's `spyre:0`; `SPYRE_DEVICE_COUNT`, a `SPYRE_STATE_DIR` of the run's own, and
`SPYRE_FAULTS` = the injected fault, backend/README.md), and the card is probed
(testing/supervisor/health.py: a known kernel in a fresh interpreter) before the leg and after
it, whatever still holds the card (an escaped grandchild) ended first. A card that fails a
probe is drained: what the leg ran on it since its last good probe is infra, not the backend's,
and the leg runs again, whole and in a fresh process, on the next healthy card. A card held
behind the leg's back (an escaped grandchild) is ended and the leg re-run on it once; held
again, it is drained as `device busy`. A card the probe's own process leaves held (the
runtime leaks a holder: the injected `held`) fails that probe at once, `device busy`. A leg that loses every card ends `failure` with every card's probe line: its
verdict is `infra` with the device ids in its evidence (triage.py), never upstream or backend.

This is the leg-level form of tools/shard's device pool, which re-balances batches of tests over
the cards (`tools/shard/README.md`, "Several devices per host"); crcr sits below tools and
cannot run it. A tripped fault stays tripped on its card for the run's later legs (the card's
state in `SPYRE_STATE_DIR`), as a sick card stays sick on a real host.
"""

from __future__ import annotations

import functools
import re
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

from crcr.callback_client.errors import ConfigError
from crcr.callback_client.junit import Counts
from crcr.handler.runner import LegResult, LegSettings, child_env, runner_of
from testing.supervisor import health

FAULT_ENV = "CRCR_INJECT_FAULT"
DEVICES_ENV = "CRCR_DEVICES"
KINDS = ("hang", "corrupt", "error", "held")  # the emulated device's faults (backend/README.md)
DEFAULT_AFTER = 20  # ops a card runs normally first: its first probe passes, the leg's tests trip it
PROBE_TIMEOUT = 30.0  # the probe kernel's own bound (torch's import is not counted)
MAX_ESCAPES = 2  # runs in a row after which a process still held the card: then it is drained
DEVICE_TYPE = "spyre"
# what pins a leg to its card on the emulated host (backend/README.md)
PINNED = ("SPYRE_DEVICE_COUNT", "SPYRE_VISIBLE_DEVICES", "SPYRE_STATE_DIR", "SPYRE_FAULTS")
_FAULT = re.compile(r"(?P<kind>[a-z]+)(?::(?P<card>\d+))?(?:@(?P<after>\d+))?")


@dataclass(frozen=True)
class DeviceSettings:
    """The cards a run's legs use and the fault injected on them (read once at the entry)."""

    cards: tuple[str, ...]  # physical card numbers, as SPYRE_VISIBLE_DEVICES takes them
    fault: str = ""  # SPYRE_FAULTS, as the emulated device reads it ("" = none)
    root: Path = Path(".")  # the run's cards' state lives in a fresh directory under it
    probe_timeout: float = PROBE_TIMEOUT

    def env(self, base: Mapping[str, str], card: str) -> dict[str, str]:
        """The leg's environment pinned to `card` of this run's emulated host."""
        count = max(int(c) for c in self.cards) + 1
        return {
            **base,
            "SPYRE_DEVICE_COUNT": str(max(count, int(base.get("SPYRE_DEVICE_COUNT") or 0))),
            "SPYRE_VISIBLE_DEVICES": card,
            "SPYRE_STATE_DIR": str(state_dir(self.root)),
            "SPYRE_FAULTS": self.fault,
        }

    def pinned(self, how: LegSettings, card: str) -> LegSettings:
        """The leg's settings pinned to `card`: its environment, and for the bazel runner the
        same variables as --test_env (a test under `bazel test` sees none of ours), the cards'
        state writable in the sandbox, and no cached result (one from another card is not this
        card's)."""
        env = self.env(how.env, card)
        flags = [f"--test_env={var}={env[var]}" for var in PINNED]
        flags += [f"--sandbox_writable_path={state_dir(self.root)}", "--nocache_test_results"]
        return replace(how, env=env, bazel_flags=how.bazel_flags + tuple(flags))

    def node(self, card: str) -> Path:
        """The file a holder of `card` has open (the emulated device's claim)."""
        return state_dir(self.root) / f"spyre{card}.lock"


@functools.cache
def state_dir(root: Path) -> Path:
    """The emulated cards' state for this run: fresh, so a fault tripped by an earlier run is gone."""
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="cards-", dir=root))


def device_settings(
    fault: Optional[str], devices: Optional[str], root: Callable[[], Path]
) -> Optional[DeviceSettings]:
    """--inject-fault KIND[:DEVICE][@AFTER] and --devices 0,1 (None: legs run unguarded);
    a bad value, or a fault naming a card the legs do not use, is one line. `root`: where the
    run's cards' state goes (asked only when there are cards: `plan` may have no state dir)."""
    if not fault and not devices:
        return None
    cards = card_list(devices) if devices else ("0",)
    return DeviceSettings(cards, fault_value(fault, cards) if fault else "", root())


def card_list(text: str) -> tuple[str, ...]:
    cards = tuple(part.strip() for part in text.split(","))
    if not all(c.isdigit() for c in cards) or len(set(cards)) != len(cards):
        raise ConfigError(f"--devices {text!r}: expected distinct card numbers like 0,1")
    return cards


def fault_value(text: str, cards: tuple[str, ...]) -> str:
    """The SPYRE_FAULTS value of --inject-fault: the card defaults to the first one, AFTER to
    DEFAULT_AFTER (the card's first probe passes; the leg's tests trip the fault)."""
    match = _FAULT.fullmatch(text.strip())
    if match is None or match["kind"] not in KINDS:
        raise ConfigError(
            f"--inject-fault {text!r}: expected KIND[:DEVICE][@AFTER], KIND one of {', '.join(KINDS)}"
        )
    card = match["card"] if match["card"] is not None else cards[0]
    if str(int(card)) not in cards:
        raise ConfigError(
            f"--inject-fault {text!r}: names device {DEVICE_TYPE}:{int(card)}, but the legs run on "
            f"{', '.join(f'{DEVICE_TYPE}:{c}' for c in cards)} (--devices)"
        )
    return f"{match['kind']}:{int(card)}@{match['after'] or DEFAULT_AFTER}"


def on_card(ws: Path, configs: Sequence[str]) -> bool:
    """Whether a leg with these configs runs on the card: the last `device_type` its configs
    name, else a `backend`'s device; a CPU leg (`device_type: cpu`, or neither) never touches it."""
    from testing.config.load import load

    device, backend = None, None
    for config in configs:
        try:
            g = load(str(ws / config)).doc.test_suite_config.global_
        except (ConfigError, OSError):
            return True  # its run reports the config; the card is probed all the same
        device, backend = g.device_type or device, g.backend or backend
    return (device or ("privateuse1" if backend else "cpu")) != "cpu"


def run_on_devices(
    settings: Optional[DeviceSettings],
    how: LegSettings,
    run: Callable[[LegSettings], LegResult],
    log=None,
    configs: Sequence[str] = (),
    head: Sequence[str] = (),
) -> LegResult:
    """`run` the leg on the first healthy card, again on the next when a probe after it fails;
    `configs`: the leg's (a CPU leg runs unpinned and unprobed); `head`: the notes a leg that
    never ran starts with (its core line, as a run's would)."""
    if settings is None or (configs and not on_card(how.ws, configs)):
        return run(how)
    say = log or (lambda line: print(line, file=sys.stderr))
    lost: list[str] = []
    last: Optional[LegResult] = None
    for card in settings.cards:
        first = _probe(settings, card, how)
        if not first.ok:
            lost.append(f"{first.line()} (probe before the leg)")
            say(f"{lost[-1]}: drained")
            continue
        for attempt in range(1, MAX_ESCAPES + 1):
            last = replace(run(settings.pinned(how, card)), device=name(card))
            escaped = health.end_holders(settings.node(card), say)
            after = _probe(settings, card, how)
            if not after.ok:
                lost.append(f"{after.line()} (probe after the leg)")
                break
            if not escaped:
                return _kept(last, lost)
            if attempt == MAX_ESCAPES:
                held = f"held by pid {', '.join(map(str, escaped))}"
                lost.append(
                    f"{name(card)}: {health.BUSY} ({held}): still held after the leg, {MAX_ESCAPES} runs in a row"
                )
            else:
                say(
                    f"{name(card)}: held behind the leg's back ({len(escaped)} processes ended): the leg runs again"
                )
        say(f"{lost[-1]}: drained, what ran on it since its last good probe is infra")
    return _all_lost(last, tuple(lost), how, tuple(head), name(settings.cards[-1]))


def name(card: str) -> str:
    return f"{DEVICE_TYPE}:{card}"


def _probe(settings: DeviceSettings, card: str, how: LegSettings) -> health.Health:
    """The card's probe, pinned as the leg is (the probe's interpreter finds the backend as the
    leg's does); named by its physical number."""
    found = health.probe(
        f"{DEVICE_TYPE}:0",
        child_env(how.ws, settings.env(how.env, card)),
        node=settings.node(card),
        module="torch_spyre",
        timeout=settings.probe_timeout,
    )
    return health.Health(name(card), found.state, found.detail, found.holders)


def _kept(result: LegResult, lost: list[str]) -> LegResult:
    """A leg that ended on a healthy card: its results are that card's and judged as any
    (a real failure there stays the code's); the cards it lost are said, not blamed."""
    if not lost:
        return result
    line = f"devices: lost {'; '.join(lost)}; re-ran whole on {result.device}"
    return replace(result, notes=result.notes + (line,))


def _all_lost(
    last: Optional[LegResult], lost: tuple[str, ...], how: LegSettings, head: tuple[str, ...], card: str
) -> LegResult:
    """Every card drained: no result of this leg is the backend's; the leg fails as infra."""
    line = f"infra: every device was drained ({'; '.join(lost)})"
    if last is None:  # drained before it started: nothing ran
        notes = head + (line,)
        return LegResult(
            "failure", 0, Counts(), 0.0, (), notes, drained=lost, runner=runner_of(how), device=card
        )
    conclusion = "timed_out" if last.conclusion == "timed_out" else "failure"
    return replace(last, conclusion=conclusion, notes=last.notes + (line,), drained=lost)
