"""The HUD page's warehouse panels: history, charts, flakes, promotions, L3, triage.

A panel is a title, one sentence on what it means, and a function from the warehouse to an
HTML fragment; `PANELS` is the page's order. Adding one (e.g. a per-model panel) is one
function and one `Panel(...)` appended to PANELS. Charts are plotly figures; plotly's own
JavaScript is inlined once in the page head (`plotly_js`), so the page needs no network.
Each chart's container says how many points it should hold (`data-points`), which the
browser test compares with what plotly drew. Everything from the warehouse is escaped.
"""

from __future__ import annotations

import functools
import html
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping, Optional

from crcr.relay.grid import commit_link, culprit_of, first_bad_html, pr_link
from crcr.warehouse import l3, queries
from crcr.warehouse.backends import Backend

SIM = '<span class="sim">SIMULATED</span>'


@dataclass(frozen=True)
class PageContext:
    now: float = field(default_factory=time.time)
    workspace: Optional[Path] = None  # configs for the promotion diff
    k: int = 3  # promotion: passed in each of the last k runs
    flaky_days: int = 14
    levels: Mapping = field(default_factory=dict)  # repo -> its LevelHistory (tenure, demotions)
    # the page reads legs started in the last `horizon_days` only: its cost stays that of a
    # quarter, not of every leg ever stored (the command line's questions are unbounded)
    horizon_days: int = 90
    answers: dict = field(default_factory=dict, compare=False)  # one page's shared answers

    @property
    def since(self) -> float:
        return self.now - self.horizon_days * queries.DAY

    def once(self, key: str, ask: Callable[[], object]):
        """`ask()` the first time a page needs `key`; the same answer for every panel after."""
        if key not in self.answers:
            self.answers[key] = ask()
        return self.answers[key]


@dataclass(frozen=True)
class Panel:
    key: str
    title: str
    meaning: str
    render: Callable[[Backend, PageContext], str]


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def when(epoch: Optional[int]) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%d %H:%M") if epoch else "never"


FOLD = 20  # a longer table shows its first rows and folds the rest, with a count


def table(head: list[str], rows: list[list[str]], empty: str) -> str:
    """Cells are HTML already (escaped by the caller)."""
    if not rows:
        return f'<p class="empty">{esc(empty)}</p>'
    th = "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"
    body = ["<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows]
    # each table scrolls inside itself: a narrow window never scrolls the whole page sideways
    shown = f'<div class="table-wrap"><table>{th}{"".join(body[:FOLD])}</table></div>'
    if len(body) <= FOLD:
        return shown
    rest = f'<div class="table-wrap"><table>{th}{"".join(body[FOLD:])}</table></div>'
    return (
        shown
        + f'<details class="fold"><summary>{len(body) - FOLD} more rows ({len(body)} in all)</summary>{rest}</details>'
    )


def bisection_html(b: dict) -> str:
    """A bisection (crcr/upstream/bisect.py's JSON) as its first bad commit and PR, or its
    status and the range it narrowed to."""
    found = culprit_of(b)
    if found:
        return first_bad_html(found)
    status = str(b.get("status") or "no culprit")
    good, bad = b.get("good") or b.get("last_good"), b.get("bad")
    if good and bad:
        return f"{esc(status)}: {commit_link(good)}..{commit_link(bad)}"
    return esc(status)


def chart(fig, div_id: str, points: int) -> str:
    inner = fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, default_height="360px")
    return f'<div class="chart" data-chart="{div_id}" data-points="{points}">{inner}</div>'


@functools.cache
def plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


# ------------------------------------------------------------------ panels


def recent_dispatches(wh: Backend, ctx: PageContext) -> list[queries.Dispatch]:
    return ctx.once("dispatches", lambda: queries.dispatches(wh, 30, since=ctx.since))


def recent_legs(wh: Backend, ctx: PageContext) -> list[queries.LegRow]:
    """The jobs of the grid's dispatches (crcr/relay/hud_rows.py)."""
    return ctx.once("legs", lambda: queries.recent_legs(wh, 30, ctx.since))


