"""The browser the HTML report tests open pages in: one headless Chromium per test
module; without Chromium or Playwright, the tests that need it skip saying how to
install them.

Per module, not per session: Playwright's synchronous API keeps an event loop running in
the test process while it is open, and a later test running orgctl in process (its own
`asyncio.run`) would fail; so the browser closes once its module is done."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import demo, serve  # noqa: F401  (the end-to-end pages' service)
from tests.html_reports.browser import chromium, missing

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    why = missing()
    if why is not None:
        pytest.skip(why)
    with chromium() as launched:
        yield launched
