"""The reference service builds on orgctl's shared kernel alone: it must answer as a
portal does, not as the planner expects, so it never imports the planner, the reader or
the manifests' models."""

from __future__ import annotations

import ast
from importlib.util import find_spec
from pathlib import Path

import orgctl_service

KERNEL = {
    "reconciler.catalog",
    "reconciler.operations",
    "reconciler.versions",
    "reconciler.errors",
    "reconciler.text_rules",
    # The variables' table: the service's own (its control secret) are rows of it.
    "reconciler.settings",
    # The state file is read by the manifests' YAML reader, under the same limits.
    "reconciler.manifest.yamltree",
}


def _is_module(name: str) -> bool:
    try:
        return name.startswith("reconciler.") and find_spec(name) is not None
    except ModuleNotFoundError:  # its parent is a module, not a package
        return False


def _modules_imported(path: Path) -> set[str]:
    """Each orgctl module `path` imports (`from reconciler.manifest import yamltree` is
    reconciler.manifest.yamltree; `from reconciler.catalog import X` is reconciler.catalog)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                names.add(submodule if _is_module(submodule) else node.module)
    return {name for name in names if name.split(".")[0] == "reconciler"}


def test_the_service_imports_only_the_shared_kernel() -> None:
    package = Path(orgctl_service.__file__).parent
    outside = {
        f"{path.name}: {name}"
        for path in sorted(package.glob("*.py"))
        for name in _modules_imported(path)
        if name not in KERNEL
    }
    assert sorted(outside) == []


def test_the_test_bench_adds_only_the_command_line_runner() -> None:
    """`orgctl_service.testing` drives orgctl as a user does, through `reconciler.testing`;
    like the service, it reaches no further into orgctl."""
    bench = Path(orgctl_service.__file__).parent / "testing"
    modules = sorted(bench.glob("*.py"))
    assert len(modules) > 1
    outside = {
        f"{path.name}: {name}"
        for path in modules
        for name in _modules_imported(path)
        if name not in KERNEL | {"reconciler.testing"}
    }
    assert sorted(outside) == []
