"""Reports as one self-contained HTML page each (`--format html`): plan, drift, access
and their fleet forms; tables sorted and filtered in the browser, nothing loaded."""

from reconciler.html.access import render_access_fleet_html, render_access_html
from reconciler.html.plan import PortalReport, render_failure_html, render_fleet_html, render_html

__all__ = [
    "PortalReport",
    "render_access_fleet_html",
    "render_access_html",
    "render_failure_html",
    "render_fleet_html",
    "render_html",
]
