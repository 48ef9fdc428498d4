"""No test binds a fixed port: one already taken (the README's tour holds 8080) fails the
test for a reason that has nothing to do with it, and two runs at once collide. Read from
the tests' source: `orgctl serve` is started with `--port 0`, a `--listen` address ends in
`:0`, and a socket binds port 0."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SKIPPED = ("node_modules",)


# Stands for an argument computed at run time (a port a test took from the system with
# bind(("127.0.0.1", 0)) and passes on): not a fixed port.
COMPUTED = "<computed>"


def strings(node: ast.AST) -> list[str]:
    """The string constants of a call's arguments, lists and tuples opened (in order); an
    argument computed at run time is `COMPUTED`, so what follows an option is its value."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.List | ast.Tuple | ast.Starred):
        inner = node.elts if not isinstance(node, ast.Starred) else [node.value]
        return [s for element in inner for s in strings(element)]
    return [COMPUTED]


def fixed_ports(source: str) -> Iterator[tuple[int, str]]:
    """(line, why) of each call in `source` that would bind a fixed port."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        words = [s for arg in node.args for s in strings(arg)]
        if "serve" in words and "--port" not in words and not _only_help(words):
            yield node.lineno, "orgctl serve without --port 0 binds 8080"
        for option in ("--port", "--listen"):
            if option in words[:-1]:
                value = words[words.index(option) + 1]
                if value != COMPUTED and value.rsplit(":", 1)[-1] != "0":
                    yield node.lineno, f"{option} {value}"
        if isinstance(node.func, ast.Attribute) and node.func.attr == "bind" and node.args:
            address = node.args[0]
            if isinstance(address, ast.Tuple) and len(address.elts) == 2:
                port = address.elts[1]
                if not (isinstance(port, ast.Constant) and port.value == 0):
                    yield node.lineno, f"bind to port {ast.unparse(port)}"


def _only_help(words: list[str]) -> bool:
    return "--help" in words or "-h" in words


def test_the_check_finds_each_kind_of_fixed_port() -> None:
    source = (
        'orgctl("serve", "--cert", "c.pem")\n'
        'run(["orgctl", "serve", "--port", "8080"])\n'
        'agent("agent", "--listen", "127.0.0.1:9464")\n'
        'probe.bind(("127.0.0.1", PORT))\n'
        'orgctl("serve", "--port", "0")\n'
        'probe.bind(("127.0.0.1", 0))\n'
        'orgctl("serve", "--help")\n'
    )
    assert [line for line, _ in fixed_ports(source)] == [1, 2, 3, 4]


def test_no_test_binds_a_fixed_port() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{line}: {why}"
        for path in sorted(TESTS.rglob("*.py"))
        if not any(part in SKIPPED for part in path.parts)
        for line, why in fixed_ports(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)
