"""The registry of manifest kinds keeps a kind one module: a kind is registered once, a
kind lacking a part fails where it is built, the code outside reconciler/kinds/ names no
kind, and docs/adding-a-kind.md names every part."""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize
from pathlib import Path

import pytest

from reconciler import address_forms as forms
from reconciler import kind as registry
from reconciler.kind import AddressForm, Kind
from tests.kinds import portal_note

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reconciler"
PAGE = ROOT / "docs" / "adding-a-kind.md"


def test_a_kind_is_registered_once() -> None:
    role = registry.kind_named("Role")
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(role)


def test_a_kind_claiming_another_kinds_addresses_is_refused() -> None:
    thief = dataclasses.replace(portal_note.KIND, addresses=(AddressForm("Role", ("name",)),))
    with pytest.raises(ValueError, match="belong to another kind"):
        registry.register(thief)
    assert thief.name not in {k.name for k in registry.registered()}


def test_a_kind_lacking_a_part_fails_where_it_is_built() -> None:
    parts = {f.name: getattr(portal_note.KIND, f.name) for f in dataclasses.fields(Kind)}
    without_plan = {k: v for k, v in parts.items() if k != "plan"}
    with pytest.raises(TypeError, match="plan"):
        Kind(**without_plan)
    with pytest.raises(TypeError, match="lacks live"):
        Kind(**{**parts, "live": None})


def test_a_kinds_model_must_declare_the_kind() -> None:
    parts = {f.name: getattr(portal_note.KIND, f.name) for f in dataclasses.fields(Kind)}
    with pytest.raises(TypeError, match="declares kind"):
        Kind(**{**parts, "name": "Elsewhere"})


def test_an_address_is_built_from_its_form() -> None:
    workspace = AddressForm("Workspace", ("collaborationId", "workspaceId"))
    assert workspace.of("c1", "w/1") == "Workspace/c1/w/1"
    assert str(workspace) == "Workspace/<collaborationId>/<workspaceId>"
    with pytest.raises(ValueError):
        workspace.of("c1")


def _isinstance_on_kinds(path: Path, models: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance":
            names = {
                n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "")
                for n in ast.walk(node.args[1])
            }
            if names & models:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_isinstance_dispatch_on_manifest_kinds_outside_the_kinds() -> None:
    models = {kind.model.__name__ for kind in registry.registered()}
    outside = [p for p in PACKAGE.rglob("*.py") if "kinds" not in p.parts]
    assert [hit for p in outside for hit in _isinstance_on_kinds(p, models)] == []


def test_the_adding_a_kind_page_names_every_part() -> None:
    named = set(re.findall(r"^\| `(\w+)` \|", PAGE.read_text(encoding="utf-8"), re.MULTILINE))
    assert named == {f.name for f in dataclasses.fields(Kind)}


def _code(path: Path) -> str:
    """The module's code without comments and docstrings."""
    source = path.read_text(encoding="utf-8")
    docstrings = {
        node.body[0].lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return " ".join(
        t.string
        for t in tokens
        if t.type != tokenize.COMMENT
        and not (t.type == tokenize.STRING and t.start[0] in docstrings)
    )


# Where the webhook-settings kind is named outside the service: its own module, the
# kinds package's list of built-in kinds and the shared kernel (catalog's ranges,
# operations' row and read). Its state (a StateKey slot), reading, record, defaults and
# unread part are its module's; a kind named anywhere else is a kind no longer in one module.
SETTINGS_NAMED_IN = {
    "catalog.py",
    "operations.py",
    "kinds/__init__.py",
    "kinds/webhook_settings.py",
}
AT_MOST = 5  # issue 26: a kind is named in at most five modules of reconciler/


def test_the_webhook_settings_kind_is_named_only_where_listed() -> None:
    spelled = re.compile(r"webhook_?settings", re.IGNORECASE)
    named = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if spelled.search(_code(path))
    }
    assert named == SETTINGS_NAMED_IN
    assert len(named) <= AT_MOST


def _address_fstrings(path: Path, heads: set[str]) -> list[str]:
    """f-strings that start with a kind's address head and a slash (`f"Role/{name}"`):
    an address typed by hand instead of built from its form."""
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.JoinedStr) or not node.values:
            continue
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            head = first.value.split("/", 1)[0]
            if "/" in first.value and head in heads:
                found.append(f"{shown}:{node.lineno}: {head}/")
    return found


def test_addresses_outside_the_kinds_are_built_from_their_forms() -> None:
    heads = {form.head for kind in registry.registered() for form in kind.addresses}
    heads |= {forms.TASK.head}  # an unreadable task listing is named like a resource
    outside = [p for p in PACKAGE.rglob("*.py") if "kinds" not in p.parts]
    assert [hit for p in outside for hit in _address_fstrings(p, heads)] == []


def test_the_address_scan_sees_a_typed_address_and_nothing_else(tmp_path: Path) -> None:
    module = tmp_path / "typed.py"
    module.write_text(
        'user, n = "alice", 2\n'
        'a = f"Member/{user}"\n'  # an address: found
        'b = f"{n} Member/s"\n'  # starts with a value: not an address
        'c = f"Members: {n}"\n'  # a head without its slash
        'd = f"Rolex/{user}"\n',  # no kind's head
        encoding="utf-8",
    )
    found = _address_fstrings(module, {"Member", "Role"})
    assert [hit.rsplit(":", 2)[-2:] for hit in found] == [["2", " Member/"]]


# Where each of the three big kinds is named outside its own package: its type and
# address names as identifiers in code (text in strings, such as a command's example or a
# schema description, is not a dependency; an address spelled in an f-string is caught
# by the address test above), not counting the kernel (modules directly under
# reconciler/) and the report renderers (access/, html/). Listed where they still are, so
# the lists only shrink, and each is at most 3 modules.
KIND_NAMES = {
    "collaboration": {
        "Collaboration",
        "COLLABORATION",
        "Collaborations",
        "Workspace",
        "WORKSPACE",
        "Invitation",
        "INVITATION",
    },
    "role": {"Role", "ROLE", "Roles", "ROLES"},
    "members": {"Member", "MEMBER", "Members", "MEMBERS"},
}
NAMED_IN = {
    "collaboration": set[str](),
    # Members stand above roles: a role change's holders and its deletion's wait list.
    # The policies' variables are each member's and each role's effective access.
    "role": {"kinds/members/reach.py", "policy/variables.py"},
    # A certification campaign's items are members' access.
    "members": {"certify/evidence.py", "certify/items.py", "policy/variables.py"},
}
AT_MOST_NAMED = 3


def _identifiers(path: Path) -> set[str]:
    source = io.StringIO(path.read_text(encoding="utf-8")).readline
    return {t.string for t in tokenize.generate_tokens(source) if t.type == tokenize.NAME}


@pytest.mark.parametrize("kind", sorted(KIND_NAMES))
def test_a_kind_is_named_outside_its_package_only_where_listed(kind: str) -> None:
    named = set()
    for path in PACKAGE.rglob("*.py"):
        where = path.relative_to(PACKAGE).as_posix()
        if "/" not in where or where.startswith(("access/", "html/", f"kinds/{kind}/")):
            continue
        if _identifiers(path) & KIND_NAMES[kind]:
            named.add(where)
    assert named == NAMED_IN[kind]
    assert len(named) <= AT_MOST_NAMED
