"""The test-suite config schema as pydantic models.

This is the single definition of the YAML format: the JSON Schema in
configs/schema/ is generated from it (see schema.py) and a test fails when the
checked-in copy is stale. The format is a superset of Torch Spyre's
``test_suite_config``; the additions are documented on the fields.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, field_validator

from testing.config.dtypes import DtypeName, canonical
from testing.config.gating import check_name
from testing.config.modelops import CasePrecision, SampleInputs, SourceLine
from testing.config.modes import Mode  # defined apart so bucket decisions need no pydantic


class _Model(BaseModel):
    # Unknown keys are errors: a typo must never silently widen a run.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


Name = Annotated[str, Field(min_length=1)]
# upstream's "<category>.<name>" (testing/config/gating.py)
CapabilityName = Annotated[str, AfterValidator(check_name)]


class Precision(_Model):
    """Tolerances used for a dtype (assertEqual atol/rtol)."""

    atol: float = Field(ge=0)
    rtol: float = Field(default=0.0, ge=0)


class Shapes(_Model):
    """Knobs that limit or override an op's sample inputs."""

    max_numel: Optional[int] = Field(
        default=None, gt=0, description="Drop sample inputs whose largest tensor has more elements."
    )
    explicit: Optional[list[list[Annotated[int, Field(ge=0)]]]] = Field(
        default=None,
        description="Replace the samples by these input shapes (the first sample is the template).",
    )


class DtypeSpec(_Model):
    """A dtype with optional precision; used globally and per op."""

    name: DtypeName
    precision: Optional[Precision] = None
    force_xfail: bool = False
    reason: Optional[str] = None
    description: Optional[str] = None


class OpSpec(_Model):
    """A supported OpInfo (by full_name, e.g. 'add' or 'div.no_rounding_mode')."""

    name: Name
    dtypes: Optional[list[Union[DtypeName, DtypeSpec]]] = Field(
        default=None, description="Restrict (and give precision for) this op's dtypes."
    )
    exclude_dtypes: list[DtypeName] = Field(default_factory=list)
    shapes: Optional[Shapes] = None
    force_xfail: bool = False
    reason: Optional[str] = Field(
        default=None,
        description="Why; required with force_xfail and for an op the backend's capabilities lack.",
    )
    description: Optional[str] = None


class ModuleSpec(_Model):
    """A supported ModuleInfo (by name, e.g. 'nn.Linear')."""

    name: Name
    dtypes: Optional[list[Union[DtypeName, DtypeSpec]]] = None
    force_xfail: bool = False
    reason: Optional[str] = None
    description: Optional[str] = None


class NamedRef(_Model):
    name: Name
    description: Optional[str] = None
    # Model-op cases (testing/config/modelops.py): an op include with sample_inputs_func is one
    # recorded call, run by the model-op suite; tags become its marks.
    tags: list[Name] = Field(default_factory=list)
    sample_inputs_func: Optional[SampleInputs] = None
    precision: Optional[CasePrecision] = Field(
        default=None, description="A model-op case's own tolerance (an addition; default: its dtype's)."
    )
    source_line: SourceLine = None
    # Torch Spyre's module includes may carry these; read, not applied (config.py warns).
    module_path: Optional[str] = None
    constructor_inputs: Optional[Any] = None
    forward_inputs: Optional[Any] = None


class IncludeExclude(_Model):
    include: list[Union[Name, NamedRef]] = Field(default_factory=list)
    exclude: list[Union[Name, NamedRef]] = Field(default_factory=list)


class DtypeEdits(_Model):
    include: list[Union[DtypeName, DtypeSpec]] = Field(default_factory=list)
    exclude: list[Union[DtypeName, NamedRef]] = Field(default_factory=list)

    @field_validator("exclude", mode="after")
    @classmethod
    def _torch_names(cls, v: list) -> list:
        # {name: half} as much as a bare 'half': torch's name (testing/config/dtypes.py)
        return [r if isinstance(r, str) else r.model_copy(update={"name": canonical(r.name)}) for r in v]


class Functions(_Model):
    """TestCase methods changed for this test (Torch Spyre's edits.functions)."""

    cpu_move: list[Union[Name, NamedRef]] = Field(
        default_factory=list,
        description="TestCase methods (e.g. assertEqual) whose tensor arguments are moved to CPU before the call.",
    )


class Edits(_Model):
    """Per-test changes to what gets generated."""

    ops: Optional[IncludeExclude] = None
    modules: Optional[IncludeExclude] = None
    dtypes: Optional[DtypeEdits] = None
    shapes: Optional[Shapes] = None
    functions: Optional[Functions] = None


