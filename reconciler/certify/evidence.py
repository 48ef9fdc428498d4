"""The evidence bundle of a closed campaign (`evidence/<campaign>.json`): the scope
snapshot, every decision with its reviewer and commit time, the remediation plan, and
later the apply journal, each with its SHA-256, the whole optionally signed.

Each decision also carries its own SHA-256, so a bundle whose decision was edited names
that decision; a bundle whose digests were all made again after the edit still fails
its signature.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reconciler.certify import signing
from reconciler.certify.digests import canonical, sha256
from reconciler.certify.items import PENDING
from reconciler.clock import moment
from reconciler.errors import UserError
from reconciler.kinds.forms import MEMBER
from reconciler.operations import OperationName

Json = dict[str, Any]
FORMAT_VERSION = 1
BUNDLE = "orgctl-certification"
PARTS = ("scope", "decisions", "remediation", "journal")


def outcome(decision: str, no_response: str) -> str:
    """What becomes of an item: its decision, or the campaign's noResponse if pending."""
    return no_response if decision == PENDING else decision


def remediation(scope: Json, decisions: Sequence[Json]) -> Json:
    """The changes the revocations make: each revoked member moved to revokeTo (its
    level kept when revokeTo names none); a member already there needs no change."""
    to = scope["revokeTo"]
    reviewed = {item["member"]: item for item in scope["items"]}
    changes = []
    for decision in decisions:
        if decision["outcome"] != "revoke":
            continue
        item = reviewed[decision["member"]]
        before = {"role": item["role"], "level": item["level"]}
        after = {"role": to["role"], "level": to.get("level") or item["level"]}
        if before != after:
            member = decision["member"]
            changes.append({"address": MEMBER.of(member), "before": before, "after": after})
    return {"revokeTo": to, "changes": changes}


def sealed(decision: Json) -> Json:
    """A decision with its own SHA-256."""
    body = {k: v for k, v in decision.items() if k != "sha256"}
    return {**body, "sha256": sha256(body)}


def bundle(scope: Json, decisions: list[Json], closed_at: str, remedy: Json) -> Json:
    found: Json = {
        "formatVersion": FORMAT_VERSION,
        "bundle": BUNDLE,
        "campaign": scope["campaign"],
        "closedAt": closed_at,
        "scope": scope,
        "decisions": [sealed(d) for d in decisions],
        "remediation": remedy,
        "journal": None,
    }
    return digested(found)


def digested(found: Json) -> Json:
    """The bundle with the SHA-256 of each part (none is signed: signing comes last)."""
    digests = {part: sha256(found[part]) for part in PARTS if found.get(part) is not None}
    return {**{k: v for k, v in found.items() if k != "signature"}, "digests": digests}


def signed(found: Json, key: Path) -> Json:
    unsigned = {k: v for k, v in found.items() if k != "signature"}
    signature = signing.sign(canonical(unsigned), key)
    fingerprint = signing.fingerprint(signature)
    return {
        **unsigned,
        "signature": {
            "namespace": signing.NAMESPACE,
            "fingerprint": fingerprint,
            "ssh": signature,
        },
    }


def with_journal(found: Json, journal: Path) -> Json:
    """The bundle with the apply journal (its JSON lines, as written) attached."""
    try:
        lines = [json.loads(line) for line in journal.read_text("utf-8").splitlines() if line]
    except (OSError, ValueError) as exc:
        raise UserError(f"{journal}: not an apply journal ({exc})") from None
    return digested({**found, "journal": {"file": journal.name, "lines": lines}})


# --- reading and verifying -----------------------------------------------------------------


def read_bundle(path: Path) -> Json:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: cannot be read as JSON ({exc})") from None
    if not isinstance(found, dict) or found.get("bundle") != BUNDLE:
        raise UserError(f"{path}: not an orgctl certification evidence bundle")
    if found.get("formatVersion") != FORMAT_VERSION:
        raise UserError(f"{path}: bundle format {found.get('formatVersion')!r} is not known")
    return found


def write_bundle(path: Path, found: Json) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Verdict:
    failures: list[str]  # what does not hold, each naming its part or item
    fingerprint: str | None  # the signer's key, when signed and good


