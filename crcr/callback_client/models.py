"""Pydantic models of the relay's wire formats (protocol doc §1.3 and §2.2).

Only the fields we act on are modelled; the webhook body stays verbatim
(`extra="allow"`) because it is echoed back to the relay unchanged.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from crcr.callback_client.errors import PayloadError, one_line
from crcr.callback_client.refs import check_ref, check_sha

Sha = Annotated[str, AfterValidator(check_sha)]
FullRef = Annotated[str, AfterValidator(lambda v: check_ref(v, full=True))]
BranchName = Annotated[str, AfterValidator(lambda v: check_ref(v, full=False))]
# GitHub delivery ids are GUIDs; nightly reports use a commit SHA instead.
DeliveryId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9-]{0,63}$")]
RepoName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")]
SCHEMA_VERSION = "1"


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Repo(_Open):
    full_name: RepoName


class Label(_Open):
    name: str = Field(max_length=256)


class PrSide(_Open):
    sha: Sha
    ref: BranchName
    repo: Optional[Repo] = None  # null when the fork was deleted


class PullRequest(_Open):
    number: int = Field(gt=0)
    title: str = Field(default="", max_length=1024)
    head: PrSide
    base: PrSide
    merged: Optional[bool] = None
    labels: list[Label] = Field(default_factory=list)


class PullRequestEvent(_Open):
    action: str = Field(pattern=r"^[a-z_]{1,40}$")
    number: Optional[int] = None
    pull_request: PullRequest
    repository: Repo


class PushEvent(_Open):
    ref: FullRef
    before: Sha
    after: Sha
    base_ref: Optional[FullRef] = None
    deleted: bool = False
    created: bool = False
    repository: Repo


class ClientPayload(BaseModel):
    """The three keys the relay dispatches (§1.3); `payload` is the raw webhook."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    event_type: Literal["pull_request", "push"]
    delivery_id: DeliveryId
    payload: dict[str, Any]


class TestResults(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    passed: int = Field(ge=0)
    failed: int = Field(ge=0)
    skipped: int = Field(ge=0)
    total: Optional[int] = Field(default=None, ge=0)


Status = Literal["in_progress", "completed"]
Conclusion = Literal["success", "failure", "cancelled", "timed_out", "neutral", "skipped", "action_required"]
_ISO_Z = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"


class WorkflowBlock(BaseModel):
    """`workflow` of a schema_version 1 callback; values are strings on the wire."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    schema_version: Literal["1"] = SCHEMA_VERSION
    status: Status
    conclusion: Optional[str] = None
    name: str = Field(min_length=1, max_length=256)
    url: str = ""
    run_id: str = Field(pattern=r"^\d{1,20}$")
    run_attempt: str = Field(default="1", pattern=r"^[1-9]\d{0,5}$")
    job_name: str = Field(min_length=1, max_length=256)
    check_run_id: str = Field(min_length=1, max_length=64)
    started_at: Optional[str] = Field(default=None, pattern=_ISO_Z)
    completed_at: Optional[str] = Field(default=None, pattern=_ISO_Z)
    test_results: Optional[TestResults] = None
    artifact_url: Optional[str] = None
    # completed only (the relay's callback action): checked by crcr.callback_client.failed_tests / crcr.callback_client.verdict_rules
    failed_tests_detail: Optional[list[dict[str, Any]]] = None
    triage_verdict: Optional[dict[str, Any]] = None

    @model_validator(mode="after")
    def _status_fields(self) -> "WorkflowBlock":
        if self.status == "completed" and not self.conclusion:
            raise ValueError("conclusion is required when status is completed")
        if self.status == "in_progress" and (
            self.conclusion or self.test_results or self.failed_tests_detail or self.triage_verdict
        ):
            raise ValueError("in_progress carries no conclusion, test_results, failed tests or verdict")
        return self


def describe(err: ValidationError, prefix: str) -> str:
    """First pydantic error as `prefix: a.b.c: message (got 'x')`, one line."""
    first = err.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in first.get("loc", ())) or "(root)"
    msg = re.sub(r"^(Value|Assertion) error, ", "", first.get("msg", "invalid"))
    got = first.get("input")
    shown = "" if isinstance(got, (dict, list)) else f" (got {one_line(repr(got), 60)})"
    return one_line(f"{prefix}.{loc}: {msg}{shown}")


def parse(model: type[BaseModel], data: Any, prefix: str) -> Any:
    """Validate `data` as `model`, raising PayloadError with a one-line message."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise PayloadError(describe(err, prefix)) from None
    except (ValueError, TypeError, RecursionError) as err:  # defensive: odd inputs
        raise PayloadError(f"{prefix}: {err}") from None
