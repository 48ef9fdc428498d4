"""Reports as one self-contained HTML page each (`--format html`): plan, drift, access
and their fleet forms; tables sorted and filtered in the browser, nothing loaded. The
access report's page is the access package's own format (`reconciler/access/html.py`),
built on this package's page and tables, which import nothing of it back."""

from reconciler.html.plan import PortalReport, render_failure_html, render_fleet_html, render_html

__all__ = [
    "PortalReport",
    "render_failure_html",
    "render_fleet_html",
    "render_html",
]
