"""The shell of every HTML report: one self-contained file a browser opens offline.

The page loads nothing: its Content-Security-Policy allows no source at all
(`default-src 'none'`) and admits the one inline style and the one inline script by
their SHA-256, so no other script runs even if markup slipped into the data. The script
is fixed text that reads the tables from the DOM; no report data is ever written into
it. Every datum goes through `text()` (the same escapes as the text and Markdown
reports, then HTML's), so a role name is shown as written and never parsed as markup.
"""

from __future__ import annotations

import base64
import hashlib
import html
from typing import NewType

from reconciler.shown import safe

Markup = NewType("Markup", str)
"""HTML built here from escaped data: safe to place in a page as it is."""


def text(value: object) -> Markup:
    """A datum as HTML text: unsafe characters as visible escapes (`reconciler.shown`),
    then `&`, `<`, `>` and both quotes as entities, so it is safe in an attribute too."""
    return Markup(html.escape(safe(str(value)), quote=True))


def join(parts: list[Markup] | tuple[Markup, ...], separator: str = "") -> Markup:
    return Markup(separator.join(parts))


STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #59636e;
  --line: #d1d9e0; --head: #f6f8fa; --add: #1a7f37; --del: #cf222e; --warn: #9a6700;
  --mark: #fff8c5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117;
  --muted: #9198a1; --line: #3d444d; --head: #151b23; --add: #3fb950; --del: #f85149;
  --warn: #d29922; --mark: #3b2e00; } }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 1rem; max-width: 80rem; color: var(--fg);
  background: var(--bg); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  overflow-wrap: anywhere; }
