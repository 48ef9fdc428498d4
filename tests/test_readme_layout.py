"""The README's layout section stays true of the tree.

The layout section is the README's text from the sentence "The code is laid out by
concept" to the end of the Development section. It claims to describe the top level of
`reconciler/`, and the files and modules it names. The rules:

1. Its drawing (the fenced block headed `reconciler/`) has exactly one entry per module
   directly in `reconciler/` (`__init__.py` aside) and per package directly in it
   (`name/`), each followed by a description of at least two words; it draws nothing
   that is not there.
2. Every path it names exists, relative to the repository root: a backticked name that
   holds a `/` (`orgctl_service/`, `reconciler/kinds/`; an npm scope like `@esri/x` is no
   path and begins with `@`), and any word ending in `.py`, `.md`, `.json` or `.yaml`.
3. Every backticked dotted name starting with `reconciler.` or `orgctl_service.` is a
   module that imports; the other backticked Python names of its paragraph (`proxy`,
   `service.Service`, `orgctl(...)`) are submodules or attributes of one of the modules
   that paragraph names that way.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PACKAGE = ROOT / "reconciler"
START = "The code is laid out by concept"

BACKTICKED = re.compile(r"`([^`]+)`")
FILE_WORD = re.compile(r"[\w./-]+\.(?:py|md|json|yaml)\b")
PYTHON_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(\.\.\.\))?")
ROOTS = ("reconciler.", "orgctl_service.")


def layout_section() -> str:
    text = README.read_text(encoding="utf-8")
    development = text[text.index("\n## Development\n") + 1 :]
    end = development.find("\n## ", 1)
    section = development if end < 0 else development[:end]
    return section[section.index(START) :]


def drawn_entries(section: str) -> dict[str, str]:
    """Each entry of the drawing and its description."""
    block = section[section.index("```\nreconciler/\n") + len("```\nreconciler/\n") :]
    block = block[: block.index("\n```")]
    entries: dict[str, str] = {}
    for line in block.splitlines():
        name, _, description = line.strip().partition(" ")
        assert name not in entries, f"the README's layout draws {name} twice"
        entries[name] = description.strip()
    return entries


def top_level() -> set[str]:
    modules = {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    return modules | {f"{p.parent.name}/" for p in PACKAGE.glob("*/__init__.py")}


def named_paths(section: str) -> set[str]:
    prose = section[section.index("\n```", section.index("```\nreconciler/")) + 4 :]
    backticked = {
        token
        for token in BACKTICKED.findall(prose)
        if "/" in token and " " not in token and not token.startswith("@")
    }
    return backticked | set(FILE_WORD.findall(prose))


def test_the_drawing_has_one_described_entry_per_top_level_module_and_package() -> None:
    entries = drawn_entries(layout_section())
    assert sorted(top_level() - set(entries)) == [], "not drawn in the README's layout"
    assert sorted(set(entries) - top_level()) == [], "drawn, but not in reconciler/"
    undescribed = [name for name, text in entries.items() if len(text.split()) < 2]
    assert undescribed == []


def test_every_path_the_layout_names_exists() -> None:
    paths = named_paths(layout_section())
    assert "docs/adding-a-kind.md" in paths  # the rule finds the paths the prose names
    assert sorted(p for p in paths if not (ROOT / p).exists()) == []


def test_every_module_and_name_the_layout_names_resolves() -> None:
    for paragraph in layout_section().split("\n\n"):
        tokens = [t for t in BACKTICKED.findall(paragraph) if PYTHON_NAME.fullmatch(t)]
        scopes = [importlib.import_module(t) for t in tokens if t.startswith(ROOTS)]
        for token in tokens:
            if not token.startswith(ROOTS) and scopes:
                name = token.removesuffix("(...)")
                assert any(_resolves(scope, name) for scope in scopes), (token, paragraph)


def _resolves(scope: ModuleType, dotted: str) -> bool:
    found: object = scope
    for part in dotted.split("."):
        if isinstance(found, ModuleType) and not hasattr(found, part):
            try:
                found = importlib.import_module(f"{found.__name__}.{part}")
                continue
            except ModuleNotFoundError:
                return False
        if not hasattr(found, part):
            return False
        found = getattr(found, part)
    return True
