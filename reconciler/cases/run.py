"""One Test document run: its own `orgctl serve` on the scenario's state, the manifests
(with the document's patches) planned by the real command line against it, and each
expectation compared with what the plan says. Nothing is mocked: the service is the
reference service, and plan and apply are `orgctl plan` and `orgctl apply`.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reconciler.cases.document import Case, Expectation
from reconciler.environment import url_variables
from reconciler.errors import UserError
from reconciler.live.credentials import portal_variables
from reconciler.manifest import loader, overlay
from reconciler.manifest.resolved import render
from reconciler.manifest.suggestions import did_you_mean
from reconciler.policy.builtin import BUILTINS
from reconciler.testing import env_with, orgctl

Json = dict[str, Any]
ADMINISTRATOR = "org_admin"
# A verdict that holds after the plan: the policy is violated.
_VIOLATED = ("introduced", "existing")


@dataclass(slots=True)
class Outcome:
    case: Case
    failures: list[str] = field(default_factory=list)  # each one difference, expected vs got
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return not self.failures


def run_case(case: Case) -> Outcome:
    started = time.monotonic()
    outcome = Outcome(case)
    with tempfile.TemporaryDirectory(prefix="orgctl-test-") as scratch:
        try:
            outcome.failures = _run(case, Path(scratch))
        except UserError as error:
            # A scenario that cannot run as written (a portal or member the state lacks,
            # a plan that printed no plan) fails with the reason, and the next one runs.
            outcome.failures = error.lines
    outcome.seconds = time.monotonic() - started
    return outcome


@dataclass(frozen=True, slots=True)
class _Setup:
    manifests: Path
    state: Path
    portal: str  # the Portal's metadata.name, which names its variables
    url_key: str  # the state's portal it is pointed at
    username: str
    password: str = field(repr=False)
    policies: frozenset[str]  # the names a verdict may carry: the folder's and the built-ins'


def _run(case: Case, scratch: Path) -> list[str]:
    setup = _prepared(case, scratch)
    problems = _unknown_policies(case.spec.expect, setup.policies)
    if problems:
        return problems
    with _service(case, scratch, setup.state) as url:
        env = _environment(setup, url)
        plan = _plan(setup.manifests, env)
        failures = list(_compared(case.spec.expect, plan))
        if case.spec.expect.converges:
            failures += _converges(setup.manifests, env)
    return failures


@contextlib.contextmanager
def _service(case: Case, scratch: Path, state: Path) -> Iterator[str]:
    """The scenario's own `orgctl serve` (the test bench's: a free loopback port, its
    ready line awaited), its root URL; stopped on leaving. A state it refuses fails the
    test with what it said, the inline state named by its document."""
    # Imported here: the service's test bench is needed only once a test runs.
    from orgctl_service.testing.service import Service

    service = Service(scratch / "service.sqlite", state, control=False)
    try:
        service.start()
    except RuntimeError:  # no ready line: the service said why and ended
        said = service.output.strip()
        if case.state_file() is None:  # written from the document: name the document
            said = said.replace(str(state), f"spec.state of {case.where}")
        raise UserError(
            f"orgctl serve did not start: {' | '.join(said.splitlines()[-5:])}"
        ) from None
    try:
        yield service.url
    finally:
        service.stop()


def _prepared(case: Case, scratch: Path) -> _Setup:
    state = case.state_file() or _written_state(case.spec.state, scratch)
    portal = _portal_of(_read_state(state), case.spec.portal)
    username, password = _member(portal, case.spec.as_)
    loaded = loader.load(case.manifests())
    if loaded.problems:
        raise UserError("the manifests do not validate: " + "; ".join(map(str, loaded.problems)))
    documents = loaded.resolved
    if case.patches:
        documents = _patched(documents, case.patches)
    name = next((str(d.name) for d in documents if d.kind == "Portal"), "")
    manifests = case.manifests()
    if case.patches:
        manifests = scratch / "manifests"
        manifests.mkdir()
        header = [f"{case.manifests().as_posix()} with the patches of {case.where}"]
        (manifests / "manifests.yaml").write_text(render(documents, header, False))
    declared = {str(d.name) for d in documents if d.kind == "Policy"}
    known = frozenset(declared | {p.name for p in BUILTINS})
    return _Setup(manifests, state, name, str(portal["urlKey"]), username, password, known)


def _environment(setup: _Setup, url: str) -> dict[str, str]:
    """This process's environment without its ORGCTL_* variables (no real portal's
    credentials or URLs reach a test), the Portal's URLs pointed at the service and the
    planning member's credentials under the portal's own names, which win over any other."""
    own = portal_variables(setup.portal)
    url_env, admin_env = url_variables(setup.portal)
    return env_with(
        **{
            url_env: f"{url}/{setup.url_key}/sharing/rest",
            admin_env: f"{url}/{setup.url_key}/admin",
            str(own.usernameEnv): setup.username,
            str(own.passwordEnv): setup.password,
        }
    )


def _patched(documents: list[Any], patches: list[Any]) -> list[Any]:
    """The manifests with the patches applied as an included folder's overlays are."""
    portal = [d for d in documents if d.kind == "Portal"]
    bases = [d for d in documents if d.kind != "Portal"]
    merged = overlay.merge(bases, [*portal, *patches])
    # Checked here, where each field still knows its file and line (the patch's in the
    # Test document), not by plan, which would name the temporary copy.
    problems = merged.problems + [p for d in merged.documents for p in loader.document_problems(d)]
    if problems:
        raise UserError("the patches do not apply: " + "; ".join(map(str, problems)))
    return merged.documents


