"""The HUD page's one stylesheet and its one script (ours, small, inline: the page works
from a file with no network).

The script does three things: a click on a grid square shows that job's details in the
details panel; a page served over HTTP (the live emulator) marks itself `live`, which
shows its live-only links and reloads it now and then; a page opened from a file (the
snapshot) does neither, so nothing on it points at a server that is gone.
"""

from __future__ import annotations

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:12px 16px;color:#222;max-width:100%}
h1{font-size:18px;margin:0 0 4px} h2{font-size:16px;margin:18px 0 4px} h3{font-size:14px}
a{color:#0550ae} code{font-size:12px}
table{border-collapse:collapse} td,th{border:1px solid #ddd;padding:3px 6px;font-size:13px;text-align:left;vertical-align:top}
th{background:#f6f6f6}
.live-only{display:none} body.live .live-only{display:inline}
p.dispatch{font-size:15px;margin:4px 0} p.red-dispatch{font-size:14px}
ul.red-lines{list-style:none;padding:0;margin:4px 0}
li.red-line{background:#fde8e8;border-left:4px solid #c62828;padding:4px 8px;margin:2px 0}
p.all-green{background:#e6f4ea;border-left:4px solid #2e7d32;padding:4px 8px}
.grid-wrap{overflow:auto;max-width:100%;max-height:60vh} .table-wrap{overflow-x:auto;max-width:100%}
.chart{max-width:100%;overflow-x:auto}
table.grid td.cell{padding:1px;text-align:center;border-color:#eee}
table.grid th{font-size:12px;white-space:nowrap;font-weight:normal}
.sq{display:inline-block;width:18px;height:18px;line-height:18px;border:0;border-radius:3px;padding:0;
  font-size:12px;text-align:center;color:#fff;cursor:pointer;font-weight:bold}
.sq.failure{background:#c62828} .sq.infra{background:#ef6c00} .sq.cancelled{background:#757575}
.sq.progress{background:#1e88e5} .sq.new{background:#8e24aa} .sq.neutral{background:#9e9e9e}
.sq.success{background:#2e7d32}
p.legend{font-size:12px;color:#444;margin:6px 0} p.legend .sq{cursor:default}
aside#details{overflow-wrap:anywhere;position:fixed;right:12px;top:12px;width:420px;max-height:80vh;overflow:auto;background:#fff;
  border:1px solid #888;box-shadow:0 2px 8px #0004;padding:8px 12px;font-size:13px;z-index:10}
aside#details .close{float:right;border:0;background:none;font-size:18px;cursor:pointer}
span.verdict{display:inline-block;padding:0 4px;border-radius:3px;background:#eee;font-size:12px}
span.verdict.upstream{background:#fd9} span.verdict.backend{background:#f99} small.failed{color:#900}
p.stale,.stale{background:#fc8;font-weight:bold}
section{margin:18px 0} .meaning{color:#555;font-size:13px;max-width:70em;margin:2px 0 6px}
.sim{background:#c9f;color:#000;font-size:11px;padding:1px 4px;border-radius:3px}
.sim-banner{background:#eaf;padding:6px} .ok{color:#1b5e20;font-weight:bold} .bad{color:#a00;font-weight:bold}
.new-in-scope{color:#6a1b9a;font-weight:bold}
pre.diff{background:#f6f6f6;padding:8px;font-size:12px;overflow:auto;max-height:320px} .empty{color:#888}
details.fold>summary{cursor:pointer;color:#0550ae;margin:4px 0}
"""

# no template literals or arrow-heavy code: it runs in any browser a maintainer has
JS = """
(function () {
  if (location.protocol === 'http:' || location.protocol === 'https:') {
    document.body.classList.add('live');
    setTimeout(function () { location.reload(); }, REFRESH_MS);
  }
  var panel = document.getElementById('details');
  if (!panel) { return; }
  document.addEventListener('click', function (e) {
    var sq = e.target.closest('button.sq');
    if (sq) {
      var src = document.getElementById(sq.dataset.details);
      panel.querySelector('.body').innerHTML = src ? src.innerHTML : '';
      panel.hidden = false;
    } else if (e.target.closest('aside#details .close')) {
      panel.hidden = true;
    }
  });
})();
"""


def style() -> str:
    return f"<style>{CSS}</style>"


def script(refresh_s: int) -> str:
    """At the end of the body: the page's behaviour (see the module's doc)."""
    return f"<script>{JS.replace('REFRESH_MS', str(int(refresh_s) * 1000))}</script>"
