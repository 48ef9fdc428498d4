"""Whatever text a manifest holds, validation answers with problems, never an exception."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.kinds import registry
from reconciler.manifest import validate

HEADER = "apiVersion: orgctl/v1\nkind: {kind}\nmetadata: {{name: x, id: c1}}\nspec:\n  "
YAMLISH = st.text(alphabet=" \n\t:-[]{},&*!?|>'\"#%@`abcxyz019._", max_size=80)
KINDS = st.sampled_from(["Portal", *(kind.name for kind in registry.registered())])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=100, deadline=None)
@given(kind=KINDS, body=YAMLISH)
def test_any_text_yields_problems_not_exceptions(folder: Path, kind: str, body: str) -> None:
    (folder / "doc.yaml").write_text(HEADER.format(kind=kind) + body)
    _documents, problems = validate(folder, {})
    for problem in problems:
        assert problem.line >= 1
        assert str(problem).startswith(f"{problem.file}:{problem.line}: ")
