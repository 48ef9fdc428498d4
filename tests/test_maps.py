"""The maps a reader trusts stay true: the exception tree drawn in `errors.py` names what
the code has, each class under its base and its file notes where it lives, so adding or
moving a class without drawing it fails here (the README's layout: test_readme_layout.py)."""

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


# A file note: a path in an entry's text, relative to reconciler/ (or the repository root
# for orgctl_service/), or "here", errors.py itself. Digits never start one ("498/499").
NOTE = re.compile(r"\bhere\b|(?<![\w/])(?:[a-z_]+/)*[a-z_]+\.py\b|(?<![\w/])(?:[a-z_]+/)+[a-z_]+\b")


def _entries() -> dict[str, str]:
    """Each class drawn in the tree and the text beside it, continuation lines included."""
    entries: dict[str, str] = {}
    current = ""
    for line in (errors.__doc__ or "").splitlines():
        match = re.search(r"[├└]── (\w+)", line)
        if match:
            current = match.group(1)
            entries[current] = line[match.end() :]
        elif current and line.strip():
            entries[current] += " " + re.sub(r"^[\s│]*", "", line)
    return entries


def _noted_file(note: str) -> Path:
    if note == "here":
        return Path(errors.__file__)
    return (ROOT.parent if note.startswith("orgctl_service/") else ROOT) / note


def test_every_file_note_names_the_file_that_holds_its_class() -> None:
    """A note says where its class lives: the file exists and defines the class (a
    package: one of its modules does)."""
    classes = _exception_classes()
    wrong = []
    for name, text in _entries().items():
        for note in NOTE.findall(text):
            where = _noted_file(note)
            held = name in classes and Path(inspect.getfile(classes[name])).is_relative_to(where)
            if not where.exists() or not held:
                wrong.append(f"{name}: ({note})")
    assert wrong == []


def test_the_notes_are_found() -> None:
    """The pattern finds the notes as written, and no status code or error code."""
    entries = _entries()
    assert NOTE.findall(entries["PlanFileError"]) == ["plan/render/json.py"]
    assert NOTE.findall(entries["LiveRecordError"]) == ["here"]
    assert NOTE.findall(entries["UnexpectedAnswer"]) == ["orgctl_service/testing"]
    assert NOTE.findall(entries["AuthError"] + entries["TransientError"]) == []