def dispatch_history(wh: Backend, ctx: PageContext) -> str:
    rows = []
    for d in recent_dispatches(wh, ctx):
        verdicts = "<br>".join(
            esc(f"{v['job']}: {v.get('category')} ({v.get('confidence')})") for v in d.verdicts
        )
        first_bad = "<br>".join(f"{esc(b['job'])}: {bisection_html(b)}" for b in d.bisections)
        rows.append(
            [
                esc(when(d.started_at)) + (f" {SIM}" if d.simulated else ""),
                esc(d.event_type) + (f" {pr_link(d.pr_number)}" if d.pr_number else ""),
                commit_link(d.upstream_sha),
                f"<code>{esc(d.backend_sha[:12])}</code>",
                esc(f"{d.legs_green}/{d.legs}"),
                esc(f"{d.passed} passed, {d.failed} failed"),
                esc(f"{d.incomplete} leg(s) results incomplete") if d.incomplete else "",
                verdicts,
                first_bad,
            ]
        )
    return table(
        [
            "started (UTC)",
            "event",
            "upstream",
            "backend",
            "legs green",
            "tests",
            "results",
            "triage verdict",
            "bisection",
        ],
        rows,
        "no dispatch recorded yet",
    )


def pass_rate_chart(wh: Backend, ctx: PageContext) -> str:
    import plotly.graph_objects as go

    points = [p for p in queries.pass_rate_over_commits(wh, 40, ctx.since) if p.rate is not None]
    fig = go.Figure()
    series: dict[str, list] = {}
    for p in points:
        series.setdefault(p.series + (" (simulated)" if p.simulated else ""), []).append(p)
    for name, pts in sorted(series.items()):
        fig.add_trace(
            go.Scatter(x=[p.x for p in pts], y=[p.rate for p in pts], mode="lines+markers", name=name)
        )
    order = list(dict.fromkeys(p.x for p in sorted(points, key=lambda p: p.at)))  # commits by first run
    fig.update_layout(
        yaxis={"title": "test pass rate", "range": [0, 1.05]},
        xaxis={"title": "upstream commit", "categoryorder": "array", "categoryarray": order},
    )
    return (
        chart(fig, "chart-pass-rate", len(points)) if points else '<p class="empty">no test results yet</p>'
    )


def heatmap_chart(wh: Backend, ctx: PageContext) -> str:
    import plotly.graph_objects as go

    head, cells = queries.heatmap_latest(wh, ctx.since)
    cells = [c for c in cells if c.rate is not None]
    if not cells:
        return '<p class="empty">no op tests in any run yet</p>'
    ops = sorted({c.op for c in cells})
    dtypes = sorted({c.dtype for c in cells})
    grid = {(c.op, c.dtype): c for c in cells}
    z = [[grid[(o, d)].rate if (o, d) in grid else None for d in dtypes] for o in ops]
    text = [
        [
            f"{grid[(o, d)].passed}/{grid[(o, d)].passed + grid[(o, d)].failed}" if (o, d) in grid else ""
            for d in dtypes
        ]
        for o in ops
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=dtypes,
            y=ops,
            text=text,
            zmin=0,
            zmax=1,
            colorscale="RdYlGn",
            hovertemplate="%{y} %{x}: %{text}<extra></extra>",
        )
    )
    fig.update_layout(height=max(300, 22 * len(ops) + 120))
    label = ""
    if head:
        label = (
            f"<p>{esc(when(head.started_at))}, upstream <code>{esc(head.upstream_sha[:10])}</code>"
            + (f" {SIM}" if head.simulated else "")
            + "</p>"
        )
    return label + chart(fig, "chart-heatmap", len(cells))


def flaky_table(wh: Backend, ctx: PageContext) -> str:
    rows = []
    for f in queries.flaky(wh, ctx.now, ctx.flaky_days):
        evidence = "<br>".join(
            esc(f"{when(t)} {u[:10]}/{b[:10]} {job}: {o}") for t, u, b, job, o in f.evidence[-6:]
        )
        rows.append(
            [
                f"<code>{esc(f.test_id)}</code>" + (f" {SIM}" if f.simulated else ""),
                esc(f.reason),
                esc(f"{f.flip_rate:.0%} over {f.runs} runs"),
                evidence,
            ]
        )
    return table(
        ["test", "why", "flip rate", "evidence (latest 6: time upstream/backend job: outcome)"],
        rows,
        f"no flaky test in the last {ctx.flaky_days} days",
    )


