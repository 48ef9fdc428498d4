"""`/`: the agent's status page, in the reports' shell (their style and their CSP, which
loads nothing); every datum escaped by `reconciler.html.page.text`."""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.agent.status import PortalStatus
from reconciler.html.page import POLICY, Markup, join, page, text

COLUMNS = ("Portal", "State", "Revision", "Drifted", "Last reconcile", "Next", "Last error")


def status_page(statuses: Iterable[PortalStatus], revision: str | None) -> tuple[str, str]:
    """The page and its Content-Security-Policy (also sent as a header)."""
    rows = [_row(status.to_json()) for status in statuses]
    head = join([Markup(f"<th>{text(name)}</th>") for name in COLUMNS])
    body = Markup(
        f"<h1>orgctl agent</h1>\n<p>Source revision: {text(revision or 'not read yet')}</p>\n"
        f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n"
        f"{join(rows, chr(10))}\n</tbody>\n</table>"
    )
    return page("orgctl agent", body), POLICY


def _row(shown: dict[str, object]) -> Markup:
    keys = ("name", "state", "revision", "drifted", "lastReconcile", "nextReconcile", "lastError")
    cells = [Markup(f"<td>{text('' if shown[k] is None else shown[k])}</td>") for k in keys]
    return Markup(f"<tr>{join(cells)}</tr>")
