"""Arrows run one way: the test suite imports the package and its test bench, never the
other way round. The benchmarks, the scripts and the package measure and ship what they
hold themselves, so none of them may import `tests` (a benchmark that did would break
when the suite is reorganized, and would not run where the suite is not installed)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOT_TESTS = ("benchmarks", "scripts", "reconciler", "orgctl_service")


def imported_roots(source: str) -> set[str]:
    """The first part of each module an absolute import names, wherever it stands
    (inside a function too); relative imports stay within their own package."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def _importers_of_tests(folder: str) -> list[str]:
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"no Python files under {folder}/"
    return [
        str(path.relative_to(ROOT))
        for path in files
        if "tests" in imported_roots(path.read_text(encoding="utf-8"))
    ]


def test_the_scan_sees_each_way_of_importing_the_suite() -> None:
    assert imported_roots("from tests.service.harness import Api") == {"tests"}
    assert imported_roots("import tests.cli") == {"tests"}
    assert imported_roots("def f():\n    from tests import cli\n") == {"tests"}
    assert imported_roots("from .tests import x\nfrom orgctl_service import testing") == {
        "orgctl_service"
    }


def test_no_benchmark_imports_the_test_suite() -> None:
    assert _importers_of_tests("benchmarks") == []


def test_nothing_outside_the_suite_imports_it() -> None:
    importers = [name for folder in NOT_TESTS for name in _importers_of_tests(folder)]
    assert importers == []
