"""What the doctor found: one `Finding` per fact, each with how much it matters.

The exit code follows the worst finding: 1 when orgctl cannot manage the portal as it is
(a `BLOCKER`: each says its fix), 2 when it can with differences from its model named
(`DIFFERENCE`), 0 otherwise (`NOTE`s and `OK`s only inform).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Severity(Enum):
    OK = "ok"
    NOTE = "note"
    DIFFERENCE = "difference"
    BLOCKER = "blocker"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)


class Check(Enum):
    """The checks in the order a report shows them."""

    REACH = "reachability"
    SIGN_IN = "sign-in"
    RELEASE = "release"
    CAPABILITIES = "capabilities"
    READS = "reads"
    PRIVILEGES = "privileges"
    LOCK = "apply lock"
    PLAN = "plan"


@dataclass(frozen=True, slots=True)
class Finding:
    check: Check
    severity: Severity
    message: str
    fix: str = ""  # what to do; every blocker has one

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "check": self.check.value,
            "severity": self.severity.value,
            "message": self.message,
        }
        if self.fix:
            found["fix"] = self.fix
        return found


EXIT_CODES = {Severity.BLOCKER: 1, Severity.DIFFERENCE: 2}


@dataclass(slots=True)
class Report:
    """Every finding of one portal, in the order the checks ran."""

    portal: str  # the Portal's name, or the URL asked with --portal-url
    url: str
    findings: list[Finding] = field(default_factory=list)
    release: str = ""  # what the portal runs, once read

    def add(self, check: Check, severity: Severity, message: str, fix: str = "") -> None:
        self.findings.append(Finding(check, severity, message, fix))

    def extend(self, found: Iterable[Finding]) -> None:
        self.findings.extend(found)

    def ordered(self) -> Iterator[Finding]:
        """Worst first, then by check, each check's findings in the order found."""
        order = list(Check)
        ranked = sorted(
            enumerate(self.findings),
            key=lambda pair: (-pair[1].severity.rank, order.index(pair[1].check), pair[0]),
        )
        return (finding for _, finding in ranked)

    @property
    def worst(self) -> Severity:
        return max((f.severity for f in self.findings), key=lambda s: s.rank, default=Severity.OK)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.worst, 0)

    @property
    def verdict(self) -> str:
        return {
            1: "orgctl cannot manage this portal as it is",
            2: "orgctl can manage this portal, with the differences below",
            0: "orgctl can manage this portal as it is",
        }[self.exit_code]

    def count(self, severity: Severity) -> int:
        return sum(f.severity is severity for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "portal": self.portal,
            "url": self.url,
            "release": self.release,
            "exitCode": self.exit_code,
            "verdict": self.verdict,
            "findings": [f.to_json() for f in self.ordered()],
        }
