"""What stage 3 knows about one unit (a test, or one op/module variant of it)."""
from __future__ import annotations

import json
from dataclasses import dataclass

from .store import Memory


@dataclass(frozen=True)
class UnitFacts:
    unit_id: str
    test_id: str
    file: str
    cls: str
    test: str
    variant: str                 # OpInfo full_name / ModuleInfo name / '' for plain tests
    kind: str                    # ops | modules | dtypes | parametrize | plain
    dtypes: tuple[str, ...]      # dtypes the test generates on CPU
    status: str | None           # CPU trace status; None when never traced
    ops: tuple[str, ...]
    kernel_ops: tuple[str, ...]
    compare_ops: tuple[str, ...]
    error: str
    features: tuple[str, ...]
    summary: str
    import_error: str | None = None
    op_list: str = ""            # source of the @ops/@modules argument

    def to_prompt(self) -> dict:
        return {"unit": self.unit_id, "variant": self.variant, "dtypes": list(self.dtypes),
                "cpu_status": self.status, "kernel_ops": list(self.kernel_ops), "features": list(self.features),
                "summary": self.summary[:400]}


def gather(memory: Memory, classes: dict[str, set[str]] | None = None) -> list[UnitFacts]:
    """All units in the memory, optionally only the stage-1 chosen classes (file -> classes)."""
    tests = {t["test_id"]: t for t in memory.tests()}
    import_errors = {f["path"]: f["import_error"] for f in memory.files()}
    facts = []
    for v in memory.variants():
        t = tests.get(v.test_id)
        if t is None or (classes is not None and t["cls"] not in classes.get(t["file"], set())):
            continue
        facts.append(UnitFacts(v.unit_id, v.test_id, t["file"], t["cls"], t["name"], v.variant, t["kind"], v.dtypes,
                               v.status, v.ops, v.kernel_ops, v.compare_ops, v.error,
                               tuple(json.loads(t["features"])), t["summary"], op_list=t["op_list"]))
    # Tests with no variants at all (file failed to import, class not device-generic): still decided.
    with_variants = {f.test_id for f in facts}
    for test_id, t in tests.items():
        if test_id in with_variants or not t["device_generic"]:
            continue
        if classes is not None and t["cls"] not in classes.get(t["file"], set()):
            continue
        facts.append(UnitFacts(test_id, test_id, t["file"], t["cls"], t["name"], "", t["kind"],
                               tuple(json.loads(t["dtypes"])), None, (), (), (), "",
                               tuple(json.loads(t["features"])), t["summary"], import_errors.get(t["file"]),
                               op_list=t["op_list"]))
    return sorted(facts, key=lambda f: f.unit_id)
