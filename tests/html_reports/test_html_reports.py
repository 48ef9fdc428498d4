"""Each HTML report opened in headless Chromium, as a reader opens a saved file: it
renders with no console error and loads nothing; filtering and sorting work; a role
named like markup shows as text and runs nothing; a phone's width needs no sideways
scrolling of the page. The plan and drift pages are also made end to end by the CLI
against `orgctl serve`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from reconciler.access.html import render_access_fleet_html, render_access_html
from reconciler.html import (
    PortalReport,
    render_fleet_html,
    render_html,
)
from reconciler.html.page import SHOWN, Markup, page
from tests.e2e.harness import EXAMPLES, World, output_of
from tests.html_reports.browser import DESKTOP, PHONE, Opened, open_report
from tests.html_reports.documents import (
    HOSTILE,
    VIEW_USERS,
    access_document,
    access_fleet_document,
    hostile_plan,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser


def _opened(
    browser: Browser, tmp_path: Path, html: str, name: str, viewport: dict[str, int] = DESKTOP
) -> Opened:
    path = tmp_path / f"{name}.html"
    path.write_text(html, encoding="utf-8")
    opened = open_report(browser, path, viewport)
    opened.assert_clean()
    return opened


def _usernames(opened: Opened) -> list[str]:
    return [row[0] for row in opened.visible_rows("members")]


def _assert_markup_is_text(opened: Opened) -> None:
    """The hostile name is on the page as text, and the page holds its one script only."""
    assert HOSTILE in opened.page.inner_text("body")
    assert opened.page.evaluate("document.scripts.length") == 1
    assert opened.page.evaluate("document.images.length") == 0
    assert opened.dialogs == []


def test_access_report_filters_sorts_and_shows_markup_as_text(
    browser: Browser, tmp_path: Path
) -> None:
    opened = _opened(browser, tmp_path, render_access_html(access_document()), "access")
    _assert_markup_is_text(opened)
    assert _usernames(opened) == ["alice", "bob", "carol", "dave", "erin"]
    # Findings come first.
    headings = opened.page.locator("h2").all_inner_texts()
    assert headings[0] == "Findings (2)", headings
    opened.filter("members", "erin")
    assert _usernames(opened) == ["erin"]
    assert opened.page.inner_text("#" + _ident(opened, "members") + "-count") == "1 of 5 rows"
    opened.filter("members", "")
    assert len(_usernames(opened)) == 5
    # Levels sort as numbers (10 after 2), then the other way on a second click.
    opened.sort("members", "Level")
    assert _usernames(opened)[0] == "erin" and _usernames(opened)[-1] == "dave"
    opened.sort("members", "Level")
    assert _usernames(opened)[0] == "dave" and _usernames(opened)[-1] == "erin"
    # A member who never signed in sorts before the oldest sign-in.
    opened.sort("members", "Last sign-in")
    assert _usernames(opened)[0] == "carol"
    # Who holds the administrative privilege, through which role.
    opened.filter("privileges", VIEW_USERS)
    [row] = opened.visible_rows("privileges")
    assert row == [VIEW_USERS, "yes", "1", "1", HOSTILE]
    # The matrix marks the hostile role's privileges.
    [role] = [r for r in opened.visible_rows("roles") if r[0] == HOSTILE]
    assert role[0] == HOSTILE and role[1:4] == ["✓", "✓", "✓"]
    assert role[4:] == ["custom", "2", "yes"]
    opened.assert_clean()


def _ident(opened: Opened, table: str) -> str:
    box = opened.page.get_by_label(f"Filter {table}", exact=True)
    return str(box.get_attribute("id"))[: -len("-filter")]


def test_access_report_is_usable_on_a_phone(browser: Browser, tmp_path: Path) -> None:
    opened = _opened(
        browser, tmp_path, render_access_html(access_document()), "phone", viewport=PHONE
    )
    assert opened.body_overflow() == 0
    box = opened.page.get_by_label("Filter members", exact=True).bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    opened.filter("members", "alice")
    assert _usernames(opened) == ["alice"]
    assert opened.body_overflow() == 0


def test_access_fleet_report_links_each_portal(browser: Browser, tmp_path: Path) -> None:
    page = render_access_fleet_html(access_fleet_document())
    opened = _opened(browser, tmp_path, page, "fleet")
    _assert_markup_is_text(opened)
    rows = opened.visible_rows("portals")
    assert [r[:4] for r in rows] == [
        ["hq", "portals/hq", "ok", "2"],
        [HOSTILE, "portals/bad", "error", "0"],
    ]
    opened.page.get_by_role("link", name=HOSTILE).click()
    assert opened.page.evaluate("location.hash") == "#portal-2"
    assert (
        opened.page.locator("#portal-2 pre").inner_text() == f"portals/bad: cannot read {HOSTILE}"
    )
    opened.assert_clean()


def test_plan_report_filters_and_sorts_its_changes(browser: Browser, tmp_path: Path) -> None:
    opened = _opened(browser, tmp_path, render_html(hostile_plan()), "plan")
    _assert_markup_is_text(opened)
    changes = [r[0] for r in opened.visible_rows("changes")]
    # Riskiest first, as in the Markdown report: the administrative grant leads.
    assert changes[0].startswith(f"+ Role/{HOSTILE}  (grants administrative privileges")
    assert changes[1].startswith("~ Member/alice")
    opened.filter("changes", "alice")
    [alice] = opened.visible_rows("changes")
    assert alice[0].startswith("~ Member/alice") and alice[1:] == ["update", "role assignments"]
    opened.filter("changes", "")
    opened.sort("changes", "Change")
    assert opened.visible_rows("changes")[0][0].startswith("~ Member/alice")
    calls = opened.visible_rows("calls")
    assert [c[0].split(".")[0] for c in calls] == ["1", "2", "3"]
    opened.sort("calls", "Call")
    opened.sort("calls", "Call")
    assert [c[0].split(".")[0] for c in opened.visible_rows("calls")] == ["3", "2", "1"]
    opened.assert_clean()


def test_plan_fleet_report_on_a_phone(browser: Browser, tmp_path: Path) -> None:
    plan = hostile_plan()
    portals = [
        PortalReport("hq", "portals/hq", "with changes", plan),
        PortalReport("field", "portals/field", "failed", None, "field: is unreachable"),
    ]
    page = render_fleet_html(portals, "plan", "2 portals: 1 failed, 1 with changes")
    opened = _opened(browser, tmp_path, page, "plan-fleet", viewport=PHONE)
    assert opened.body_overflow() == 0
    assert [r[:3] for r in opened.visible_rows("portals")] == [
        ["hq", "portals/hq", "with changes"],
        ["field", "portals/field", "failed"],
    ]
    opened.page.get_by_role("link", name="field").click()
    assert opened.page.locator("#portal-2 pre").inner_text() == "field: is unreachable"
    assert opened.body_overflow() == 0


# --- made by the CLI against `orgctl serve` ---------------------------------------------------


@pytest.mark.e2e
def test_cli_plan_and_drift_pages_against_the_service(
    browser: Browser, demo: World, tmp_path: Path
) -> None:
    hq = EXAMPLES / "hq"
    plan = demo.orgctl_process("plan", hq, "--format", "html", "-o", "plan.json", portal="hq")
    assert plan.returncode == 0, output_of(plan)
    assert (demo.workdir / "plan.json").read_text().startswith("{")  # still the saved plan
    opened = _opened(browser, tmp_path, plan.stdout, "cli-plan")
    changes = [r[0] for r in opened.visible_rows("changes")]
    assert any(c.startswith("~ Role/Analyst") for c in changes), changes
    assert opened.visible_rows("calls")
    drift = demo.orgctl_process("drift", hq, "--format", "html", "-o", "drift.html", portal="hq")
    assert drift.returncode == 2, output_of(drift)
    assert drift.stdout.startswith("Drift: "), output_of(drift)  # the page is in the file
    opened = open_report(browser, demo.workdir / "drift.html", viewport=PHONE)
    opened.assert_clean()
    assert opened.body_overflow() == 0
    assert "Drift:" in opened.page.inner_text("p.summary")
    opened.filter("changes", "Analyst")
    assert all("Analyst" in r[0] for r in opened.visible_rows("changes"))
    assert opened.page.locator("table#t2 >> text=Calls").count() == 0


@pytest.mark.e2e
def test_cli_drift_of_a_fleet_page(browser: Browser, demo: World, tmp_path: Path) -> None:
    portals = {"fleet-hq": "hq", "fleet-field": "field", "fleet-cloud": "cloud"}
    env = demo.fleet_env(portals)
    done = demo.orgctl_process(
        "drift", EXAMPLES / "fleet", "--format", "html", "-o", "fleet.html", portal="", env=env
    )
    assert done.returncode == 2, output_of(done)
    assert done.stdout.startswith("3 portals: 3 drifted."), output_of(done)
    opened = open_report(browser, demo.workdir / "fleet.html")
    opened.assert_clean()
    rows = opened.visible_rows("portals")
    assert [r[0] for r in rows] == ["fleet-cloud", "fleet-field", "fleet-hq"]  # folder order
    assert {r[2] for r in rows} == {"drifted"}
    opened.page.get_by_role("link", name="fleet-hq").click()
    assert opened.page.evaluate("location.hash") == "#portal-3"
    section = opened.page.locator("#portal-3")
    assert "fleet-hq: drifted" in section.locator("summary").first.inner_text()
    assert section.locator("table.data").count() >= 2  # its kinds and its changes
    opened.assert_clean()


def test_a_long_table_shows_its_first_rows_and_filters_and_sorts_them_all(
    browser: Browser, tmp_path: Path
) -> None:
    """Past SHOWN rows, the page lays out only the first ones (10,000 rows stay quick);
    filtering and sorting still reach every row, and "Show all" shows them."""
    document = access_document()
    extra = [dict(document["members"][1], username=f"m{i:04}") for i in range(SHOWN + 100)]
    document["members"] = document["members"] + extra
    total = len(document["members"])
    opened = _opened(browser, tmp_path, render_access_html(document), "long")
    assert len(_usernames(opened)) == SHOWN
    count = opened.page.locator(f"#{_ident(opened, 'members')}-count")
    assert count.inner_text() == f"{total:,} rows (first {SHOWN} shown)"
    last = f"m{SHOWN + 99:04}"
    opened.filter("members", last)
    assert _usernames(opened) == [last]
    opened.filter("members", "")
    opened.sort("members", "Username")
    opened.sort("members", "Username")  # descending: rows from past the first SHOWN lead
    assert _usernames(opened)[:2] == [last, f"m{SHOWN + 98:04}"]
    assert len(_usernames(opened)) == SHOWN
    opened.page.get_by_role("button", name=f"Show all {total:,}").click()
    assert len(_usernames(opened)) == total
    assert opened.page.get_by_role("button", name=f"Show all {total:,}").is_hidden()
    opened.assert_clean()


def test_the_watch_catches_a_load_and_what_the_policy_blocks(
    browser: Browser, tmp_path: Path
) -> None:
    """The checks above can fail: a page that loads an image is seen doing so, and the
    same markup inside a report's shell is refused by its policy, which the console says."""
    image = '<img src="http://127.0.0.1:9/x.png" alt="">'
    plain = tmp_path / "plain.html"
    plain.write_text(f"<!DOCTYPE html><html><body>{image}</body></html>", encoding="utf-8")
    opened = open_report(browser, plain)
    assert opened.requests == ["http://127.0.0.1:9/x.png"]
    shell = tmp_path / "shell.html"
    shell.write_text(page("shell", Markup(image + "<script>alert(3)</script>")), encoding="utf-8")
    opened = open_report(browser, shell)
    assert opened.requests == [] and opened.dialogs == []
    assert any("Content Security Policy" in e for e in opened.console_errors), opened


