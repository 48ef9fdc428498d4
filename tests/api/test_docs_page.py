"""docs/python-api.md documents every call and type the API offers, and only those."""

from __future__ import annotations

import inspect
import re

from reconciler import api

from .conftest import ROOT

PAGE = ROOT / "docs" / "python-api.md"


def test_every_call_of_the_face_has_its_heading_or_is_a_sync_twin() -> None:
    text = PAGE.read_text(encoding="utf-8")
    headed = set(re.findall(r"`(?:[A-Za-z.]+\.)?([a-z_]+)\(", text))
    calls = {n for n in api.__all__ if inspect.isfunction(getattr(api, n))}
    twins = {n for n in calls if n.endswith("_sync")}
    assert calls - twins - headed == set()
    # Each twin has its coroutine, with the same parameters.
    for twin in twins:
        coroutine = getattr(api, twin.removesuffix("_sync"))
        assert inspect.iscoroutinefunction(coroutine), twin
        same = inspect.signature(coroutine).parameters.keys()
        assert inspect.signature(getattr(api, twin)).parameters.keys() == same, twin
    for name in ("Connection", "Credentials", "Manifests", "Applied", "DriftReport"):
        assert f"`{name}" in text, name
