"""The pieces of `examples/ci/orgctl_ci.py` that need no hosting: splitting long comments,
naming saved plans, refusing a plain-http API."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from tests.gitops.ci_runner import CI


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("orgctl_ci", CI / "orgctl_ci.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["orgctl_ci"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


ci = _script()


def test_a_short_text_is_one_part() -> None:
    assert ci.split_markdown("## plan\nno changes\n", 1000) == ["## plan\nno changes\n"]


def test_a_long_text_is_cut_between_lines_and_fences_are_reopened() -> None:
    lines = [f"~ Role/R{i:04d}\n" for i in range(2000)]
    text = "## orgctl plan\n\n```diff\n" + "".join(lines) + "```\n\ndone\n"
    parts = ci.split_markdown(text, 4000)
    assert len(parts) > 5
    assert all(len(part) <= 4000 for part in parts)
    for part in parts:
        assert part.count("```") % 2 == 0, "every part closes the code block it opens"
    assert parts[1].startswith("```diff\n")
    joined = "".join(parts).replace("```\n```diff\n", "")
    assert joined == text


def test_saved_plan_names_hold_only_safe_characters() -> None:
    assert ci.artifact_name("field office/eu", "abc") == "orgctl-plan-field_office_eu-abc"


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://api.github.com", True),
        ("http://127.0.0.1:9000/gh", True),
        ("http://localhost/api/v4", True),
        ("http://gitlab.example.com/api/v4", False),
    ],
)
def test_the_hosting_api_must_be_https_except_loopback(url: str, ok: bool) -> None:
    if ok:
        ci._check_api_url(url)
    else:
        with pytest.raises(ci.CIError, match="must be https"):
            ci._check_api_url(url)


def test_without_a_known_ci_it_says_so() -> None:
    with pytest.raises(ci.CIError, match="neither GitHub Actions"):
        ci.hosting({})


def test_orgctl_parts_are_posted_as_they_are() -> None:
    text = "<!-- orgctl part 1/2 -->\n## plan (part 1 of 2)\na\n<!-- orgctl part 2/2 -->\n## b\n"
    assert ci.comment_parts(text, 10) == ["## plan (part 1 of 2)\na\n", "## b\n"]


def test_a_report_without_parts_is_cut_to_fit() -> None:
    assert ci.comment_parts("## plan\n" + "x\n" * 50, 40) == ci.split_markdown(
        "## plan\n" + "x\n" * 50, 40
    )
