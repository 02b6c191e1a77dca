"""The HUD page's first screen: which dispatch this is, what broke and whose fault it is,
then the compact grid (one line per upstream commit or dispatch, one column per job, one
small square per job).

A square says its kind twice, by colour and by an icon with a word for screen readers and
for the colour-blind; everything else about the job (counts, times, core exactness,
selection, notes, verdict, failed tests) is in its title (hover) and in a hidden block the
page's script shows in the details panel on click. Rows are what HUD stores
(crcr/relay/hud.py's `hud_record`), optionally joined with what the warehouse knows of the
same leg (`backend_sha`, `bisection`, `leg_seconds`). Every payload string is escaped here.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Optional

from crcr.relay.triage_view import failed_test_lines, verdict_lines, verdict_of

UPSTREAM = "pytorch/pytorch"
SELF_REPORTS = ("nightly", "periodic")
SHA40 = re.compile(r"[0-9a-fA-F]{40}")
REPO_RE = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
LINKABLE = ("https://", "http://", "file://")
# nightlyMatrix.ts: on equal attempts the worse outcome wins a cell
WORSE = {"success": 0, "skipped": 1, "cancelled": 2, "timed_out": 3, "failure": 4}


MISSING = "missing in HUD"  # the placeholder status of a job the relay has and HUD lacks (hud.py)


@dataclass(frozen=True)
class Kind:
    key: str
    icon: str
    word: str
    rank: int  # red first: the lowest rank sorts first


KINDS = {
    k.key: k
    for k in (
        Kind("failure", "✗", "failure", 0),
        Kind("infra", "!", "infra", 1),  # timed out, stale in HUD, missing in HUD
        Kind("cancelled", "⊘", "cancelled", 2),
        Kind("progress", "…", "in progress", 3),
        Kind("new", "★", "new in scope", 4),
        Kind("neutral", "○", "neutral", 5),
        Kind("success", "✓", "success", 6),
    )
}
RED = ("failure", "infra")  # the kinds the first screen's red lines tell


def kind_of(row: dict) -> Kind:
    conclusion = row.get("conclusion")
    if row.get("stale") or conclusion in ("timed_out", "startup_failure", "action_required"):
        return KINDS["infra"]
    if conclusion == "failure":
        return KINDS["failure"]
    if conclusion == "cancelled":
        return KINDS["cancelled"]
    if conclusion in ("neutral", "skipped"):
        return KINDS["neutral"]
    if conclusion == "success":
        new = "new in scope" in str(row.get("note") or "") or (row.get("tests_failed") or 0) > 0
        return KINDS["new" if new else "success"]
    return KINDS["progress"]


# ------------------------------------------------------------------ values


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def upstream_of(row: dict) -> str:
    repo = str(row.get("upstream_repo") or UPSTREAM)
    return repo if REPO_RE.fullmatch(repo) else UPSTREAM


def commit_link(sha, repo: str = UPSTREAM, n: int = 10) -> str:
    """A commit as its short SHA, linked upstream when it is a real 40-hex SHA."""
    sha = str(sha or "")
    if not SHA40.fullmatch(sha):
        return f"<code>{esc(sha[:n] or '?')}</code>"
    return f'<a class="sha" href="https://github.com/{repo}/commit/{sha}"><code>{sha[:n]}</code></a>'


def pr_link(number, repo: str = UPSTREAM) -> str:
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        return ""
    return f'<a class="pr" href="https://github.com/{repo}/pull/{number}">#{number}</a>'


def seconds(value) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "?"
    return f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


def culprit_of(bisection) -> Optional[tuple[str, Optional[int], str]]:
    """(sha, PR, subject) of a bisection's first bad commit: the handler's bisection names
    it as {sha, subject, pr} (crcr/upstream/bisect.py), the simulated history as a SHA."""
    culprit = bisection.get("first_bad") if isinstance(bisection, dict) else None
    if isinstance(culprit, dict) and culprit.get("sha"):
        return str(culprit["sha"]), culprit.get("pr"), str(culprit.get("subject") or "")
    if isinstance(culprit, str) and culprit:
        return culprit, None, ""
    return None


def first_bad(row: dict) -> Optional[tuple[str, Optional[int], str]]:
    """(sha, PR, subject) of the leg's first bad upstream commit: the bisection's culprit
    when the warehouse has it, else the verdict's suspected upstream change."""
    found = culprit_of(row.get("bisection"))
    if found:
        return found
    suspect = (verdict_of(row) or {}).get("suspected_upstream")
    if isinstance(suspect, dict) and (suspect.get("commit") or suspect.get("pr")):
        return str(suspect.get("commit") or ""), suspect.get("pr"), str(suspect.get("reason") or "")
    return None


