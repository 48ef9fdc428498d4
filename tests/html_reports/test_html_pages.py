"""Every HTML report, read as markup without a browser: one self-contained file whose
policy forbids every load, whose one script and one style are admitted by their hash
and hold no data, with nothing that points outside the page, and every datum escaped."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from reconciler.access.html import render_access_fleet_html, render_access_html
from reconciler.html import (
    PortalReport,
    render_failure_html,
    render_fleet_html,
    render_html,
)
from reconciler.html.page import SCRIPT, STYLE
from tests.cli import env_with, orgctl
from tests.e2e.harness import EXAMPLES, World, output_of
from tests.e2e.test_apply_windows import ALWAYS, with_window
from tests.e2e.test_markdown_failure import dead_url
from tests.html_reports.documents import (
    HOSTILE,
    HOSTILE_DESCRIPTION,
    access_document,
    access_fleet_document,
    hostile_plan,
)


class Parsed(HTMLParser):
    """The tags, attributes and the text of each script and style of a page."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.blocks: dict[str, list[str]] = {"script": [], "style": []}
        self._inside: str | None = None
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in self.blocks:
            self._inside = tag
            self.blocks[tag].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._inside:
            self._inside = None

    def handle_data(self, data: str) -> None:
        if self._inside is not None:
            self.blocks[self._inside][-1] += data

    def attributes(self, name: str) -> list[str]:
        return [str(attrs[name]) for _, attrs in self.tags if name in attrs]


def _fleet_plan_page() -> str:
    portals = [
        PortalReport("hq", "portals/hq", "drifted", hostile_plan()),
        PortalReport(HOSTILE, "portals/x", "failed", None, f"cannot read {HOSTILE}"),
    ]
    return render_fleet_html(portals, "drift", "2 portals: 1 failed, 1 drifted")


PAGES = {
    "plan": lambda: render_html(hostile_plan(), "plan"),
    "drift": lambda: render_html(hostile_plan(), "drift"),
    "fleet": _fleet_plan_page,
    "access": lambda: render_access_html(access_document()),
    "access-fleet": lambda: render_access_fleet_html(access_fleet_document()),
    "failure": lambda: render_failure_html(
        f"orgctl drift: {HOSTILE}", "Failed.", [f"cannot read {HOSTILE}"]
    ),
}


def _hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


