"""`crcr-callback`: report a job's status to the relay from any CI.

    crcr-callback in-progress --job-name test-ops
    crcr-callback completed   --job-name test-ops --conclusion success --junit out.xml
    crcr-callback nightly     --sha <pytorch sha> --kind nightly --conclusion success
    crcr-callback flush       # replay what a crashed run left in the outbox

Every command first replays the outbox. Exit codes: 0 recorded (or ignored
by the relay), 2 bad input, 3 rejected by the relay, 4 still pending.
"recorded, HUD unconfirmed" (the relay has it, HUD may not) exits 0 too,
with a warning (an Actions annotation inside GitHub Actions).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from crcr.callback_client.api import (
    client_from_env,
    default_state_dir,
    report_completed,
    report_in_progress,
    self_report,
)
from crcr.callback_client.body import RunContext
from crcr.callback_client.errors import (
    KNOWN,
    CallbackRejected,
    ConfigError,
    DeliveryPending,
    PayloadError,
)
from crcr.callback_client.failed_tests import from_inline
from crcr.callback_client.junit import read_report
from crcr.callback_client.models import ClientPayload, parse
from crcr.callback_client.retry import default_policy
from testing.base.cliargs import Parser, non_negative_int, positive_float, positive_int, user_path
from testing.base.command import command

EXIT_BAD_INPUT, EXIT_REJECTED, EXIT_PENDING = 2, 3, 4


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="crcr-callback", description=__doc__.split("\n\n")[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", help="relay base or callback URL (env CRCR_CALLBACK_URL)")
    common.add_argument(
        "--token-env",
        default=None,
        help="name of an env var holding a ready OIDC token (else minted from Actions)",
    )
    common.add_argument("--repo", help="downstream owner/repo (env GITHUB_REPOSITORY)")
    common.add_argument("--state-dir", type=user_path, help="outbox + rate budget dir (env CRCR_STATE_DIR)")
    common.add_argument("--timeout", type=positive_float, default=10.0, help="seconds per HTTP attempt")
    common.add_argument("--rate-limit", type=positive_int, help="callbacks per minute per repo (default 90)")
    common.add_argument(
        "--max-retries", type=non_negative_int, default=6, help="retries on 429/5xx/network errors"
    )
    common.add_argument(
        "--backoff", type=positive_float, default=1.0, help="first retry delay in seconds (doubles)"
    )
    common.add_argument("-v", "--verbose", action="store_true")
    job = argparse.ArgumentParser(add_help=False)
    job.add_argument("--job-name", help="unique per matrix leg (default $GITHUB_JOB)")
    job.add_argument("--check-run-id", help="job.check_run_id (default <run_id>-<run_attempt>)")
    job.add_argument("--workflow", help="override $GITHUB_WORKFLOW")
    job.add_argument("--run-id", help="override $GITHUB_RUN_ID")
    job.add_argument("--run-attempt", help="override $GITHUB_RUN_ATTEMPT")
    results = argparse.ArgumentParser(add_help=False)
    results.add_argument("--conclusion", required=True, help="success|failure|cancelled|timed_out|...")
    results.add_argument(
        "--junit", type=user_path, action="append", default=[], help="JUnit XML for test counts"
    )
    results.add_argument("--test-results", help='JSON {"passed":..,"failed":..,"skipped":..}')
    results.add_argument(
        "--failed-tests-detail-file",
        type=Path,
        help="JSON array of {name, classname, message, stacktrace, duration} (env FAILED_TESTS_DETAIL "
        "holds it inline, as the relay's action passes it); default: from --junit",
    )
    results.add_argument(
        "--triage-verdict-file",
        type=Path,
        help="triage verdict JSON object, schema_version 1 (env TRIAGE_VERDICT holds it inline)",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("in-progress", "completed"):
        s = sub.add_parser(name, parents=[common, job] + ([results] if name == "completed" else []))
        s.add_argument(
            "--payload-file",
            type=user_path,
            help="client_payload or event JSON (env CLIENT_PAYLOAD, GITHUB_EVENT_PATH)",
        )
        if name == "completed":
            s.add_argument("--artifact-url")
    n = sub.add_parser("nightly", parents=[common, job, results], help="self-report (no dispatch)")
    n.add_argument("--sha", required=True, help="the pytorch commit tested")
    n.add_argument("--kind", choices=("nightly", "periodic"), default="nightly")
    n.add_argument(
        "--started-at", help="when the job started, ISO-8601 UTC (env CRCR_STARTED_AT; default: now)"
    )
    sub.add_parser("flush", parents=[common])
    return p


def load_client_payload(path: Optional[Path], env) -> dict:
    if path:
        source, text = str(path), _read(path)
    elif env.get("CLIENT_PAYLOAD") and env["CLIENT_PAYLOAD"] != "null":
        source, text = "CLIENT_PAYLOAD", env["CLIENT_PAYLOAD"]
    elif env.get("GITHUB_EVENT_PATH"):
        source, text = env["GITHUB_EVENT_PATH"], _read(Path(env["GITHUB_EVENT_PATH"]))
    else:
        raise ConfigError("no client_payload: pass --payload-file or run from a repository_dispatch job")
    try:
        raw = json.loads(text)
    except ValueError:
        raise PayloadError(f"{source}: not JSON") from None
    raw = raw.get("client_payload", raw) if isinstance(raw, dict) else raw
    parse(ClientPayload, raw, f"{source}: client_payload")
    return raw  # echoed verbatim


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as err:
        raise ConfigError(f"{path}: {err.strerror}") from None


def _context(args, env) -> RunContext:
    merged = dict(env)
    for key, value in (
        ("GITHUB_WORKFLOW", args.workflow),
        ("GITHUB_RUN_ID", args.run_id),
        ("GITHUB_RUN_ATTEMPT", args.run_attempt),
    ):
        if value:
            merged[key] = value
    ctx = RunContext.from_env(merged, args.job_name, args.check_run_id)
    if not ctx.job_name:
        raise ConfigError("no job name: pass --job-name (unique per matrix leg) or set GITHUB_JOB")
    return ctx


def _warn_unconfirmed(outcome, what: str, env) -> None:
    """Loud, not fatal: the relay refuses a resend, so only a human can check the HUD row."""
    if outcome.hud_confirmed:
        return
    msg = (
        f"{what}: recorded by the relay, HUD unconfirmed (an earlier attempt hit a relay 5xx or a timeout); "
        "the HUD row may stay stale"
    )
    print(
        f"::warning::{msg}" if env.get("GITHUB_ACTIONS") == "true" else f"crcr-callback: warning: {msg}",
        file=sys.stderr,
    )


def _warn(msg: str) -> None:
    print(f"crcr-callback: warning: {msg}", file=sys.stderr)


def _results(args, report) -> Optional[dict]:
    if args.test_results:
        try:
            results = json.loads(args.test_results)
        except (ValueError, RecursionError):
            _warn("--test-results is not JSON; sent without it")
            return None
        if isinstance(results, dict):
            # run-leg --results-out notes its own callbacks, conclusion, core, failed tests and verdict there
            for key in (
                "callback",
                "conclusion",
                "exactness",
                "failed_tests_detail",
                "triage_verdict",
                "bisection",
            ):
                results.pop(key, None)
        return results  # any other shape is left out, with a warning, by the body builder
    return report.counts.as_results() if report and report.cases else None


def _junit_report(args):
    """The JUnit files read once (counts and failed-tests-detail both come from it);
    an unreadable file is a warning, never a lost callback."""
    present = [p for p in args.junit if p.exists()]
    for p in args.junit:
        if not p.exists():
            _warn(f"{p}: no such JUnit file; sent without its counts")
    report = read_report(present) if present else None
    for line in (report.problems + report.notes) if report else ():
        _warn(f"{line}; sent without it")
    return report


def _json_input(path: Optional[Path], env, var: str):
    """(value, where) from a file, else the action's inline env var; (None, '') when neither."""
    if path:
        where = str(path)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as err:  # a missing file never costs the callback
            _warn(f"{path}: {err.strerror}; sent without it")
            return None, where
    else:
        text, where = (env.get(var) or "").strip(), var
    if not text.strip():
        return None, where
    try:
        return json.loads(text), where
    except (ValueError, RecursionError) as err:  # nesting past json's depth is RecursionError
        return ValueError(f"{where} is not valid JSON: {type(err).__name__}: {err}"), where


