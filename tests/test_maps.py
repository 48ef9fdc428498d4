"""The maps a reader trusts stay true: the exception tree drawn in `errors.py` and the
layout the README draws name what the code has, so adding a class or a module without
drawing it fails here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import orgctl_service
import reconciler
from reconciler import errors

ROOT = Path(reconciler.__file__).parent
README = ROOT.parent / "README.md"
BUILTIN_ROOTS = {"Exception", "ValueError"}


def _exception_classes() -> dict[str, type[BaseException]]:
    classes: dict[str, type[BaseException]] = {}
    modules = [
        *pkgutil.walk_packages(reconciler.__path__, "reconciler."),
        *pkgutil.walk_packages(orgctl_service.__path__, "orgctl_service."),
    ]
    for info in modules:
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            defined_here = inspect.isclass(value) and value.__module__ == module.__name__
            if defined_here and issubclass(value, BaseException):
                classes[name] = value
    return classes


def _drawn_parents() -> dict[str, str]:
    """Each class drawn in the tree and the class drawn above it (by indentation)."""
    parents: dict[str, str] = {}
    stack: list[tuple[int, str]] = [(-1, "Exception")]
    for line in (errors.__doc__ or "").splitlines():
        match = re.search(r"[├└]── (\w+)", line)
        if not match:
            continue
        depth = match.start()
        while stack[-1][0] >= depth:
            stack.pop()
        parents[match.group(1)] = stack[-1][1]
        stack.append((depth, match.group(1)))
    return parents


def test_every_exception_class_is_drawn_in_the_tree() -> None:
    drawn = set(_drawn_parents()) - BUILTIN_ROOTS
    assert sorted(set(_exception_classes()) - drawn) == []
    assert sorted(drawn - set(_exception_classes())) == []


def test_the_tree_draws_each_class_under_its_base() -> None:
    classes = _exception_classes()
    for name, parent in _drawn_parents().items():
        if name in BUILTIN_ROOTS:
            continue
        bases = [base.__name__ for base in classes[name].__bases__]
        assert parent in bases, f"{name} is drawn under {parent}, its bases are {bases}"


def _top_level_names() -> set[str]:
    names = {path.name for path in ROOT.glob("*.py") if path.name != "__init__.py"}
    return names | {f"{path.parent.name}/" for path in ROOT.glob("*/__init__.py")}


def _readme_layout() -> set[str]:
    text = README.read_text(encoding="utf-8")
    block = text[text.index("```\nreconciler/\n") :]
    block = block[: block.index("\n```", 4)]
    return {line.split()[0] for line in block.splitlines()[2:] if line.strip()}


def test_the_readme_layout_names_every_top_level_module_and_package() -> None:
    assert sorted(_top_level_names() - _readme_layout()) == []
    assert sorted(_readme_layout() - _top_level_names()) == []
