"""A package's names imported on first use (PEP 562), so importing one module below a
package does not import every module the package's face names: `validate` reads
`plan.elements` and `access.holdings` without the planner, the renderers, rich or
ruamel.yaml (tests/test_import_budget.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The package's `__getattr__`: each name from its home module, relative to it (or
    absolute, `reconciler.…`, for a name the face passes on from another package)."""

    def attribute(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        absolute = home.startswith("reconciler.")
        return getattr(import_module(home if absolute else f"{package}.{home}"), name)

    return attribute


def listing(namespace: Mapping[str, Any], homes: Mapping[str, str]) -> Callable[[], list[str]]:
    """The package's `__dir__`: what it holds and what it imports on first use, so that
    `dir()` and a completing editor see the names `__getattr__` answers."""

    def names() -> list[str]:
        return sorted({*namespace, *homes})

    return names