class TestEntry(_Model):
    """One or more tests sharing a bucket.

    names: 'Class::method', 'method', or fnmatch globs of either; a method name
    may also be a generated variant name (e.g. test_x_add_spyre_float32).
    ops/dtypes/modules (an addition) narrow the entry to those variants.
    """

    __test__ = False  # not a pytest test class

    names: Union[Name, list[Name]]
    mode: Mode = Mode.mandatory_success
    reason: Optional[str] = Field(
        default=None, description="Why; default: the nearest YAML comment (--oot-strict wants the key)."
    )
    tags: list[Name] = Field(default_factory=list)
    labels: list[Name] = Field(default_factory=list)
    ops: Optional[list[Name]] = None
    dtypes: Optional[list[DtypeName]] = None
    modules: Optional[list[Name]] = None
    edits: Optional[Edits] = None
    relax_device_restrictions: bool = Field(
        default=False, description="Run onlyOn/onlyNativeDeviceTypes-restricted tests on this device."
    )
    hang_window: Optional[float] = Field(
        default=None,
        gt=0,
        description="Under --isolate: seconds without progress that make these tests a hang "
        "(an addition; over the config's global.hang_window and --oot-hang-window).",
    )
    # Provenance (an addition): where a skip/xfail came from and when to look again.
    since: Optional[Union[Name, datetime.date]] = Field(
        default=None, description="Upstream SHA, PR (#123) or date (YYYY-MM-DD) since which this holds."
    )
    issue: Optional[Name] = Field(default=None, description="URL of the issue tracking it.")
    expires: Optional[Union[datetime.date, Name]] = Field(
        default=None,
        description="Date (YYYY-MM-DD) or torch version ('2.14', quoted) after which the entry is stale: "
        "the loader warns.",
    )

    @field_validator("expires", mode="before")
    @classmethod
    def _expires_form(cls, value: Any) -> Any:
        """A date, or a torch version; anything else is a one-line error at its line."""
        if value is None or isinstance(value, datetime.date):
            return value
        text = str(value).strip()
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            try:
                return datetime.date.fromisoformat(text)
            except ValueError:
                pass
        elif re.fullmatch(r"(torch[- ]?)?\d+\.\d+(\.\d+)?", text):
            return text
        raise ValueError(f"expires {value!r}: not a date (YYYY-MM-DD) or a torch version ('2.14')")

    @property
    def name_list(self) -> list[str]:
        return [self.names] if isinstance(self.names, str) else list(self.names)


class FileEntry(_Model):
    """A test file: ${REPO_ROOT}/... (in-tree) or ${TORCH_ROOT}/... (upstream)."""

    path: Name
    unlisted_test_mode: Mode = Field(
        default=Mode.skip, description="Bucket for tests no entry names. Default: skip."
    )
    unlisted_reason: Optional[str] = None
    collect: bool = Field(
        default=True,
        description="false: do not even import the file (e.g. an upstream file whose imports no longer match the pinned torch); needs 'reason'.",
    )
    reason: Optional[str] = None
    relax_device_restrictions: bool = False
    relax_only_for: bool = Field(
        default=False,
        description="Instantiate this file's classes for the device even if only_for/except_for exclude it.",
    )
    tests: list[TestEntry] = Field(default_factory=list)


class InputConfig(_Model):
    seed: Optional[int] = None


class GlobalConfig(_Model):
    backend: Optional[Name] = Field(
        default=None,
        description="Python module that registers the device (imported before torch's test helpers).",
    )
    device_type: Optional[Name] = Field(
        default=None, description="Device to test; default: the backend's privateuse1 name, else cpu."
    )
    capabilities: Literal["backend", "none"] = Field(
        default="none",
        description="'backend': supported ops/dtypes come from <backend>.capabilities() and configs are checked against it.",
    )
    supported_dtypes: Optional[list[Union[DtypeName, DtypeSpec]]] = None
    supported_ops: Optional[list[Union[Name, OpSpec]]] = None
    supported_modules: Optional[list[Union[Name, ModuleSpec]]] = None
    input_config: Optional[InputConfig] = None
    compat: Optional[Literal["torch_spyre"]] = Field(
        default=None,
        description="'torch_spyre': read names and device restrictions as Torch Spyre does (configs/README.md).",
    )
    relax_device_restrictions: bool = Field(
        default=False,
        description="Run onlyOn/onlyCPU/onlyCUDA/onlyNativeDeviceTypes tests of every file on this device.",
    )
    hang_window: Optional[float] = Field(
        default=None,
        gt=0,
        description="Under --isolate: seconds without progress that make a test of this config a hang "
        "(an addition; over --oot-hang-window and $OOT_HANG_WINDOW; default 300).",
    )
    adapter: Optional[Literal["auto", "native", "patch"]] = Field(
        default=None,
        description="auto (default): torch's own test-reuse API where the core has it, our patches for the "
        "rest; native: every rule must be expressible natively; patch: our patches only.",
    )
    scope: Optional[list[Name]] = Field(
        default=None,
        description="Hardware classifications whose test classes run (e.g. accelerator), where the "
        "upstream checkout carries upstream's hw_classification; elsewhere one line says it is not applied.",
    )

    harness_capabilities: Optional[dict[CapabilityName, StrictBool]] = Field(
        default=None,
        description="Upstream's capability gating (@requires_capabilities): '<category>.<name>' -> "
        "supported, e.g. {dtype.fp8: false}; every capability the harness in use knows must be declared.",
    )

    @field_validator("scope", mode="before")
    @classmethod
    def _scope_names(cls, value: Any) -> Any:
        """'accelerator' or a list; each a classification upstream knows (testing/config/hwclass.py)."""
        if value is None:
            return value
        from testing.config.hwclass import normalize

        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list):
            raise ValueError("scope: a classification name or a list of them")
        return [normalize(v) for v in items]


class SuiteConfig(_Model):
    labels: list[Name] = Field(default_factory=lambda: ["full"])
    files: list[FileEntry] = Field(default_factory=list)
    global_: GlobalConfig = Field(default_factory=GlobalConfig, alias="global")


class ConfigDocument(_Model):
    """Top level of a config YAML."""

    test_suite_config: SuiteConfig
