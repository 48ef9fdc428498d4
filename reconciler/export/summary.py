"""What an export wrote, and what it left out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ExportSummary:
    folder: Path
    roles: int = 0
    members: int = 0
    collaborations: int = 0
    workspaces: int = 0
    webhookSettings: bool = False
    files: tuple[Path, ...] = ()
    # Live facts the manifest format cannot express, or that could not be read.
    notes: tuple[str, ...] = field(default=())

    @property
    def counts(self) -> dict[str, int]:
        """Documents written, per manifest kind."""
        return {
            "Portal": 1,
            "Role": self.roles,
            "Members": 1 if self.members else 0,
            "Collaboration": self.collaborations,
            "WebhookSettings": int(self.webhookSettings),
        }

    def sentence(self) -> str:
        """`Exported 12 roles, 240 members, 1 collaboration (2 workspaces), webhook settings
        to DIR.`"""
        parts = [_count(self.roles, "role"), _count(self.members, "member")]
        collaborations = _count(self.collaborations, "collaboration")
        if self.collaborations:
            collaborations += f" ({_count(self.workspaces, 'workspace')})"
        parts.append(collaborations)
        if self.webhookSettings:
            parts.append("webhook settings")
        return f"Exported {', '.join(parts)} to {self.folder}."


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
