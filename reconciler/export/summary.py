"""What an export wrote, and what it left out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ExportSummary:
    folder: Path
    counts: Mapping[str, int] = field(default_factory=dict)  # documents written, per kind
    phrases: tuple[str, ...] = ()  # what was exported, per kind: "12 roles", "240 members"
    files: tuple[Path, ...] = ()
    # Live facts the manifest format cannot express, or that could not be read.
    notes: tuple[str, ...] = field(default=())

    def sentence(self) -> str:
        """`Exported 12 roles, 240 members, 1 collaboration (2 workspaces), webhook settings
        to DIR.`"""
        return f"Exported {', '.join(self.phrases)} to {self.folder}."


def counted(number: int, noun: str) -> str:
    """`1 role`, `2 roles`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
