"""The package's imports run one way: from the kinds and the commands down to the kernel.

The graph is read from the source by AST, never by importing it. Every import counts as
an arrow wherever it stands: at the top of a module, inside a function (deferred in time,
but a dependency all the same, and the usual way to hide a cycle) and under
`TYPE_CHECKING` (never run, but a reader following a type walks it, and a cycle there is
a cycle of meaning). A relative import is resolved against its package. `lazy.exports`
names its homes by string, but only modules of its own package, so it draws no arrow
between packages.

A unit is a module directly under `reconciler/` or a package there (all its modules);
`LAYERS` puts each unit on a floor, the kernel at 0. An arrow may stay on its floor or go
down; one goes up, `UP` names it and says why, and the cycle it closes is the only one.
The kinds need none: the kernel's registry (`reconciler/kind.py`) is filled by
`reconciler/kinds/__init__.py`, which whoever stands above the kinds imports (the CLI's
group, the Python API, the suite's conftest), and the kernel refuses to be asked for
kinds before that.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reconciler"

KERNEL = 0
READ = 1  # the manifests read into desired state, the portal read into live state
ENGINE = 2  # what works on every kind: planning, export, adopt, reports, policies
KINDS = 3
RUNNERS = 4  # the steps the commands share: apply, workflow, doctor, certify, `orgctl test`
FACES = 5  # what a person or a program calls

LAYERS: Mapping[str, int] = {
    **dict.fromkeys(
        (
            "reconciler",
            "addresses",
            "address_forms",
            "catalog",
            "clock",
            "environment",
            "errors",
            "files",
            "jsontext",
            "kind",
            "lazy",
            "names",
            "operations",
            "processes",
            "runtime",
            "settings",
            "shown",
            "state",
            "text_rules",
            "values",
            "versions",
            "windows",
        ),
        KERNEL,
    ),
    **dict.fromkeys(("manifest", "live"), READ),
    **dict.fromkeys(("plan", "export", "adopt", "html", "access", "policy"), ENGINE),
    "kinds": KINDS,
    **dict.fromkeys(("apply", "workflow", "fleet", "notify", "doctor", "revision"), RUNNERS),
    **dict.fromkeys(("certify", "cases"), RUNNERS),
    **dict.fromkeys(("agent", "api", "cli", "testing", "__main__"), FACES),
}

# The one arrow up: `orgctl test` (reconciler/cases/) plans each scenario with the real
# command line in this process (reconciler/testing.py, which runs the CLI), because a
# plan costs a fraction of a new interpreter's start; the CLI's `test` command runs it.
UP = ("reconciler.cases.run", "reconciler.testing")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str, module: str, is_package: bool, known: set[str]) -> Iterator[str]:
    """The modules among `known` that the imports in `source` take names from: `from a
    import b` takes `a.b` when that is a module, else a name of `a` (a package's own
    `__init__`, which importing one of its modules runs anyway, is no arrow of that)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                anchor = here[: len(here) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base


def module_graph(root: Path = ROOT, *, allowed: bool = False) -> dict[str, set[str]]:
    """reconciler's modules, each with the modules of reconciler it imports (`allowed`:
    the arrow `UP` too; the cycle it closes is the one named there)."""
    paths = {module_name(p, root): p for p in (root / "reconciler").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        source = path.read_text(encoding="utf-8")
        targets = imported(source, name, path.name == "__init__.py", set(paths))
        graph[name] = {t for t in targets if t in paths and t != name}
    if not allowed and UP[1] in graph.get(UP[0], set()):
        graph[UP[0]] = graph[UP[0]] - {UP[1]}
    return graph


def unit(module: str) -> str:
    """`reconciler.plan.render.json` -> `plan`; `reconciler.state` -> `state`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def unit_graph(modules: Mapping[str, set[str]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for source, targets in modules.items():
        graph[unit(source)] |= {unit(t) for t in targets} - {unit(source)}
    return dict(graph)


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def arrows_up(modules: Mapping[str, set[str]]) -> list[str]:
    return sorted(
        f"{source} -> {target}"
        for source, targets in modules.items()
        for target in targets
        if LAYERS[unit(source)] < LAYERS[unit(target)]
    )


def test_the_reading_sees_every_way_of_importing() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from reconciler import state\n"
        "from . import loader\n"
        "from ..plan.draft import Draft\n"
        "if TYPE_CHECKING:\n"
        "    from reconciler.live.client import PortalClient\n"
        "def later():\n"
        "    import reconciler.kinds\n"
    )
    known = {"reconciler.state", "reconciler.manifest.loader", "reconciler.plan.draft"}
    found = set(imported(source, "reconciler.manifest.rules", False, known))
    assert found == {
        "typing",
        "reconciler.state",
        "reconciler.manifest.loader",
        "reconciler.plan.draft",
        "reconciler.live.client",
        "reconciler.kinds",
    }


def test_the_cycle_finder_finds_a_loop_and_only_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_every_unit_stands_on_a_floor() -> None:
    """A new module or package under reconciler/ is placed in LAYERS before it lands."""
    units = {unit(m) for m in module_graph()}
    assert sorted(units - set(LAYERS)) == []


def test_no_module_imports_itself_back() -> None:
    assert cycles(module_graph()) == []


def test_no_package_imports_itself_back() -> None:
    assert cycles(unit_graph(module_graph())) == []


def test_one_named_arrow_runs_up() -> None:
    assert arrows_up(module_graph(allowed=True)) == [" -> ".join(UP)]


def test_a_kind_imports_only_below_itself() -> None:
    """A kind module uses the kernel, the reading and the engine, and another kind's
    module (Members plans against Role's), never the kinds' face, which loads them all,
    nor anything that runs kinds."""
    modules = module_graph()
    above = {
        f"{source} -> {target}"
        for source, targets in modules.items()
        if unit(source) == "kinds" and source != "reconciler.kinds"
        for target in targets
        if LAYERS[unit(target)] > KINDS or target == "reconciler.kinds"
    }
    assert sorted(above) == []
    assert any(unit(m) == "kinds" for m in modules)


def test_the_kinds_are_loaded_by_whoever_stands_above_them() -> None:
    """The kernel cannot import the kinds (they import the engine, which imports the
    kernel), so a caller that never imported `reconciler.kinds` is told so at its first
    question, not handed a portal with no kinds; the CLI loads them for every command."""
    asked = "from reconciler.kind import registered\nregistered()"
    refused = subprocess.run(
        [sys.executable, "-c", asked], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert refused.returncode == 1
    assert "import reconciler.kinds" in refused.stderr
    loaded = subprocess.run(
        [sys.executable, "-c", f"import reconciler.kinds\n{asked}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr
    cli = module_graph()["reconciler.cli"]
    assert "reconciler.kinds" in cli


def test_the_readme_states_the_floors_this_test_holds() -> None:
    """The head of the README's Development section names every unit above the kernel,
    so the rule a reader is given is the one kept here."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    head = text[text.index("## Development") : text.index("`make test` runs")]
    packages = {name for name in LAYERS if (PACKAGE / name).is_dir()}
    spelled = {
        name: f"`{name}/`" if name in packages else f"`{name}.py`"
        for name, floor in LAYERS.items()
        if floor > KERNEL and name not in ("testing", "__main__")
    }
    assert sorted(name for name, shown in spelled.items() if shown not in head) == []
    assert "tests/test_import_graph.py" in head
