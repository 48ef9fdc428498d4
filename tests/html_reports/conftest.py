"""The browser the HTML report tests open pages in: one headless Chromium per test
process; without Chromium or Playwright, the tests that need it skip saying how to
install them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import demo, serve  # noqa: F401  (the end-to-end pages' service)
from tests.html_reports.browser import chromium, missing

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    why = missing()
    if why is not None:
        pytest.skip(why)
    with chromium() as launched:
        yield launched
