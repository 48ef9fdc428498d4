"""A saved plan is data to check, not to trust: `apply --plan` re-plans, applies only when
the file agrees with that re-plan, and takes errors, guards and the prompt's counts from
the re-plan. Each row edits one field of a saved plan as someone with write access to
the file (or a careless merge) might."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .harness import DEMO_STATE, MANIFESTS, Serve, World, output_of, run_orgctl_on_a_terminal

pytestmark = pytest.mark.e2e

# Two role deletions against safety.maxDeletes: 1, and a member's role change.
DELETES = MANIFESTS / "deletes"

Document = dict[str, Any]
Edit = Callable[[Document], None]


def _delete_call(document: Document) -> Document:
    return next(c for c in document["calls"] if c["operation"] == "deleteRole")


def _hide_a_delete(document: Document) -> None:
    document["changes"] = [c for c in document["changes"] if c["action"] != "delete"]


def _swap_the_first_two_calls(document: Document) -> None:
    calls = document["calls"]
    calls[0], calls[1] = calls[1], calls[0]


def _point_a_delete_at_another_role(document: Document) -> None:
    call = _delete_call(document)
    call["url"] = call["url"].replace("/roles/", "/roles/x", 1)


def _change_a_param(document: Document) -> None:
    call = next(c for c in document["calls"] if c["params"])
    name = sorted(call["params"])[0]
    call["params"][name] = call["params"][name] + "x"


def _change_an_operation(document: Document) -> None:
    _delete_call(document)["operation"] = "updateRole"


def _drop_the_allowance(document: Document) -> None:
    del document["allowedDeletes"]


def _allow_one_delete_less(document: Document) -> None:
    document["allowedDeletes"] = document["allowedDeletes"][:1]


def _say_nothing_is_deleted(document: Document) -> None:
    document["summary"]["delete"] = 0


def _add_a_call_field(document: Document) -> None:
    document["calls"][0]["method"] = "GET"


def _add_an_error(document: Document) -> None:
    document["errors"] = [{"address": "Portal", "message": "do not apply"}]


def _drop_a_dependency(document: Document) -> None:
    next(c for c in document["calls"] if c["dependsOn"])["dependsOn"] = []


def _name_another_portal(document: Document) -> None:
    document["portal"]["portalId"] = "fedcba9876543210"


def _edit_the_fingerprint(document: Document) -> None:
    document["liveFingerprint"] = "sha256:" + "0" * 64


# (edit, the field the refusal must name)
REFUSED: dict[str, tuple[Edit, str]] = {
    "changes": (_hide_a_delete, "changes["),
    "order": (_swap_the_first_two_calls, "calls[0]"),
    "url": (_point_a_delete_at_another_role, ".url"),
    "params": (_change_a_param, ".params."),
    "operation": (_change_an_operation, "is not one of its operation, updateRole"),
    "method": (_add_a_call_field, "calls[0].method"),
    "summary": (_say_nothing_is_deleted, "summary.delete"),
    "allowance dropped": (_drop_the_allowance, "safety.maxDeletes"),
    "allowance narrowed": (_allow_one_delete_less, "allowedDeletes"),
    "fingerprint": (_edit_the_fingerprint, "liveFingerprint"),
    "errors": (_add_an_error, "errors[0] (Portal)"),
    "dependsOn": (_drop_a_dependency, ".dependsOn[0]"),
    "portal": (_name_another_portal, "portal.portalId"),
}


def _saved(world: World, tmp_path: Path, *flags: str, manifests: Path = DELETES) -> Path:
    saved = tmp_path / "plan.json"
    world.orgctl("plan", manifests, "-o", saved, *flags, portal="hq")
    assert saved.is_file()
    return saved


def _edited(saved: Path, edit: Edit, name: str) -> Path:
    document = json.loads(saved.read_text())
    edit(document)
    path = saved.with_name(f"{name.replace(' ', '-')}.json")
    path.write_text(json.dumps(document, indent=2))
    return path


# A plan a guard stops (state, manifests, the guard's word): the delete limit, and the
# default administrator's role.
GUARDED = {
    "maxDeletes": ("rules", DELETES, "safety.maxDeletes"),
    "default administrator": (DEMO_STATE, MANIFESTS / "default-admin-role", "admin"),
}


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_a_plan_whose_errors_were_emptied_is_refused_by_the_guard_again(
    serve: Serve, tmp_path: Path, name: str
) -> None:
    state, manifests, guard = GUARDED[name]
    world = serve(state)
    saved = _saved(world, tmp_path, manifests=manifests)  # the plan holds the guard's error
    document = json.loads(saved.read_text())
    assert document["errors"] and document["calls"], document
    document["errors"] = []
    saved.write_text(json.dumps(document))
    api = world.api("hq")
    before = api.snapshot()

    refused = world.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert refused.returncode == 1, output_of(refused)
    assert "the plan file's errors do not say so" in refused.stderr, output_of(refused)
    assert guard in refused.stderr, output_of(refused)
    assert "Traceback" not in refused.stdout + refused.stderr
    assert api.snapshot() == before


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_saved_plan_edited_in_one_field_is_refused_naming_it(
    serve: Serve, tmp_path: Path, name: str
) -> None:
    world = serve("rules")
    saved = _saved(world, tmp_path, "--allow-deletes")
    assert json.loads(saved.read_text())["allowedDeletes"] == [
        "Role/Legacy Viewer",
        "Role/Old Role",
    ]
    edit, field = REFUSED[name]
    api = world.api("hq")
    before = api.snapshot()

    refused = world.orgctl(
        "apply", "--plan", _edited(saved, edit, name), "--auto-approve", portal="hq"
    )
    assert refused.returncode == 1, output_of(refused)
    assert field in refused.stderr, output_of(refused)
    assert "Traceback" not in refused.stdout + refused.stderr
    assert api.snapshot() == before


def test_edits_outside_what_is_sent_apply_exactly_what_a_fresh_plan_would(
    serve: Serve, tmp_path: Path
) -> None:
    world = serve("rules")
    saved = _saved(world, tmp_path, "--allow-deletes")
    document = json.loads(saved.read_text())
    document["warnings"] = [{"address": "Portal", "message": "all is well"}]
    saved.write_text(json.dumps(document))

    applied = world.orgctl("apply", "--plan", saved, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    assert "all is well" not in applied.stdout, output_of(applied)
    roles = world.api("hq").roles()
    assert "Legacy Viewer" not in roles and "Old Role" not in roles
    fresh = world.orgctl("plan", DELETES, "--allow-deletes", "--detailed-exitcode", portal="hq")
    assert fresh.returncode == 0, output_of(fresh)


def test_the_prompt_counts_the_deletions_of_the_re_plan(serve: Serve, tmp_path: Path) -> None:
    world = serve("rules")
    saved = _saved(world, tmp_path, "--allow-deletes")
    args = ["apply", "--plan", str(saved)]
    code, output = run_orgctl_on_a_terminal(args, world.env("hq"), "no", world.workdir)
    assert code == 1, output
    assert "1 to update, 2 to delete" in output, output
    assert "This deletes 2: Role/Legacy Viewer, Role/Old Role." in output, output
