"""The HUD page in a real headless Chromium (Debian's, driven by playwright): what the
browser test checks and what the screenshot command writes. Playwright's own browser
download is never used: `executable_path` points at the system Chromium, and every request
that leaves 127.0.0.1 or the page's file is refused and recorded (the page must be offline).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from dataclasses import dataclass, field
from typing import Iterator

from crcr.callback_client.errors import KNOWN, ConfigError
from testing.base.cliargs import Parser, user_path
from testing.base.command import command

CHROMIUM_ENV = "OOT_CHROMIUM"
# 4.8 MB of inlined plotly parses in about a second; a machine shared by many builds needs minutes
TIMEOUT_MS = 240_000
CANDIDATES = ("chromium", "chromium-browser", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
# every chart's declared point count and what plotly actually drew (heat maps: non-empty cells)
CHART_POINTS_JS = """() => [...document.querySelectorAll('.chart')].map(c => {
  const gd = c.querySelector('.js-plotly-plot');
  const drawn = gd && gd.data ? gd.data.reduce((n, t) =>
      n + (t.type === 'heatmap' ? t.z.flat().filter(v => v !== null).length : t.x.length), 0) : -1;
  return {chart: c.dataset.chart, expected: Number(c.dataset.points), drawn: drawn};
})"""


def chromium() -> str:
    for name in ([os.environ[CHROMIUM_ENV]] if os.environ.get(CHROMIUM_ENV) else []) + list(CANDIDATES):
        found = shutil.which(name)
        if found:
            return found
    raise ConfigError(f"no Chromium found (install Debian's chromium or set ${CHROMIUM_ENV})")


@dataclass
class Loaded:
    page: object  # playwright Page
    errors: list[str] = field(default_factory=list)  # console errors and uncaught exceptions
    offsite: list[str] = field(default_factory=list)  # requests that would leave the machine

    def charts(self) -> list[dict]:
        return self.page.evaluate(CHART_POINTS_JS)


def _local(url: str) -> bool:
    return url.startswith(("file://", "data:", "about:", "http://127.0.0.1", "http://localhost"))


@contextlib.contextmanager
def load(url: str, width: int = 1400) -> Iterator[Loaded]:
    """Open `url`, wait until every chart is drawn, yield the page with what went wrong."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)
            loaded = Loaded(page)
            page.on("console", lambda m: loaded.errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: loaded.errors.append(str(e)))

            def guard(route):
                if _local(route.request.url):
                    return route.continue_()
                loaded.offsite.append(route.request.url)
                return route.abort()

            page.route("**/*", guard)
            page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
            page.wait_for_function(
                "[...document.querySelectorAll('.chart')].every(c => c.querySelector('.js-plotly-plot .main-svg'))",
                timeout=TIMEOUT_MS,
            )
            yield loaded
        finally:
            browser.close()


def first_screen_path(out: str) -> str:
    """Beside the full-page PNG: what a maintainer sees at 1400 x 900 without scrolling."""
    stem, dot, ext = out.rpartition(".")
    return f"{stem}-first-screen.{ext}" if dot else f"{out}-first-screen"


def screenshot(url: str, out: str) -> list[dict]:
    """A full-page PNG of `url` and its first screen (`first_screen_path`); the charts'
    point counts, for the log."""
    with load(url) as loaded:
        loaded.page.screenshot(path=first_screen_path(out))
        loaded.page.screenshot(path=out, full_page=True)
        if loaded.errors:
            raise ConfigError(f"the page logged errors: {loaded.errors[0]}")
        return loaded.charts()


@command("hud_screenshot", {KNOWN: 2}, prefix="hud_screenshot: ")
def main(argv=None) -> int:
    """hud_screenshot PAGE PNG: screenshots of a HUD page (the handler's snapshot
    <state dir>/out/hud.html, or a page the warehouse tool wrote)."""
    p = Parser(prog="hud_screenshot", description=main.__doc__)
    p.add_argument("page", type=user_path, help="the HUD page (an HTML file)")
    p.add_argument("png", type=user_path, help="the full-page PNG; its first screen goes beside it")
    args = p.parse_args(argv)
    if not args.page.is_file():
        raise ConfigError(f"{args.page}: no such HUD page")
    charts = screenshot(args.page.resolve().as_uri(), str(args.png))
    print(
        f"{args.png}, {first_screen_path(str(args.png))}: "
        + ", ".join(f"{c['chart']} {c['drawn']} points" for c in charts)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