def promotion_table(wh: Backend, ctx: PageContext) -> str:
    from crcr.warehouse.promote import candidate_diff

    found = queries.promotion_candidates(wh, ctx.k, since=ctx.since)
    rows = [
        [
            f"<code>{esc(p.test_id)}</code>" + (f" {SIM}" if p.simulated else ""),
            f"<code>{esc(p.rule or 'no rule line')}</code>",
            "<br>".join(esc(f"{when(t)} {u[:10]}: {o}") for t, u, o in p.last),
        ]
        for p in found
    ]
    out = table(
        ["test", "config rule", f"last {ctx.k} runs"], rows, f"no xfail test passed its last {ctx.k} runs"
    )
    if found and ctx.workspace:
        diff = candidate_diff(wh, found, ctx.workspace)
        out += f'<p>Ready config diff (<code>patch -p0</code> from the repo root):</p><pre class="diff">{esc(diff or "no config rule to edit")}</pre>'
    return out


def failing_table(wh: Backend, ctx: PageContext) -> str:
    rows = [
        [
            f"<code>{esc(f.test_id)}</code>" + (f" {SIM}" if f.simulated else ""),
            (
                f'{esc(f.outcome)}: <span class="new-in-scope">★ new in scope</span> (its leg green by design)'
                if f.new_in_scope
                else esc(f.outcome)
            ),
            esc(when(f.first_seen)),
            esc(when(f.first_failed)),
            esc(when(f.last_passed)) + (f" {commit_link(f.last_passed_sha)}" if f.last_passed else ""),
            esc(f.message),
        ]
        for f in queries.failing_tests(wh, 100, ctx.since)
    ]
    return table(
        ["test", "latest", "first seen", "first failed", "last passed (upstream)", "message"],
        rows,
        "no test is failing",
    )


def device_panel(wh: Backend, ctx: PageContext) -> str:
    """Issue 41: a card whose tests fail, or whose legs get infra verdicts, is a red row."""
    import plotly.graph_objects as go

    days = queries.device_health(wh, ctx.since)
    if not days:
        return '<p class="empty">no results with a device yet</p>'
    per: dict[str, list[queries.DeviceDay]] = {}
    for d in days:
        per.setdefault(d.device, []).append(d)
    # worst first: the card to look at is the first row of the table and the top of the map
    order = sorted(per, key=lambda dev: (-_share(per[dev]), -sum(d.infra_legs for d in per[dev]), dev))
    dates = sorted({d.day for d in days})
    cell = {(d.device, d.day): d for d in days}
    z = [[_rate(cell.get((dev, day))) for day in dates] for dev in reversed(order)]
    text = [
        [
            f"{c.failed}/{c.tests} failed, {c.infra_legs}/{c.legs} legs infra" if c else ""
            for c in (cell.get((dev, day)) for day in dates)
        ]
        for dev in reversed(order)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=dates,
            y=[_device_name(dev) for dev in reversed(order)],
            text=text,
            zmin=0,
            zmax=1,
            colorscale="RdYlGn",
            hovertemplate="%{y} %{x}: %{text}<extra></extra>",
        )
    )
    fig.update_layout(height=max(240, 28 * len(order) + 140), yaxis={"type": "category"})
    rows = []
    for dev in order:
        ds = per[dev]
        tests, failed = sum(d.tests for d in ds), sum(d.failed for d in ds)
        infra = sum(d.infra_legs for d in ds)
        worst = max(ds, key=lambda d: (d.failed_share or 0.0, d.infra_legs))
        bad = failed or infra
        rows.append(
            [
                f"<code>{esc(_device_name(dev))}</code>"
                + (f" {SIM}" if any(d.simulated for d in ds) else ""),
                esc(f"{len(ds)} day(s), {sum(d.legs for d in ds)} leg(s)"),
                f'<span class="{"bad" if bad else "ok"}">{"✗" if bad else "✓"} '
                + esc(f"{failed} of {tests} failed ({_share(ds):.1%})")
                + "</span>",
                esc(f"{infra} leg(s)"),
                esc(f"{worst.day}: {worst.failed}/{worst.tests} failed, {worst.infra_legs} infra")
                if bad
                else "",
            ]
        )
    head = ["device", "seen", "tests failed", "infra verdicts", "worst day"]
    return table(head, rows, "") + chart(fig, "chart-devices", len(days))