def verify(found: Json, allowed: Path | None, require_applied: bool) -> Verdict:
    failures = _digests(found)
    failures += _decided(found)
    if require_applied:
        failures += _applied(found)
    fingerprint, why = _signature(found, allowed)
    if why is not None:
        failures.append(why)
    return Verdict(failures, fingerprint)


def _digests(found: Json) -> list[str]:
    failures = []
    scope = found.get("scope") or {}
    body = {k: v for k, v in scope.items() if k != "digest"}
    if sha256(body) != scope.get("digest"):
        failures.append("scope: the snapshot's digest does not match: the scope was changed")
    for decision in found.get("decisions") or ():
        if sealed(decision)["sha256"] != decision.get("sha256"):
            failures.append(
                f"decision of {MEMBER.of(str(decision.get('member')))} (reviewer"
                f" {decision.get('reviewer')}) was changed: its SHA-256 does not match"
            )
    digests = found.get("digests") or {}
    for part in PARTS:
        if found.get(part) is None and part not in digests:
            continue
        if sha256(found.get(part)) != digests.get(part):
            failures.append(f"{part}: its SHA-256 does not match the bundle's digests")
    return failures


def _decided(found: Json) -> list[str]:
    """Every item in scope has one decision, made by its reviewer, or is remediated
    under noResponse after the due time; the remediation is exactly the revocations."""
    scope = found["scope"]
    by_member = {d.get("member"): d for d in found.get("decisions") or ()}
    closed = moment(found.get("closedAt"))
    late = closed is not None and closed >= _due(scope)
    failures = []
    for item in scope.get("items") or ():
        address = MEMBER.of(item["member"])
        decision = by_member.get(item["member"])
        if decision is None:
            failures.append(f"{address}: in scope, and no decision")
        elif decision.get("reviewer") != item["reviewer"]:
            failures.append(f"{address}: decided by {decision.get('reviewer')}, not its reviewer")
        elif decision.get("decision") == PENDING and not late:
            failures.append(f"{address}: pending, and the campaign closed before its due time")
        elif decision.get("outcome") != outcome(decision["decision"], scope["noResponse"]):
            failures.append(f"{address}: its outcome does not follow its decision")
    if set(by_member) - {item["member"] for item in scope.get("items") or ()}:
        failures.append("decisions: some are for members outside the scope")
    expected = remediation(scope, list(by_member.values()))["changes"]
    if expected != (found.get("remediation") or {}).get("changes"):
        failures.append("remediation: its changes are not the revocations decided")
    return failures


def _due(scope: Json) -> dt.datetime:
    due = moment(scope.get("due"))
    return due if due is not None else dt.datetime.max.replace(tzinfo=dt.UTC)


def _applied(found: Json) -> list[str]:
    """Each change of the remediation was carried out by the attached journal."""
    journal = found.get("journal")
    if journal is None:
        return ["journal: none attached (orgctl certify attach BUNDLE --journal FILE)"]
    done = {
        (line.get("address"), line.get("operation"))
        for line in journal.get("lines") or ()
        if line.get("event") == "done"
    }
    failures = []
    for change in found["remediation"]["changes"]:
        before, after = change["before"], change["after"]
        needed = []
        if before["role"] != after["role"]:
            needed.append(OperationName.UPDATE_USER_ROLE)
        if before["level"] != after["level"]:
            needed.append(OperationName.UPDATE_USER_LEVEL)
        for operation in needed:
            if (change["address"], str(operation)) not in done:
                failures.append(f"{change['address']}: the journal carried out no {operation}")
    return failures


def _signature(found: Json, allowed: Path | None) -> tuple[str | None, str | None]:
    """The signer's fingerprint and why the signature fails (None: it holds)."""
    signature = found.get("signature")
    if signature is None:
        return None, ("signature: none, and --allowed-signers asks for one" if allowed else None)
    payload = canonical({k: v for k, v in found.items() if k != "signature"})
    fingerprint = signing.fingerprint(str(signature.get("ssh")))
    why = signing.verify(payload, str(signature.get("ssh")), allowed)
    if why is not None:
        return fingerprint, f"signature: does not verify ({why})"
    return fingerprint, None