@pytest.mark.e2e
def test_cli_access_pages_against_the_service(
    browser: Browser, demo: World, tmp_path: Path
) -> None:
    """`orgctl access --format html`, one portal and a fleet, written with -o: the demo's
    erin (level 1) and the default administrator's finding; the page is the renderer's
    page of the JSON document the same command prints."""
    out = tmp_path / "access.html"
    done = demo.orgctl_process(
        "access", EXAMPLES / "hq", "--format", "html", "-o", out, portal="hq"
    )
    assert done.returncode == 0, output_of(done)
    page = out.read_text(encoding="utf-8")
    as_json = demo.orgctl_process("access", EXAMPLES / "hq", "--format", "json", portal="hq")
    document = json.loads(as_json.stdout)
    assert _without_time(page) == _without_time(render_access_html(document))
    opened = _opened(browser, tmp_path, page, "cli-access")
    assert [r[2] for r in opened.visible_rows("findings")].count("default-admin") == 1
    opened.filter("members", "erin")
    [erin] = opened.visible_rows("members")
    assert erin[:4] == ["erin", "Analyst", "custom", "1"], erin
    env = demo.fleet_env({"hq": "hq", "field": "field"})
    fleet = [EXAMPLES / "hq", EXAMPLES / "field"]
    done = demo.orgctl_process("access", *fleet, "--format", "html", portal="", env=env)
    assert done.returncode == 0, output_of(done)
    assert "2 portals" in done.stderr, output_of(done)
    opened = _opened(browser, tmp_path, done.stdout, "cli-access-fleet", PHONE)
    assert [r[:3] for r in opened.visible_rows("portals")] == [
        ["hq", f"{EXAMPLES}/hq", "ok"],
        ["field", f"{EXAMPLES}/field", "ok"],
    ]
    assert opened.body_overflow() == 0


def _without_time(page: str) -> str:
    # Two reads a moment apart differ only in when they were made.
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "T", page)
