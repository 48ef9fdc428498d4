"""Every package face says what it offers, as httpx holds its own: the public names a
package's `__init__` exposes (no leading underscore, submodules aside) are its `__all__`,
and each name there resolves. A helper imported into a face would otherwise become part
of it by accident, and a program would come to rely on it."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

import reconciler


def faces() -> list[str]:
    """Every package below `reconciler` whose `__init__` declares `__all__`."""
    found = []
    for info in pkgutil.walk_packages(reconciler.__path__, "reconciler."):
        if info.ispkg and "__all__" in vars(importlib.import_module(info.name)):
            found.append(info.name)
    return found


def exposed(package: ModuleType) -> set[str]:
    """Public names of the face: its own attributes and, for a lazy face (PEP 562,
    reconciler/lazy.py), what `dir()` lists; submodules are the package's body, not
    names it offers."""
    names = set(vars(package)) | set(dir(package))
    return {
        name
        for name in names
        if not name.startswith("_")
        and not (
            isinstance(getattr(package, name, None), ModuleType)
            and getattr(package, name).__name__ == f"{package.__name__}.{name}"
        )
    }


def test_the_faces_are_found() -> None:
    assert {"reconciler.api", "reconciler.adopt", "reconciler.plan"} <= set(faces())


@pytest.mark.parametrize("name", faces())
def test_a_face_exposes_its_all_and_nothing_else(name: str) -> None:
    package = importlib.import_module(name)
    declared = list(package.__all__)
    assert len(declared) == len(set(declared)), f"{name}.__all__ repeats a name"
    assert sorted(exposed(package)) == sorted(declared)
    for entry in declared:
        assert getattr(package, entry) is not None, f"{name}.{entry}"
