"""Open a report in headless Chromium (Debian's `chromium`, driven by Playwright) and
watch what a reader's browser would do: every console message, script error, dialog and
request the page makes. Playwright never downloads a browser here: it is given the
system's Chromium; without either, the tests that need them skip with how to install it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM_ENV = "ORGCTL_TEST_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"
# Flags that run Chromium as root in a container and keep it from calling home.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def chromium_path() -> str | None:
    given = os.environ.get(CHROMIUM_ENV)
    if given:
        return given if Path(given).exists() else None
    if Path(DEFAULT_CHROMIUM).exists():
        return DEFAULT_CHROMIUM
    return shutil.which("chromium")


def missing() -> str | None:
    """Why the browser tests cannot run here, with how to fix it; None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed: pip install -e '.[dev]'"
    if chromium_path() is None:
        return (
            f"Chromium not found ({DEFAULT_CHROMIUM}, or {CHROMIUM_ENV}):"
            " apt-get install chromium chromium-driver"
        )
    return None


@contextmanager
def chromium() -> Iterator[Browser]:
    """A fresh headless Chromium: Playwright gives each launch a new, empty profile."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=FLAGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Opened:
    """A report open in a page, and what the page did while it was."""

    page: Page
    url: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)  # every one beyond the file itself
    failed: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        """No console error, script error, dialog, or request beyond the file itself."""
        assert self.console_errors == [], self.console_errors
        assert self.page_errors == [], self.page_errors
        assert self.dialogs == [], self.dialogs
        assert self.requests == [], self.requests
        assert self.failed == [], self.failed

    def visible_rows(self, table: str) -> list[list[str]]:
        """The text of each shown row's cells of the table labelled `table`."""
        rows: list[list[str]] = self.page.evaluate(
            """(label) => {
                const box = document.querySelector(`input[aria-label="Filter ${label}"]`);
                const table = document.getElementById(box.id.replace(/-filter$/, ""));
                return Array.from(table.tBodies[0].rows)
                    .filter((row) => !row.hidden)
                    .map((row) => Array.from(row.cells).map((c) => c.textContent.trim()));
            }""",
            table,
        )
        return rows

    def filter(self, table: str, words: str) -> None:
        """Type `words` in the table's filter box and wait until the page has applied
        them (it waits for a pause in typing on a long table): its count says so."""
        box = self.page.get_by_label(f"Filter {table}", exact=True)
        box.fill(words)
        count = f"{str(box.get_attribute('id'))[: -len('-filter')]}-count"
        try:
            self.page.wait_for_function(
                """([count, filtered]) =>
                    document.getElementById(count).textContent.includes(" of ") === filtered""",
                arg=[count, bool(words.strip())],
                timeout=10_000,
            )
        except Exception:
            self.assert_clean()  # a script error says more than the timeout
            raise

    def sort(self, table: str, column: str) -> None:
        box = self.page.get_by_label(f"Filter {table}", exact=True)
        ident = str(box.get_attribute("id"))[: -len("-filter")]
        self.page.locator(f"#{ident} thead th button", has_text=column).first.click()

    def body_overflow(self) -> int:
        """How far the page is wider than the window (0: nothing to scroll sideways)."""
        width: int = self.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        return width


def open_report(browser: Browser, path: Path, viewport: dict[str, int] = DESKTOP) -> Opened:
    """`path` opened as a reader opens a saved report (a file: URL), every request beyond
    it recorded and refused."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    url = path.resolve().as_uri()
    opened = Opened(page, url)

    def route(route: Any) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            opened.requests.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page.on(
        "console", lambda m: opened.console_errors.append(m.text) if m.type == "error" else None
    )
    page.on("pageerror", lambda e: opened.page_errors.append(str(e)))
    page.on("requestfailed", lambda r: opened.failed.append(r.url))

    def dialog(d: Any) -> None:
        opened.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)
    page.goto(url, wait_until="load")
    return opened