def first_bad_html(found: Optional[tuple[str, Optional[int], str]], repo: str = UPSTREAM) -> str:
    if not found:
        return ""
    sha, pr, _ = found
    parts = [commit_link(sha, repo) if sha else "", pr_link(pr, repo)]
    return " ".join(p for p in parts if p)


def when(started) -> str:
    """An ISO stamp (HUD's started_at) or epoch seconds, as 'YYYY-MM-DD HH:MM UTC'."""
    if isinstance(started, (int, float)) and not isinstance(started, bool):
        return datetime.fromtimestamp(started, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = str(started or "")
    return text[:16].replace("T", " ") + " UTC" if len(text) >= 16 else text


# ------------------------------------------------------------------ lines and cells


def label_of(row: dict) -> str:
    """A grid line: a nightly/periodic line is one upstream commit when `pytorch_head_sha`
    is a real 40-hex SHA, else one `run_id` (HUD's nightlyMatrix.ts): every job of one run
    reporting the tested SHA makes one line, not one per job. A PR is one line."""
    if row.get("event_type") in SELF_REPORTS:
        sha = str(row.get("pytorch_head_sha") or "")
        what = sha[:12] if SHA40.fullmatch(sha) else f"run {row.get('run_id')}"
        return f"{row['event_type']} {what}"
    sim = " (simulated)" if row.get("simulated") else ""
    if row.get("pr_number"):
        return f"PR #{row['pr_number']}{sim}"
    return f"{row.get('event_type')} {str(row.get('pytorch_head_sha') or row.get('delivery_id'))[:12]}{sim}"


def _counts(row: dict) -> str:
    if row.get("tests_total") is None:
        return ""
    failed = row.get("tests_failed") or 0
    return (
        f"{row.get('tests_passed') or 0}/{row['tests_total']} passed"
        + (f", {failed} failed" if failed else "")
        + _capability_skips(row)
    )


def _capability_skips(row: dict) -> str:
    """The capability bucket (schema 6): skips the device's capability answers caused, apart
    from config skips."""
    n = row.get("tests_capability_skipped") or 0
    return f", {n} skipped: capability unsupported" if n else ""


def _times(row: dict) -> list[str]:
    """Both durations, each saying what it measures (they differ by set-up and triage)."""
    out = []
    if row.get("leg_seconds") is not None:
        out.append(f"test run {seconds(row['leg_seconds'])}")
    if row.get("execution_time") is not None:
        out.append(f"job {seconds(row['execution_time'])} (set-up and triage included)")
    if row.get("queue_time") is not None:
        out.append(f"queued {seconds(row['queue_time'])}")
    return out


def summary_of(row: dict) -> str:
    """One line (the square's title)."""
    kind = kind_of(row)
    bits = [str(row.get("job_name")), kind.word, _counts(row)] + _times(row)
    if row.get("stale"):
        bits.append(f"STALE: relay has {row['stale']}")
    if row.get("status") == MISSING:
        bits.append(MISSING)
    return " · ".join(b for b in bits if b)


def details_of(row: dict) -> str:
    """The block the details panel shows on click: everything the cell used to hold."""
    kind = kind_of(row)
    repo = upstream_of(row)
    lines = [f"<b>{esc(row.get('job_name'))}</b>: {esc(kind.word)}"]
    if row.get("stale"):
        lines.append(f"STALE: relay has {esc(row['stale'])}, HUD never confirmed")
    if row.get("status") == MISSING:
        lines.append(f"{MISSING}: no row at all (its in_progress never reached HUD)")
    attempt = row.get("run_attempt")
    if isinstance(attempt, int) and attempt > 1:
        lines.append(f"attempt {attempt}")
    if _counts(row):
        lines.append(esc(_counts(row)))
    lines += [esc(t) for t in _times(row)]
    sha = row.get("pytorch_head_sha")
    if sha:
        lines.append("upstream " + commit_link(sha, repo))
    if row.get("backend_sha"):
        lines.append(f"backend <code>{esc(str(row['backend_sha'])[:12])}</code>")
    bad = first_bad(row)
    if bad:
        lines.append("first bad upstream commit " + first_bad_html(bad, repo) + f" {esc(bad[2])}")
    lines += verdict_lines(verdict_of(row)) + failed_test_lines(row)
    note = row.get("note")
    if note:
        lines += [f'<small class="note">{esc(part)}</small>' for part in str(note).split("; ")]
    links = [(row.get("url"), "the job"), (row.get("artifact_url"), "its results JSON")]
    # payload strings: only a web or file address becomes a link (never javascript:)
    lines += [
        f'<a href="{esc(url)}">{word}</a>' for url, word in links if str(url or "").startswith(LINKABLE)
    ]
    return "<br>".join(lines)


def _square(row: dict, n: int) -> str:
    kind = kind_of(row)
    return (
        f'<td class="cell"><button type="button" class="sq {kind.key}" data-details="d{n}" '
        f'title="{esc(summary_of(row))}" aria-label="{esc(row.get("job_name"))}: {esc(kind.word)}">'
        f"{kind.icon}</button>"
        f'<div class="cell-details" id="d{n}" hidden>{details_of(row)}</div></td>'
    )


def _attempt(row: dict) -> int:
    a = row.get("run_attempt")
    return a if isinstance(a, int) and not isinstance(a, bool) else 1


def cells(rows: list[dict]) -> dict[str, dict[str, dict]]:
    """line label -> job -> the row shown: the newest attempt wins a cell, as on
    hud.pytorch.org (on a self-report's equal attempts, the worse outcome)."""
    grid: dict[str, dict[str, dict]] = {}
    worse = lambda r: WORSE.get(r.get("conclusion"), 0) if r.get("event_type") in SELF_REPORTS else 0  # noqa: E731
    for r in sorted(rows, key=lambda r: (_attempt(r), worse(r), str(r.get("started_at") or ""))):
        grid.setdefault(label_of(r), {})[str(r["job_name"])] = r
    return grid


def grid_table(grid: dict[str, dict[str, dict]]) -> str:
    """Lines newest first; jobs red first (a job's worst square), then by name."""
    jobs = sorted(
        {j for line in grid.values() for j in line},
        key=lambda j: (min(kind_of(line[j]).rank for line in grid.values() if j in line), j),
    )
    newest = lambda item: max(str(r.get("started_at") or "") for r in item[1].values())  # noqa: E731
    lines = sorted(sorted(grid.items()), key=newest, reverse=True)
    head = "".join(f"<th>{esc(j)}</th>" for j in jobs)
    body, n = [], 0
    for label, line in lines:
        tds = []
        for j in jobs:
            n += 1
            tds.append(_square(line[j], n) if j in line else '<td class="cell"></td>')
        body.append(f"<tr><th>{esc(label)}</th>" + "".join(tds) + "</tr>")
    return f'<div class="grid-wrap"><table class="grid"><tr><th>upstream</th>{head}</tr>{"".join(body)}</table></div>'


def legend() -> str:
    return (
        '<p class="legend">'
        + " ".join(
            f'<span class="sq {k.key}" aria-hidden="true">{k.icon}</span> {esc(k.word)}'
            for k in KINDS.values()
        )
        + " · hover a square for its summary, click it for details</p>"
    )


# ------------------------------------------------------------------ the story


def _newest_start(item: tuple[str, dict[str, dict]]) -> str:
    return max(str(r.get("started_at") or "") for r in item[1].values())


def newest_line(grid: dict[str, dict[str, dict]]) -> tuple[str, dict[str, dict]]:
    """The newest dispatch's line (by its newest job start)."""
    return max(grid.items(), key=_newest_start)


def _is_red(row: dict) -> bool:
    return kind_of(row).key in RED


def newest_red_line(grid: dict[str, dict[str, dict]]) -> Optional[tuple[str, dict[str, dict]]]:
    """The newest line with a red leg (None: every line green): what the red lines tell."""
    red = [item for item in grid.items() if any(_is_red(r) for r in item[1].values())]
    return max(red, key=_newest_start) if red else None


def header(line: dict[str, dict], css: str = "dispatch") -> str:
    """The dispatch: event, PR or push, upstream SHA, time, backend commit."""
    rows = list(line.values())
    first = rows[0]
    repo = upstream_of(first)
    event = str(first.get("event_type") or "dispatch")
    what = pr_link(first.get("pr_number"), repo) or esc("push" if event == "push" else event)
    backend = next((str(r["backend_sha"]) for r in rows if r.get("backend_sha")), "")
    started = min((r.get("started_at") for r in rows if r.get("started_at")), default=None, key=str)
    bits = [
        f"<b>{esc(event)}</b> {what}",
        "upstream " + commit_link(first.get("pytorch_head_sha") or first.get("delivery_id"), repo),
        esc(when(started)) if started else "",
        f"backend <code>{esc(backend[:12])}</code>" if backend else "backend commit not recorded",
        '<span class="sim">SIMULATED</span>' if first.get("simulated") else "",
        f"{len(rows)} jobs, "
        + ", ".join(
            f"{sum(1 for r in rows if kind_of(r) is k)} {k.word}"
            for k in KINDS.values()
            if any(kind_of(r) is k for r in rows)
        ),
    ]
    return f'<p class="{css}">' + " · ".join(b for b in bits if b) + "</p>"


MOVED = (
    "backend moved",
    "only upstream moved",
    "only the upstream core moved",
    "nothing moved",
    "no green result",
)  # crcr/upstream/attribution.py


def _moved(row: dict) -> str:
    """The attribution's 'what moved since the last green' from the handler's note, if any."""
    parts = str(row.get("note") or "").split("; ")
    return next((p for p in parts if p.startswith(MOVED)), "")


def red_lines(line: dict[str, dict]) -> str:
    """One line per red leg of the dispatch: what broke and whose fault it is."""
    out = []
    for job, row in sorted(line.items()):
        kind = kind_of(row)
        if kind.key not in RED:
            continue
        repo = upstream_of(row)
        verdict = verdict_of(row)
        bits = [
            f'<span class="sq {kind.key}" aria-hidden="true">{kind.icon}</span> <b>{esc(job)}</b> {esc(kind.word)}'
        ]
        if verdict:
            bits.append(
                f'<span class="verdict {esc(verdict["category"])}">{esc(verdict["category"])}</span> '
                f"{esc(verdict['confidence'])} confidence (advisory)"
            )
        else:
            bits.append("no triage verdict")
        bad = first_bad(row)
        moved = _moved(row)
        if bad:
            bits.append("first bad commit " + first_bad_html(bad, repo))
        else:  # no upstream culprit: what the attribution says moved (the backend, say)
            bits.append(esc(moved) if moved else "first bad commit unknown")
        if row.get("tests_failed") is not None:
            bits.append(f"{row['tests_failed']} failing test{'s' if row['tests_failed'] != 1 else ''}")
        if row.get("tests_capability_skipped"):
            bits.append(_capability_skips(row).removeprefix(", "))
        out.append(f'<li class="red-line" data-job="{esc(job)}">' + " · ".join(bits) + "</li>")
    return '<ul class="red-lines">' + "".join(out) + "</ul>"


def story(grid: dict[str, dict[str, dict]]) -> str:
    """The newest dispatch, and the red lines of the newest dispatch that has any: when that
    is an older one (the newest all green), its own header says which dispatch they are from."""
    newest, line = newest_line(grid)
    red = newest_red_line(grid)
    if red is None:
        return header(line) + f'<p class="all-green">no red leg in the {len(grid)} dispatch(es) shown</p>'
    if red[0] == newest:
        return header(line) + red_lines(line)
    return (
        header(line)
        + '<p class="all-green">no red leg in this dispatch; the newest red legs are from an older one:</p>'
        + header(red[1], "dispatch red-dispatch")
        + red_lines(red[1])
    )


def first_screen(rows: list[dict]) -> str:
    """Header, red lines, legend, grid, details panel; a page with no job rows says so."""
    if not rows:
        return '<p class="empty">no job reported yet</p>'
    grid = cells(rows)
    return (
        '<section id="story">'
        + story(grid)
        + "</section>"
        + legend()
        + grid_table(grid)
        + '<aside id="details" hidden><button type="button" class="close" aria-label="close">×</button>'
        + '<div class="body"></div></aside>'
    )
