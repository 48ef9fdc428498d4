"""Errors a user can cause and fix. The CLI prints them as one clear message and exits 1.

Anything else is a bug and keeps its traceback (shown with --debug).
"""

from __future__ import annotations


class UserError(Exception):
    """A problem in the user's input, environment or target portal, told in one message."""

    exit_code = 1


class ManifestError(UserError):
    """The manifests are invalid; `problems` holds one line per problem, file:line first."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))
