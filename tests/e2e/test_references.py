"""Values known only after an earlier call travel as typed references; text in a manifest
that merely looks like one is sent exactly as written."""

from __future__ import annotations

import pytest

from .harness import MANIFESTS, Serve, output_of

pytestmark = pytest.mark.e2e

LOOKALIKES = MANIFESTS / "reference-lookalikes"


def test_text_that_looks_like_a_reference_is_sent_as_written(serve: Serve) -> None:
    world = serve("rules")
    result = world.orgctl("apply", LOOKALIKES, "--auto-approve", portal="hq")
    assert result.returncode == 0, output_of(result)
    roles = world.api("hq").roles()
    echo_id = roles["Echo"]["id"]
    assert "${Role/Echo.id}" in roles, sorted(roles)
    assert roles["${Role/Echo.id}"]["description"] == "${Role/Echo.id} is written here as text"
    assert echo_id not in roles["${Role/Echo.id}"]["description"]