h1 { font-size: 1.35rem; margin: 0 0 .5rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
p.summary { font-weight: 600; }
.muted { color: var(--muted); }
.scroll { overflow-x: auto; max-width: 100%; border: 1px solid var(--line);
  border-radius: 6px; }
table { border-collapse: collapse; width: max-content; min-width: 100%; font-size: .9rem; }
th, td { padding: .35rem .5rem; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; overflow-wrap: normal; max-width: min(30rem, calc(100vw - 3rem)); }
thead th { background: var(--head); position: sticky; top: 0; white-space: nowrap; }
th button { all: unset; cursor: pointer; font-weight: 600; }
th button:focus-visible { outline: 2px solid var(--muted); }
th[aria-sort="ascending"] button::after { content: " \\25B2"; }
th[aria-sort="descending"] button::after { content: " \\25BC"; }
th.vertical { vertical-align: bottom; padding: .35rem 2px; font-size: .7rem;
  line-height: 1.1; }
th.vertical button { writing-mode: vertical-rl; transform: rotate(180deg); }
td.mark { padding: .35rem 2px; font-size: .7rem; }
th.sticky, td.sticky { position: sticky; left: 0; z-index: 1; background: var(--bg); }
thead th.sticky { z-index: 2; background: var(--head); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.mark { text-align: center; }
td.wide { min-width: min(36rem, calc(100vw - 3rem)); }
td.call { min-width: min(24rem, calc(100vw - 3rem)); overflow-wrap: anywhere; }
td.list { min-width: 30rem; max-width: 30rem; }
details.more > summary { color: var(--muted); }
tbody tr:hover { background: var(--head); }
.filter { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center;
  margin: .5rem 0; }
.filter input { flex: 1 1 14rem; min-width: 0; padding: .4rem .5rem; font: inherit;
  color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; }
pre { margin: .25rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere;
  font: .85rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.add { color: var(--add); }
.del { color: var(--del); }
.warning { color: var(--warn); font-weight: 600; }
.error { color: var(--del); font-weight: 600; }
.admin { color: var(--del); font-weight: 600; }
s.off { color: var(--muted); }
details > summary { cursor: pointer; }
summary > h2, summary > h3 { display: inline; }
section.portal { border-top: 1px solid var(--line); margin-top: 1.5rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
""".strip()

# Rows a table shows at once, in its current order, until "Show all" is pressed: the
# browser lays out only these, so 10,000 rows load, filter and sort in well under a second.
SHOWN = 500

# Reads every `table.data` from the DOM: a click on a header sorts by that column (again:
# the other way), typing in the table's filter box hides the rows that do not hold every
# word typed. The rows' text is read once; filtering waits for a pause in typing and only
# toggles `hidden`, so a table of 10,000 rows stays responsive.
SCRIPT = """
(function () {
  "use strict";
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});
  function key(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var given = cell.getAttribute("data-sort");
    return given === null ? cell.textContent.trim() : given;
  }
  function counted(n) { return n.toLocaleString("en-US") + (n === 1 ? " row" : " rows"); }
  function setup(table) {
    var body = table.tBodies[0];
    if (!body) { return; }
    var rows = Array.prototype.slice.call(body.rows);
    var texts = null;
    var limit = SHOWN;
    var input = document.getElementById(table.id + "-filter");
    var count = document.getElementById(table.id + "-count");
    var more = document.getElementById(table.id + "-more");
    function apply() {
      var words = input ? input.value.toLowerCase().split(/\\s+/).filter(Boolean) : [];
      if (words.length && texts === null) {
        texts = new Map();
        rows.forEach(function (row) { texts.set(row, row.textContent.toLowerCase()); });
      }
      var matched = 0;
      for (var j = 0; j < rows.length; j++) {
        var row = rows[j], keep = true;
        for (var w = 0; w < words.length && keep; w++) {
          keep = texts.get(row).indexOf(words[w]) !== -1;
        }
        if (keep) { matched++; }
        var show = keep && matched <= limit;
        if (row.hidden === show) { row.hidden = !show; }
      }
      var text = words.length ? matched.toLocaleString("en-US") + " of " + counted(rows.length)
        : counted(rows.length);
      if (matched > limit) { text += " (first " + limit.toLocaleString("en-US") + " shown)"; }
      if (count) { count.textContent = text; }
      if (more) {
        more.hidden = matched <= limit;
        more.textContent = "Show all " + matched.toLocaleString("en-US");
      }
    }
    if (more) {
      more.addEventListener("click", function () { limit = Infinity; apply(); });
    }
    if (input) {
      var timer = 0;
      input.addEventListener("input", function () {
        clearTimeout(timer);
        timer = setTimeout(apply, rows.length > SHOWN ? 150 : 0);
      });
      if (input.value) { apply(); }
    }
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (head, index) {
      var button = head.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var ascending = head.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (other) {
          other.removeAttribute("aria-sort");
        });
        head.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var keys = new Map();
        rows.forEach(function (row) { keys.set(row, key(row, index)); });
        rows.sort(function (a, b) {
          var order = collator.compare(keys.get(a), keys.get(b));
          return ascending ? order : -order;
        });
        // Emptied at once, then refilled in order, out of the page: moving each row from
        // the middle of its body costs a walk of the body, seconds for 10,000 rows.
        table.removeChild(body);
        body.textContent = "";
        rows.forEach(function (row) { body.appendChild(row); });
        table.appendChild(body);
        apply();
      });
    });
  }
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    while (target) {
      if (target.tagName === "DETAILS") { target.open = true; }
      target = target.parentElement;
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.data"), setup);
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
""".strip().replace("SHOWN", str(SHOWN))


def _digest(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


# Nothing may be fetched: no script, style, font, image, frame, form target or base URL
# beyond the two inline blocks, admitted by hash.
POLICY = (
    f"default-src 'none'; script-src {_digest(SCRIPT)}; style-src {_digest(STYLE)};"
    " img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
)


def page(title: str, body: Markup) -> str:
    """The whole document: `title` is data (escaped here), `body` markup built from
    escaped data."""
    opening, closing = page_frame(title)
    return f"{opening}{body}{closing}"


def page_frame(title: str) -> tuple[str, str]:
    """What goes before a page's body and after it, for a writer that streams the body."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="generator" content="orgctl">\n'
        f"<title>{text(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        f"\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
    )
