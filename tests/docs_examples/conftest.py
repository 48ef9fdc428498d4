"""The README tour's service: the end-to-end tests' `orgctl serve` on a free port."""

from tests.e2e.conftest import demo, serve  # noqa: F401