def _failed_tests(args, env, report) -> Optional[list]:
    """Any value, never a lost callback: the relay's action fails its step on a value that is
    not a JSON array; we leave it out with one warning line and send the callback."""
    value, where = _json_input(args.failed_tests_detail_file, env, "FAILED_TESTS_DETAIL")
    if isinstance(value, ValueError):
        _warn(f"{value}; sent without it")
        return None
    detail = from_inline(value, where) if value is not None else (report and report.failed_tests_detail())
    for note in detail.notes if detail else ():
        _warn(note)
    return detail.as_json() if detail and detail.entries else None


def _verdict(args, env):
    """Text that is not JSON is ignored with a warning (the relay's action does the same); any
    JSON value goes to the body builder, which sends what the relay keeps of it or warns once."""
    value, where = _json_input(args.triage_verdict_file, env, "TRIAGE_VERDICT")
    if isinstance(value, ValueError):
        _warn(f"ignoring invalid {where}: {value}")
        return None
    return value


def check_outbox(state: Path) -> None:
    """flush only replays: a state dir without an outbox (a mistyped --state-dir, say) is one
    line naming it; the client would have created it (its budget file) and replayed nothing."""
    if not (state / "outbox").is_dir():
        raise ConfigError(f"no outbox under {state}: nothing to replay (check --state-dir / $CRCR_STATE_DIR)")


