"""Three functions over `CallbackClient`, plus building one from the environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Optional

from urllib3.util.retry import Retry

from crcr.callback_client.body import RunContext, completed_body, in_progress_body, nightly_body
from crcr.callback_client.budget import RateBudget
from crcr.callback_client.client import CallbackClient, Outcome
from crcr.callback_client.errors import ConfigError
from crcr.callback_client.oidc import provider_from_env
from crcr.callback_client.outbox import Outbox
from crcr.callback_client.refs import check_sha
from crcr.callback_client.transport import DEFAULT_TIMEOUT


def default_state_dir(env: Mapping[str, str]) -> Path:
    """Where the outbox lives: explicit, else the runner's temp (kept for the job), else the user cache."""
    if env.get("CRCR_STATE_DIR"):
        return Path(env["CRCR_STATE_DIR"])
    if env.get("RUNNER_TEMP"):
        return Path(env["RUNNER_TEMP"]) / "crcr"
    base = env.get("XDG_CACHE_HOME") or (Path(env["HOME"]) / ".cache" if env.get("HOME") else None)
    if base is None:
        raise ConfigError("no state dir: set CRCR_STATE_DIR")
    return Path(base) / "crcr"


def client_from_env(
    url: Optional[str] = None,
    token: Optional[str] = None,
    repo: Optional[str] = None,
    state_dir: Optional[Path] = None,
    env: Optional[Mapping[str, str]] = None,
    timeout: float = DEFAULT_TIMEOUT,
    rate_limit: Optional[int] = None,
    policy: Optional[Retry] = None,
) -> CallbackClient:
    env = os.environ if env is None else env
    url = url or env.get("CRCR_CALLBACK_URL")
    if not url:
        raise ConfigError("no relay URL: pass --url or set CRCR_CALLBACK_URL")
    repo = repo or env.get("GITHUB_REPOSITORY")
    if not repo:
        raise ConfigError("no repository: pass --repo or set GITHUB_REPOSITORY")
    state = Path(state_dir) if state_dir else default_state_dir(env)
    budget = RateBudget(**({"limit": rate_limit} if rate_limit else {}), path=state / "budget.json")
    return CallbackClient(
        url,
        provider_from_env(env, token),
        repo,
        outbox=Outbox(state / "outbox"),
        budget=budget,
        timeout=timeout,
        policy=policy,
    )


def report_in_progress(client: CallbackClient, client_payload: dict, ctx: RunContext) -> Outcome:
    return client.post(in_progress_body(client_payload, ctx))


def report_completed(
    client: CallbackClient,
    client_payload: dict,
    ctx: RunContext,
    conclusion: str,
    test_results: Any = None,
    artifact_url: Optional[str] = None,
    failed_tests_detail: Any = None,  # any JSON value: kept as the relay keeps it or left out
    triage_verdict: Any = None,
) -> Outcome:
    return client.post(
        completed_body(
            client_payload,
            ctx,
            conclusion,
            test_results=test_results,
            artifact_url=artifact_url,
            failed_tests_detail=failed_tests_detail,
            triage_verdict=triage_verdict,
        )
    )


def self_report(
    client: CallbackClient,
    kind: str,
    upstream_sha: str,
    ctx: RunContext,
    conclusion: str,
    test_results: Any = None,
    started_at: Optional[str] = None,
    failed_tests_detail: Any = None,  # any JSON value: kept as the relay keeps it or left out
    triage_verdict: Any = None,
) -> Outcome:
    """Nightly/periodic (§2.7): a single completed callback keyed by the tested SHA."""
    try:
        sha = check_sha(upstream_sha)
    except ValueError:
        raise ConfigError(f"--sha {upstream_sha!r} is not a 40-hex commit SHA") from None
    return client.post(
        nightly_body(
            kind,
            sha,
            ctx,
            conclusion,
            test_results=test_results,
            started_at=started_at,
            failed_tests_detail=failed_tests_detail,
            triage_verdict=triage_verdict,
        )
    )