@pytest.mark.parametrize("name", PAGES)
def test_the_page_loads_nothing_and_admits_only_its_own_script_and_style(name: str) -> None:
    page = PAGES[name]()
    parsed = Parsed(page)
    [policy] = [
        attrs["content"]
        for tag, attrs in parsed.tags
        if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy"
    ]
    directives = dict(d.strip().split(" ", 1) for d in str(policy).split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == _hash(SCRIPT)
    assert directives["style-src"] == _hash(STYLE)
    assert directives["base-uri"] == "'none'" and directives["form-action"] == "'none'"
    # Exactly the one script and style, unchanged by the data: nothing else could run.
    assert parsed.blocks == {"script": [SCRIPT], "style": [STYLE]}
    assert [t for t, _ in parsed.tags if t in ("script", "style", "link", "img", "iframe")] == [
        "style",
        "script",
    ]
    assert parsed.attributes("src") == []
    assert all(href.startswith("#") for href in parsed.attributes("href"))
    handlers = [a for _, attrs in parsed.tags for a in attrs if a.startswith("on") or a == "style"]
    assert handlers == []
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page


@pytest.mark.parametrize("name", PAGES)
def test_a_name_written_as_markup_stays_text(name: str) -> None:
    page = PAGES[name]()
    assert HOSTILE not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # The page's text holds the name as it was written.
    assert HOSTILE in "".join(_texts(page))


def _texts(page: str) -> list[str]:
    found: list[str] = []

    class Texts(HTMLParser):
        def handle_data(self, data: str) -> None:
            found.append(data)

    Texts(convert_charrefs=True).feed(page)
    return found


def test_a_description_written_as_markup_is_text_with_its_quotes_as_entities() -> None:
    page = render_html(hostile_plan())
    assert 'onerror="' not in page and "onerror=&quot;" in page
    assert HOSTILE_DESCRIPTION.replace('"', '\\"') in "".join(_texts(page))


def test_characters_that_reorder_or_break_lines_show_as_escapes() -> None:
    document = access_document()
    document["members"][0]["username"] = "ali\u202ece\nx"
    page = render_access_html(document)
    assert "\u202e" not in page and "ali\\u202ece\\nx" in page


@pytest.mark.parametrize(
    "document",
    [
        {},
        {"portal": "x", "findings": "none", "roles": [1, None], "members": {"a": 1}},
        {
            "members": [{"username": 5, "role": ["x"], "level": "2", "disabledByLevel": "p"}],
            "roles": [{"name": ["x"], "privileges": "portal:admin:all", "holders": True}],
            "privileges": [{"name": "p", "holders": [None], "roles": [None, {"name": 7}]}],
            "privilegeFilter": [3, "portal:*"],
        },
    ],
)
def test_a_mistyped_document_renders_what_it_can(document: dict[str, Any]) -> None:
    page = render_access_html(document)
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    fleet = render_access_fleet_html({"portals": [document, "x", {"report": document}]})
    assert fleet.count('<section class="portal"') == 2


def test_the_matrix_keeps_the_privileges_the_report_asked_for() -> None:
    document = access_document()
    document["privilegeFilter"] = ["portal:admin:*"]
    columns = re.findall(
        r'class="vertical[^"]*"><button type="button">([^<]+)<', render_access_html(document)
    )
    assert columns == ["portal:admin:viewUsers"]
    document["privilegeFilter"] = []
    columns = re.findall(
        r'class="vertical[^"]*"><button type="button">([^<]+)<', render_access_html(document)
    )
    assert columns == ["portal:admin:viewUsers", "portal:user:createItem", "portal:user:joinGroup"]


def test_the_plan_page_says_what_the_markdown_says() -> None:
    """The same summary and, riskiest first, the same change heads and diff lines."""
    from reconciler.html.page import text
    from reconciler.plan.render.lines import hunks, summary_line

    plan = hostile_plan()
    page = render_html(plan)
    assert f'<p class="summary">{text(summary_line(plan, "plan"))}</p>' in page
    positions = [page.index(text(h.head)) for h in hunks(plan)]
    assert positions == sorted(positions)
    for hunk in hunks(plan):
        assert all(text(line) in page for line in hunk.lines)


@pytest.mark.e2e
@pytest.mark.parametrize("command", ["plan", "drift"])
def test_a_report_that_cannot_be_made_is_a_page_saying_why(command: str) -> None:
    """As with Markdown: the page a CI step keeps says why, never an empty file; no
    secret is in it."""
    env = env_with(ORGCTL_PORTAL_URL=dead_url(), ORGCTL_TOKEN="t0ken-value")
    result = orgctl(command, EXAMPLES / "hq", "--format", "html", env=env)
    assert result.returncode == 1, output_of(result)
    assert result.stdout.startswith("<!DOCTYPE html>"), output_of(result)
    assert "Failed: the portal could not be" in result.stdout
    assert "is unreachable" in result.stdout
    assert "t0ken-value" not in result.stdout + result.stderr


@pytest.mark.e2e
def test_the_apply_window_sentence_stays_off_the_page(demo: World, tmp_path: Path) -> None:
    """As with JSON, the sentence goes to stderr: stdout is the page alone."""
    folder = with_window(tmp_path, ALWAYS)
    planned = demo.orgctl("plan", folder, "--format", "html", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert planned.stdout.startswith("<!DOCTYPE html>") and planned.stdout.endswith("</html>\n")
    assert "Apply window: open now, until" in planned.stderr


def test_the_drift_page_names_undeclared_roles_and_what_ignore_rules_left_alone() -> None:
    """As the Markdown does: the information line, and a table of what was ignored."""
    from reconciler.html.page import text
    from reconciler.plan.model import Ignored
    from reconciler.plan.render.lines import information_line

    kept = Ignored("Role/Analyst", "ignorePrivileges", privileges=("p:x",), patterns=("p:*",))
    plan = replace(hostile_plan(), undeclaredRoles=(HOSTILE, "Scratch"), ignored=(kept,))
    page = render_html(plan, "drift")
    line = information_line(plan, "drift")
    assert line is not None and HOSTILE in line
    assert f"<p>{text(line)}</p>" in page
    assert "Ignored by the manifests&#x27; ignore rules" in page
    assert f"<td>{text(kept.what)}</td>" in page
    assert "Information:" not in render_html(plan, "plan")  # a plan does not say it