def run(argv: Optional[Sequence[str]] = None, env=None) -> int:
    env = os.environ if env is None else env
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="crcr: %(message)s", stream=sys.stderr
    )
    token = env.get(args.token_env) if args.token_env else None
    if args.token_env and not token:
        raise ConfigError(f"--token-env {args.token_env}: variable is empty")
    if args.max_retries < 0 or args.backoff < 0:
        raise ConfigError("--max-retries and --backoff must be >= 0")
    policy = default_policy(total=args.max_retries, backoff=args.backoff, jitter=args.backoff)
    if args.command == "flush":
        check_outbox(args.state_dir or default_state_dir(env))
    client = client_from_env(
        args.url, token, args.repo, args.state_dir, env, args.timeout, args.rate_limit, policy
    )
    try:
        for o in client.flush():
            print(f"replayed: {o.label} ({o.attempts} attempts)")
            _warn_unconfirmed(o, "a replayed callback", env)
        if args.command == "flush":
            return 0
        ctx = _context(args, env)
        if args.command in ("nightly", "completed"):
            report = _junit_report(args)
            extra = {
                "failed_tests_detail": _failed_tests(args, env, report),
                "triage_verdict": _verdict(args, env),
            }
        if args.command == "nightly":
            outcome = self_report(
                client,
                args.kind,
                args.sha,
                ctx,
                args.conclusion,
                _results(args, report),
                args.started_at or env.get("CRCR_STARTED_AT") or None,
                **extra,
            )
        elif args.command == "in-progress":
            outcome = report_in_progress(client, load_client_payload(args.payload_file, env), ctx)
        else:
            outcome = report_completed(
                client,
                load_client_payload(args.payload_file, env),
                ctx,
                args.conclusion,
                _results(args, report),
                args.artifact_url,
                **extra,
            )
        print(
            f"{args.command} {ctx.job_name}: {outcome.label} (HTTP {outcome.http_status}, {outcome.attempts} attempts)"
        )
        _warn_unconfirmed(outcome, f"{args.command} {ctx.job_name}", env)
        return 0
    finally:
        client.close()


@command(
    "crcr-callback",
    {CallbackRejected: EXIT_REJECTED, DeliveryPending: EXIT_PENDING, KNOWN: EXIT_BAD_INPUT},
    prefix="crcr-callback: ",
)
def main(argv: Optional[Sequence[str]] = None) -> int:
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
