"""Stage 3 glue: memory + capabilities (+ stage-1 record) -> verdicts -> config YAML."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Mapping

from testing.base.atomic import write_text
from testing.config import edit
from testing.config.modes import Mode
from tools.select.bucket import generation
from tools.select.bucket.configgen import build_config
from tools.select.bucket.engines import Context, DecisionEngine
from tools.select.bucket.facts import UnitFacts, gather
from tools.select.bucket.rules import Verdict
from tools.select.common.capabilities import CapabilityTable
from tools.select.memory import embeddings as emb
from tools.select.memory.store import Memory


def context(
    memory: Memory,
    caps: CapabilityTable,
    out_features: Mapping[str, str],
    prior: Mapping[str, Verdict] | None = None,
    prior_tests: Mapping[str, str] | None = None,
    extra_variants: list[str] = (),
    embedder: emb.Embedder | None = None,
) -> Context:
    vectors = {test_id: emb.from_blob(blob) for test_id, blob in memory.embedding_rows()}
    names = [v.variant for v in memory.variants()] + list(extra_variants)
    variants = emb.variant_vectors(memory, names, embedder if extra_variants else None)
    return Context(caps, dict(out_features), vectors, variants, dict(prior or {}), dict(prior_tests or {}))


def run(
    memory: Memory,
    caps: CapabilityTable,
    engine: DecisionEngine,
    out_features: Mapping[str, str],
    classes: dict[str, set[str]] | None = None,
    view: "generation.DeviceView | None" = None,
) -> tuple[list[UnitFacts], dict[str, Verdict]]:
    """Facts -> engine verdicts -> (with a device view) only what the plugin will generate."""
    units = gather(memory, classes)
    verdicts = engine.decide(units, context(memory, caps, out_features))
    return units, generation.narrow(units, verdicts, view)


def save_decisions(path: str | Path, units: list[UnitFacts], verdicts: Mapping[str, Verdict]) -> None:
    data = {u.unit_id: {"test_id": u.test_id, **asdict(verdicts[u.unit_id])} for u in units}
    write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def load_decisions(path: str | Path) -> tuple[dict[str, Verdict], dict[str, str]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    verdicts, tests = {}, {}
    for unit_id, item in data.items():
        tests[unit_id] = item.pop("test_id")
        item["mode"] = Mode(item["mode"])
        verdicts[unit_id] = Verdict(**{k: tuple(v) if isinstance(v, list) else v for k, v in item.items()})
    return verdicts, tests


def write_config(
    path: str | Path,
    units: list[UnitFacts],
    verdicts: Mapping[str, Verdict],
    caps: CapabilityTable,
    backend: str | None,
    engine: str,
    header: str = "",
) -> Path:
    return edit.write(path, build_config(units, verdicts, caps.device, backend, engine, header))


# The source of a mandatory decision demoted to skip because the base configs generate no test
# of the unit: a property of those configs, not of the PyTorch version (the delta compares so).
GENERATION = "generation"


def write_checked(
    path: str | Path,
    units: list[UnitFacts],
    verdicts: dict[str, Verdict],
    caps: CapabilityTable,
    backend: str | None,
    engine: str,
    view: "generation.DeviceView",
    header: str = "",
) -> tuple[dict[str, Verdict], generation.Check]:
    """Write, load it back through the plugin, and demote any mandatory unit that still yields no
    test (then write again): what is left mandatory is what the plugin runs on the device."""
    write_config(path, units, verdicts, caps, backend, engine, header)
    check = generation.verify(path, units, verdicts, view)
    if check.silent_units:
        verdicts = dict(verdicts)
        for unit_id in check.silent_units:
            old = verdicts[unit_id]
            verdicts[unit_id] = Verdict(
                "skip",
                f"the plugin generates no test of it on {caps.device} from this "
                f"config (no entry selects a variant it generates); was: {old.short_reason}",
                source=GENERATION,
                evidence=old.evidence,
            )
        write_config(path, units, verdicts, caps, backend, engine, header)
        again = generation.verify(path, units, verdicts, view)
        check = generation.Check(check.silent_units + again.silent_units, again.silent_entries)
    return verdicts, check
