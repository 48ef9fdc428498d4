"""A path template is filled by format syntax, so it may hold no brace but its
arguments'; a segment is quoted as before, its unreserved form kept as it is."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from reconciler.operations import Path, Root, UnusableSegment, segment


def test_a_template_with_a_brace_outside_an_argument_is_refused() -> None:
    with pytest.raises(ValueError, match="brace outside an argument"):
        Path(Root.SHARING, "portals/{portalId}/roles/{0}")
    with pytest.raises(ValueError, match="brace outside an argument"):
        Path(Root.SHARING, "portals/{portalId}/}")


def test_a_path_is_filled_with_its_encoded_arguments() -> None:
    path = Path(Root.SHARING, "portals/{portalId}/roles/{roleId}/update")
    assert path.build({"portalId": "self", "roleId": "a b?c"}) == (
        "portals/self/roles/a%20b%3Fc/update"
    )


@pytest.mark.parametrize("value", ["r0000000000001", "Field_Analyst-2.v~1", "a b", "é", "%41"])
def test_a_segment_is_what_quote_makes_of_it(value: str) -> None:
    assert segment(value) == quote(value, safe="")


@pytest.mark.parametrize("value", ["", ".", "..", "a/b"])
def test_a_value_no_quoting_keeps_one_segment_is_refused(value: str) -> None:
    with pytest.raises(UnusableSegment):
        segment(value)