def _share(ds: list[queries.DeviceDay]) -> float:
    tests = sum(d.tests for d in ds)
    return sum(d.failed for d in ds) / tests if tests else 0.0


def _rate(c: Optional[queries.DeviceDay]) -> Optional[float]:
    """The map's colour: the share of tests that passed (green = healthy), as the heat map's."""
    return None if c is None or c.failed_share is None else 1.0 - c.failed_share


def _device_name(device: str) -> str:
    return device or "(not recorded)"


def l3_panel(wh: Backend, ctx: PageContext) -> str:
    parts = []
    for simulated in (False, True):
        found = queries.l3_standings(wh, ctx.now, ctx.levels, simulated, ctx.since)
        if simulated and not found:
            continue  # no simulated history: nothing to judge apart
        parts += [_l3_repo(s, simulated) for s in found] or [_l3_repo(None, False)]
    return "".join(parts)


def _verdict_cell(met: Optional[bool]) -> str:
    return (
        '<span class="ok">met</span>'
        if met
        else ('<span class="bad">not met</span>' if met is False else "no data")
    )


def _l3_repo(s: Optional[l3.Standing], simulated: bool) -> str:
    """One repo's standing (l3.standing, the same value `warehouse_tool l3` prints)."""
    if s is None:
        return "<h3>(no real legs yet)</h3>" + '<p class="bad">not ready for L3</p>'
    p = s.promotion
    rows = [
        [
            esc(v.gate.label),
            esc(v.gate.target_label),
            esc(l3.format_value(v.gate, v.value)),
            _verdict_cell(v.met),
            esc(f"{v.window_days} days" if v.window_days else s.tenure_note()),
        ]
        for v in p.verdicts
    ]
    head = (
        f"<h3>{esc(s.repo)}"
        + (f" {SIM} — illustration only, never counted as real" if simulated else "")
        + "</h3>"
    )
    verdict = (
        f'<p class="{"ok" if p.ready else "bad"}">{"ready for L3" if p.ready else "not ready for L3"}</p>'
    )
    demoted = s.on_temporary_demotion
    demotion = (
        f"<h4>Demotion, last {l3.DEMOTION_WINDOW_DAYS} days ({s.demotion_jobs} PR jobs)</h4>"
        f'<p class="{"bad" if demoted else "ok"}">{esc(s.demotion_word())}'
        + (" — a demotion PR would be opened (L3)" if s.demotion_pr else "")
        + "</p>"
        + table(
            ["gate", "target", "value", "verdict"],
            [
                [
                    esc(v.gate.label),
                    esc(v.gate.target_label),
                    esc(l3.format_value(v.gate, v.value)),
                    _verdict_cell(v.met),
                ]
                for v in s.demotion
            ],
            "",
        )
    )
    # no history: the level line says so (an empty table would read as a panel without data)
    dated = [[esc(d), esc(w)] for d, w in s.changes()]
    changes = table(["day", "level change"], dated, "") if dated else ""
    level = f"<p>level: {esc(s.level or 'unknown (no level history)')}; {esc(s.recorded_word())}</p>"
    jobs = f"<p>{esc(s.jobs_note())}</p><p>{esc(s.time_note())}</p>" if p.jobs else ""
    return (
        head
        + jobs
        + table(["gate", "target", "value", "verdict", "window"], rows, "")
        + verdict
        + demotion
        + level
        + changes
    )


def triage_panel(wh: Backend, ctx: PageContext) -> str:
    rows = []
    for d in recent_dispatches(wh, ctx):
        bisect = {b["job"]: b for b in d.bisections}
        for v in d.verdicts:
            b = bisect.get(v["job"], {})
            rows.append(
                [
                    esc(when(d.started_at)) + (f" {SIM}" if d.simulated else ""),
                    esc(v["job"]),
                    esc(f"{v.get('category')} ({v.get('confidence')} confidence, advisory)"),
                    esc(v.get("summary", "")),
                    bisection_html(b),
                ]
            )
    return table(
        ["dispatch", "job", "verdict", "summary", "first bad upstream commit"],
        rows[:40],
        "no leg carries a triage verdict yet",
    )