def _written_state(state: str | Json, scratch: Path) -> Path:
    path = scratch / "state.yaml"
    path.write_text(yaml.safe_dump(state, sort_keys=False))
    return path


def _read_state(path: Path) -> Json:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise UserError(f"cannot read the state {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("portals"), list):
        raise UserError(f"the state {path} lists no portals")
    return data


def _portal_of(state: Json, wanted: str | None) -> Json:
    portals = {str(p.get("urlKey")): p for p in state["portals"] if isinstance(p, dict)}
    if wanted is None:
        if len(portals) != 1:
            raise UserError(f"the state holds {len(portals)} portals: name one with spec.portal")
        return next(iter(portals.values()))
    if wanted not in portals:
        hint = did_you_mean(wanted, sorted(portals))
        raise UserError(f"spec.portal: the state has no portal {wanted!r}{hint}")
    return portals[wanted]


def _member(portal: Json, wanted: str | None) -> tuple[str, str]:
    """The planning member and the password the state gives it."""
    users = [u for u in portal.get("users") or [] if isinstance(u, dict)]
    if wanted is None:
        chosen = next((u for u in users if u.get("role") == ADMINISTRATOR), None)
        if chosen is None:
            raise UserError(
                "the state's portal has no member holding org_admin: name one with spec.as"
            )
    else:
        chosen = next((u for u in users if u.get("username") == wanted), None)
        if chosen is None:
            names = sorted(str(u.get("username")) for u in users)
            raise UserError(
                f"spec.as: the state's portal has no member {wanted!r}{did_you_mean(wanted, names)}"
            )
    if not chosen.get("password"):
        raise UserError(f"the state gives {chosen.get('username')!r} no password")
    return str(chosen["username"]), str(chosen["password"])


def _unknown_policies(expect: Expectation, known: frozenset[str]) -> list[str]:
    named = [*expect.policies.violated, *expect.policies.notViolated] if expect.policies else []
    return [
        f"expect.policies: no policy {name!r}{did_you_mean(name, sorted(known))} in the manifests"
        for name in named
        if name not in known
    ]


def _orgctl(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    """The real command line, in this process with its own streams and environment (as
    a subprocess would have them): a plan costs a fraction of a new interpreter's start."""
    return orgctl(*args, env=env)


def _plan(manifests: Path, env: dict[str, str]) -> Json:
    done = _orgctl(env, "plan", manifests, "--format", "json")
    try:
        plan: Json = json.loads(done.stdout)
    except json.JSONDecodeError:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise UserError(
            f"plan printed no plan (exit {done.returncode}): " + " | ".join(said[-5:])
        ) from None
    return plan


def _compared(expect: Expectation, plan: Json) -> Iterator[str]:
    yield from _changes(expect.changes, [c["address"] for c in plan.get("changes", [])])
    yield from _errors(expect.errors, plan.get("errors", []))
    if expect.policies is not None:
        yield from _policies(expect.policies.violated, expect.policies.notViolated, plan)


def _changes(expected: int | list[str] | None, got: list[str]) -> Iterator[str]:
    if expected is None:
        return
    listed = ", ".join(got) or "none"
    if isinstance(expected, int):
        if expected != len(got):
            yield f"changes: expected {expected}, got {len(got)} ({listed})"
        return
    if sorted(expected) != sorted(got):
        missing = sorted(set(expected) - set(got))
        unexpected = sorted(set(got) - set(expected))
        parts = [f"missing {', '.join(missing)}"] if missing else []
        parts += [f"unexpected {', '.join(unexpected)}"] if unexpected else []
        shown = f"[{', '.join(expected)}], got [{', '.join(got)}]"
        yield f"changes: expected {shown} ({'; '.join(parts)})"


def _errors(expected: list[str] | None, errors: list[Json]) -> Iterator[str]:
    """Each expected substring in some error, and each error expected: an error the
    document does not list fails the test."""
    said = [f"{e.get('address')}: {e.get('message')}" for e in errors]
    listed = expected or []
    for part in listed:
        if not any(part in line for line in said):
            yield f"errors: expected one containing {part!r}, got {_listed(said)}"
    for line in said:
        if not any(part in line for part in listed):
            yield f"errors: unexpected plan error {line}"


def _policies(violated: list[str], clean: list[str], plan: Json) -> Iterator[str]:
    after: dict[str, list[str]] = {}
    for verdict in plan.get("policies", []):
        if verdict.get("status") in _VIOLATED:
            after.setdefault(str(verdict.get("policy")), []).append(str(verdict.get("subject")))
    for name in violated:
        if name not in after:
            yield f"policies.violated: expected {name} violated after the plan, got no violation"
    for name in clean:
        if name in after:
            got = _listed(after[name])
            yield f"policies.notViolated: expected no violation of {name}, got {got}"


def _converges(manifests: Path, env: dict[str, str]) -> list[str]:
    applied = _orgctl(env, "apply", manifests, "--auto-approve")
    if applied.returncode != 0:
        said = (applied.stderr.strip() or applied.stdout.strip()).splitlines()
        return [
            f"converges: expected apply to succeed, got exit {applied.returncode}: "
            + " | ".join(said[-5:])
        ]
    left = [c["address"] for c in _plan(manifests, env).get("changes", [])]
    if left:
        return [f"converges: expected an empty plan after apply, got {_listed(left)}"]
    return []


def _listed(values: list[str]) -> str:
    return "; ".join(values) if values else "none"
