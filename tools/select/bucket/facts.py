"""What stage 3 knows about one unit (a test, or one op/module variant of it)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tools.select.memory.store import Memory, TraceRow


@dataclass(frozen=True)
class UnitFacts:
    unit_id: str
    test_id: str
    file: str
    cls: str
    test: str
    variant: str  # OpInfo full_name / ModuleInfo name / '' for plain tests
    kind: str  # ops | modules | dtypes | parametrize | plain
    dtypes: tuple[str, ...]  # dtypes the test generates on CPU
    status: str | None  # CPU trace status; None when never traced
    ops: tuple[str, ...]
    kernel_ops: tuple[str, ...]
    compare_ops: tuple[str, ...]
    error: str
    features: tuple[str, ...]
    summary: str
    import_error: str | None = None
    op_list: str = ""  # source of the @ops/@modules argument
    aten: str | None = None  # OpInfo.aten_name: what the plugin looks up in the capability table
    device: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (name template, dtypes) the device generates
    decorators: tuple[str, ...] = ()
    restrictions: dict = field(default_factory=dict)  # class-level only_for / except_for
    traces: tuple[TraceRow, ...] = ()  # one per traced dtype

    @property
    def device_dtypes(self) -> tuple[str, ...]:
        """Dtype names the device generates (as the CPU ones are spelled), else the CPU's."""
        if not self.device:
            return self.dtypes
        return tuple(dict.fromkeys("_".join(d) for _, d in self.device if d))

    def members(self, dtype: str) -> tuple[str, ...]:
        """The torch dtypes a dtype name stands for (``float32_int64`` for a @dtypes tuple)."""
        return next((tuple(d) for _, d in self.device if "_".join(d) == dtype), (dtype,))

    def trace_at(self, dtype: str) -> TraceRow | None:
        return next((t for t in self.traces if t.dtype == dtype), None)

    def to_prompt(self) -> dict:
        return {
            "unit": self.unit_id,
            "variant": self.variant,
            "dtypes": list(self.dtypes),
            "cpu_status": self.status,
            "kernel_ops": list(self.kernel_ops),
            "features": list(self.features),
            "summary": self.summary[:400],
        }


def gather(memory: Memory, classes: dict[str, set[str]] | None = None) -> list[UnitFacts]:
    """All units in the memory, optionally only the stage-1 chosen classes (file -> classes)."""
    tests = {t["test_id"]: t for t in memory.tests()}
    import_errors = {f["path"]: f["import_error"] for f in memory.files()}
    facts = []
    for v in memory.variants():
        t = tests.get(v.test_id)
        if t is None or (classes is not None and t["cls"] not in classes.get(t["file"], set())):
            continue
        facts.append(
            UnitFacts(
                v.unit_id,
                v.test_id,
                t["file"],
                t["cls"],
                t["name"],
                v.variant,
                t["kind"],
                v.dtypes,
                v.status,
                v.ops,
                v.kernel_ops,
                v.compare_ops,
                v.error,
                tuple(json.loads(t["features"])),
                t["summary"],
                op_list=t["op_list"],
                aten=v.aten,
                device=v.device,
                decorators=tuple(json.loads(t["decorators"])),
                restrictions=v.restrictions or {},
                traces=v.traces,
            )
        )
    # Tests with no variants at all (file failed to import, class not device-generic): still decided.
    with_variants = {f.test_id for f in facts}
    for test_id, t in tests.items():
        if test_id in with_variants or not t["device_generic"]:
            continue
        if classes is not None and t["cls"] not in classes.get(t["file"], set()):
            continue
        facts.append(
            UnitFacts(
                test_id,
                test_id,
                t["file"],
                t["cls"],
                t["name"],
                "",
                t["kind"],
                tuple(json.loads(t["dtypes"])),
                None,
                (),
                (),
                (),
                "",
                tuple(json.loads(t["features"])),
                t["summary"],
                import_errors.get(t["file"]),
                op_list=t["op_list"],
                decorators=tuple(json.loads(t["decorators"])),
            )
        )
    return sorted(facts, key=lambda f: f.unit_id)
