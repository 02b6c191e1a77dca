"""Stage 1: high-level selection of test files and classes worth analysing.

Input: the backend's capabilities and a small scope file saying which features are in or
out. Output: a recorded choice (YAML) per file and class with its reason. Out-of-scope trees
are dropped whole here; single tests touching an out-of-scope feature are left to stage 3.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from testing.config.load import read_yaml
from tools.select.common import yamlio
from tools.select.common.capabilities import CapabilityTable
from tools.select.scope.symbols import ClassSymbol, FileSymbols

FEATURES = ("autograd", "compile", "distributed", "sparse", "quantized", "jit", "complex", "cuda_specific")

# Base classes / import roots that make a whole class or file belong to a feature.
CLASS_FEATURES = {
    "MultiProcessTestCase": "distributed",
    "DistributedTestBase": "distributed",
    "DTensorTestBase": "distributed",
    "InductorTestCase": "compile",
    "JitTestCase": "jit",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PathRules(_Strict):
    include: list[str] = Field(default_factory=lambda: ["*"])
    exclude: list[str] = Field(default_factory=list)


class ScopeSpec(_Strict):
    features: dict[Literal[FEATURES], Literal["in", "out"]] = Field(default_factory=dict)  # type: ignore[valid-type]
    paths: PathRules = Field(default_factory=PathRules)
    note: str = ""


class ScopeDocument(_Strict):
    scope: ScopeSpec


@dataclass(frozen=True)
class Choice:
    name: str
    analyse: bool
    reason: str


@dataclass(frozen=True)
class FileChoice(Choice):
    classes: tuple[Choice, ...] = ()


def load_scope(path: str | Path) -> ScopeSpec:
    return yamlio.validate(ScopeDocument, read_yaml(path)[0], path).scope


def out_features(scope: ScopeSpec, caps: CapabilityTable) -> dict[str, str]:
    """Feature -> why it is out. The scope file wins; otherwise the backend's declaration."""
    out = {}
    for feature in FEATURES:
        said = scope.features.get(feature)
        if said == "out":
            out[feature] = "scope file marks it out"
        elif said is None and caps.features.get(feature) is False:
            out[feature] = f"{caps.device} declares no {feature} support"
    return out


def decide_class(cls: ClassSymbol, out: dict[str, str]) -> Choice:
    if not cls.device_generic:
        return Choice(cls.name, False, "not instantiated per device (no instantiate_device_type_tests)")
    for base in cls.bases:
        feature = CLASS_FEATURES.get(base.rsplit(".", 1)[-1])
        if feature in out:
            return Choice(cls.name, False, f"base {base} is {feature}: {out[feature]}")
    if cls.tests and all(set(t.features) & out.keys() for t in cls.tests):
        common = sorted(
            set.intersection(*(set(t.features) & out.keys() for t in cls.tests))
            or set(cls.tests[0].features) & out.keys()
        )
        return Choice(cls.name, False, f"every test uses out-of-scope {', '.join(common)}")
    if not cls.tests:
        return Choice(cls.name, False, "no tests")
    return Choice(cls.name, True, f"{len(cls.tests)} device-generic tests")


def _matches(path: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(path, p) for p in patterns)


def decide_file(symbols: FileSymbols, scope: ScopeSpec, out: dict[str, str]) -> FileChoice:
    path = symbols.path
    if not _matches(path, scope.paths.include) or _matches(path, scope.paths.exclude):
        return FileChoice(path, False, "path excluded by the scope file")
    dropped = sorted(set(symbols.features) & out.keys())
    if dropped:
        return FileChoice(path, False, f"imports {', '.join(dropped)} machinery: {out[dropped[0]]}")
    classes = tuple(decide_class(c, out) for c in symbols.classes)
    kept = [c for c in classes if c.analyse]
    if not kept:
        return FileChoice(path, False, "no device-generic class in scope", classes)
    return FileChoice(path, True, f"{len(kept)} of {len(classes)} classes in scope", classes)


def record(choices: list[FileChoice], scope: ScopeSpec, caps: CapabilityTable, out: dict[str, str]) -> dict:
    """The stage-1 record: what was chosen and why, as plain data for YAML."""
    return {
        "selection": {
            "device": caps.device,
            "features_out": dict(sorted(out.items())),
            "files": [
                {
                    "path": f.name,
                    "analyse": f.analyse,
                    "reason": f.reason,
                    "classes": [
                        {"name": c.name, "analyse": c.analyse, "reason": c.reason} for c in f.classes
                    ],
                }
                for f in choices
            ],
        }
    }


def chosen_classes(record_data: dict) -> dict[str, set[str]]:
    """From a stage-1 record: file path -> classes to analyse."""
    return {
        f["path"]: {c["name"] for c in f["classes"] if c["analyse"]}
        for f in record_data["selection"]["files"]
        if f["analyse"]
    }
