"""The demo's pages read at a phone's 390 px and a desktop's 1280 px: the columns that
matter are on screen without scrolling sideways, a long list is cut ("and N more") rather
than stretching its row, and the role × privilege matrix shows every privilege column at
1280 px and keeps each row's role in sight when scrolled sideways at 390 px. The pages are
made by the CLI against `orgctl serve` with the demo state: hq's administrator holds 64
privileges, 30 of them administrative, all named by one finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from reconciler.access.html import render_access_html
from tests.e2e.harness import EXAMPLES, World, output_of
from tests.html_reports.browser import DESKTOP, PHONE, Opened, open_report

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
WIDTHS = {"phone": PHONE, "desktop": DESKTOP}
# A row of a few short lines: no cell holds a list of dozens of names.
SHORT_ROW_PX = 160

BOXES = """(label) => {
    const box = document.querySelector(`input[aria-label="Filter ${label}"]`);
    const table = document.getElementById(box.id.replace(/-filter$/, ""));
    const rect = (e) => { const r = e.getBoundingClientRect();
        return {left: r.left, right: r.right, height: r.height}; };
    return {
        heads: Array.from(table.tHead.rows[0].cells).map((c) => [c.textContent, rect(c)]),
        rows: Array.from(table.tBodies[0].rows).filter((r) => !r.hidden)
            .map((r) => ({row: rect(r), cells: Array.from(r.cells).map(rect),
                          text: Array.from(r.cells).map((c) => c.innerText.trim())})),
    };
}"""


@pytest.fixture
def pages(demo: World, tmp_path: Path) -> dict[str, Path]:
    """hq's plan and access review, as the tour makes them."""
    plan = demo.orgctl_process("plan", HQ, "--format", "html", portal="hq")
    assert plan.returncode == 0, output_of(plan)
    access = demo.orgctl_process("access", HQ, "--format", "json", portal="hq")
    assert access.returncode == 0, output_of(access)
    made = {"plan": plan.stdout, "access": render_access_html(json.loads(access.stdout))}
    for name, page in made.items():
        (tmp_path / f"{name}.html").write_text(page, encoding="utf-8")
    return {name: tmp_path / f"{name}.html" for name in made}


def _boxes(opened: Opened, table: str) -> dict[str, Any]:
    found: dict[str, Any] = opened.page.evaluate(BOXES, table)
    return found


def _column(boxes: dict[str, Any], title: str) -> int:
    return [head for head, _ in boxes["heads"]].index(title)


def _on_screen(box: dict[str, float], width: int) -> bool:
    return box["left"] >= 0 and box["right"] <= width


def _opened(browser: Browser, page: Path, width: str) -> Opened:
    opened = open_report(browser, page, WIDTHS[width])
    opened.assert_clean()
    return opened


@pytest.mark.parametrize("width", WIDTHS)
def test_the_plan_shows_each_call_on_screen(
    browser: Browser, pages: dict[str, Path], width: str
) -> None:
    opened = _opened(browser, pages["plan"], width)
    assert opened.body_overflow() == 0
    boxes = _boxes(opened, "calls")
    call = _column(boxes, "Call")
    for row in boxes["rows"]:
        box = row["cells"][call]
        assert _on_screen(box, WIDTHS[width]["width"]), (row["text"], box)
    assert boxes["rows"][1]["text"][call].startswith("2. POST "), boxes["rows"][1]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_finding_of_30_privileges_is_cut_and_its_row_stays_short(
    browser: Browser, pages: dict[str, Path], width: str
) -> None:
    opened = _opened(browser, pages["access"], width)
    boxes = _boxes(opened, "findings")
    [admin] = [r for r in boxes["rows"] if "default-admin" in r["text"]]
    privileges = admin["text"][_column(boxes, "Privileges")]
    assert privileges.endswith("and 25 more"), privileges
    assert admin["row"]["height"] <= SHORT_ROW_PX, admin
    message = admin["cells"][_column(boxes, "Message")]
    assert message["right"] <= WIDTHS[width]["width"], admin  # what it is about, on screen
    # Filtering still finds a privilege the cut leaves unshown.
    opened.filter("findings", "portal:admin:viewUsers")
    assert len(opened.visible_rows("findings")) == 1


def test_every_privilege_of_the_matrix_is_on_a_desktop_screen(
    browser: Browser, pages: dict[str, Path]
) -> None:
    opened = _opened(browser, pages["access"], "desktop")
    boxes = _boxes(opened, "roles")
    privileges = [(h, box) for h, box in boxes["heads"] if ":" in h]
    assert len(privileges) == 64, [h for h, _ in boxes["heads"]]
    off = [h for h, box in privileges if box["right"] > DESKTOP["width"]]
    assert off == [], f"{len(off)} of 64 privilege columns off screen"
    role = _column(boxes, "Role")
    assert all(r["cells"][role]["left"] >= 0 for r in boxes["rows"])


def test_the_matrix_keeps_each_role_in_sight_on_a_phone(
    browser: Browser, pages: dict[str, Path]
) -> None:
    opened = _opened(browser, pages["access"], "phone")
    assert opened.body_overflow() == 0
    opened.page.evaluate(
        """() => { const box = document.querySelector('input[aria-label="Filter roles"]');
            const table = document.getElementById(box.id.replace(/-filter$/, ""));
            table.parentElement.scrollLeft = table.parentElement.scrollWidth; }"""
    )
    boxes = _boxes(opened, "roles")
    role = _column(boxes, "Role")
    for row in boxes["rows"]:
        box = row["cells"][role]
        assert _on_screen(box, PHONE["width"]), (row["text"][role], box)
