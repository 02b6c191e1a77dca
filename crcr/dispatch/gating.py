"""Event gating: which dispatches a backend acts on, from one config value (pure).

Accelerator cards are scarce, so a backend may act on less than the whole stream
(docs: downstream-practice.md §1-§2). The value, e.g. `label-or-landed label=ciflow/crcr
push=off`, is read once (the handler's Options, the workflow's `vars.CRCR_GATING` handed to
the handler's `plan`), so the handler, the workflow and the capacity simulator decide alike:

- `all`: every dispatch the relay sends that has something to test (today's behaviour);
- `label-or-landed`: PR syncs only while the PR carries the label; every PR once when it
  lands (the reference repo's low-volume pattern); unlabelled syncs send no callbacks;
- `merged-only`: PRs only when they land (the from-source downstreams' pattern).

`push=on|off` and `nightly=on|off` say whether pushes and the backend's nightly run
(both on by default). A gated-out dispatch gets one line saying why and sends nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from crcr.callback_client.errors import ConfigError
from crcr.dispatch.event import Decision, Dispatch, decide

MODES = ("all", "label-or-landed", "merged-only")
DEFAULT_LABEL = "ciflow/crcr"
ENV = "CRCR_GATING"  # the one config value (a repository variable in the workflow)


@dataclass(frozen=True)
class Gating:
    mode: str = "all"
    label: str = DEFAULT_LABEL
    push: bool = True
    nightly: bool = True

    def describe(self) -> str:
        on = {True: "on", False: "off"}
        return f"{self.mode} label={self.label} push={on[self.push]} nightly={on[self.nightly]}"


def parse_gating(raw: str | None, where: str = f"${ENV}") -> Gating:
    """`MODE [label=NAME] [push=on|off] [nightly=on|off]` (space or comma separated);
    empty or unset: `all`. A bad word is a one-line ConfigError naming `where`."""
    words = (raw or "").replace(",", " ").split()
    if not words:
        return Gating()
    mode, *rest = words
    if mode not in MODES:
        raise ConfigError(f"{where}: mode {mode!r} is not one of {', '.join(MODES)}")
    fields: dict = {"mode": mode}
    for word in rest:
        key, _, value = word.partition("=")
        if key == "label" and value:
            fields["label"] = value
        elif key in ("push", "nightly") and value in ("on", "off"):
            fields[key] = value == "on"
        else:
            raise ConfigError(f"{where}: {word!r}: expected label=NAME, push=on|off or nightly=on|off")
    return Gating(**fields)


def gate(d: Dispatch, gating: Gating) -> Decision:
    """The relay-level decision (event.decide), then the backend's gating on top of it."""
    base = decide(d)
    if not base.run:
        return base
    if d.event_type == "push":
        if not gating.push:
            return Decision(False, f"gated out: push {d.ref} (gating {gating.mode}, push=off)")
        return base
    if gating.mode == "all" or d.landed:
        return base  # a landed PR runs once in every mode
    if gating.mode == "merged-only":
        return Decision(False, f"gated out: PR #{d.pr_number} {d.action}, not landed (gating merged-only)")
    if gating.label in d.labels:
        return Decision(True, f"{base.reason} (labelled {gating.label})")
    return Decision(
        False,
        f"gated out: PR #{d.pr_number} {d.action} without the label {gating.label} "
        "(gating label-or-landed: labelled PRs, or once on landing)",
    )


def nightly_runs(gating: Gating) -> Decision:
    """The backend's own nightly (no dispatch): run unless gated off."""
    if gating.nightly:
        return Decision(True, "nightly")
    return Decision(False, f"gated out: nightly (gating {gating.mode}, nightly=off)")