PANELS: list[Panel] = [
    Panel(
        "dispatches",
        "Dispatch history",
        "The newest 30 dispatches of the page's horizon (90 days), newest first: legs green, test counts, incomplete results, triage verdict and bisection of its legs.",
        dispatch_history,
    ),
    Panel(
        "pass-rate",
        "Pass rate over upstream commits",
        "Share of executed tests that passed (xpassed and xpassed_strict count as passed, as testing/results' tally says; skips and xfails left out), per feature, at each upstream commit.",
        pass_rate_chart,
    ),
    Panel(
        "heatmap",
        "op × dtype (latest run)",
        "Pass rate of each op and dtype in the newest dispatch that ran op tests.",
        heatmap_chart,
    ),
    Panel(
        "flaky",
        "Flaky tests",
        "Tests whose outcome differs at the same upstream and backend SHAs, or flips between pass and fail at least twice (flip rate ≥ 20 %) in the window; one change of state is a regression or a fix, not a flake.",
        flaky_table,
    ),
    Panel(
        "promotions",
        "Promotion candidates",
        "Tests configured xfail/xfail_strict that passed in each of their last K runs, with the config diff the plugin's promotion code makes for them.",
        promotion_table,
    ),
    Panel(
        "failing",
        "Failing tests: first seen, last passed",
        "Every test whose latest result is bad; the last passing upstream commit starts the range to bisect.",
        failing_table,
    ),
    Panel(
        "devices",
        "Device health",
        "Failed tests and legs with an infra verdict (a hang, a device fault, a lost card) per card and day, worst card first: a bad card is the red row; green = its tests passed.",
        device_panel,
    ),
    Panel(
        "l3",
        "L3 readiness",
        "CRCR's promotion gates over the last 14 days as HUD computes them (PR jobs only, latest attempt per job); simulated history is judged apart and never counts.",
        l3_panel,
    ),
    Panel(
        "triage",
        "Triage verdicts and bisection",
        "Advisory verdicts and first bad upstream commits the legs carried (issue 21).",
        triage_panel,
    ),
]


def version(wh: Backend) -> tuple:
    """Changes whenever a leg is ingested: a page rendered for the same version is the same."""
    return tuple(wh.query(f"SELECT count(), max(inserted_at), max(ingest_id) FROM {wh.db}.legs")[0])


def render_panels(wh: Backend, ctx: PageContext) -> str:
    with wh.exclusive():  # one embedded session for the whole page, not one per query
        return _render(wh, ctx)


def _render(wh: Backend, ctx: PageContext) -> str:
    out = []
    for p in PANELS:
        out.append(
            f'<section id="panel-{p.key}"><h2>{esc(p.title)}</h2><p class="meaning">{esc(p.meaning)}</p>{p.render(wh, ctx)}</section>'
        )
    simulated = wh.query(
        f"SELECT count() FROM {wh.db}.legs WHERE simulated = 1 AND {queries.started_after(ctx.since)}"
    )[0][0]
    banner = (
        f'<p class="sim-banner">{SIM} The legs below include simulated history (--simulate-days): '
        "rows marked SIMULATED are made up for illustration and never count in real L3 numbers.</p>"
        if simulated
        else ""
    )
    horizon = f'<p class="meaning">The panels read the legs of the last {ctx.horizon_days} days (the command line reads them all).</p>'
    return banner + horizon + "".join(out)


def head_assets() -> str:
    return f"<script>{plotly_js()}</script>"  # the stylesheet is crcr/relay/style.py


def warehouse_page(wh: Backend, ctx: PageContext, title: str = "CRCR HUD: results warehouse") -> str:
    """The whole page from the warehouse alone (no relay): its recent legs on the first
    screen, every panel below; one embedded session for both."""
    from crcr.relay.hud import render_page
    from crcr.relay.hud_rows import rows_of

    with wh.exclusive():
        panels = render_panels(wh, ctx)
        rows = rows_of(recent_legs(wh, ctx))
    return render_page(rows, title, panels, head_assets())
