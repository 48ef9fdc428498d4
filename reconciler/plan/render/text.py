"""Terraform-like terminal output; colour (rich) only when asked, for a TTY."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from reconciler.plan.model import Action, Plan
from reconciler.plan.render import Mode
from reconciler.plan.render.lines import (
    address_line,
    call_line,
    field_lines,
    problem_line,
    summary_line,
)

STYLES = {Action.CREATE: "green", Action.UPDATE: "yellow", Action.DELETE: "red"}

Line = tuple[str, str | None]  # text and its rich style


def _lines(plan: Plan, mode: Mode) -> list[Line]:
    out: list[Line] = []
    if mode == "drift" and plan.changes:
        out.append(("Differences from the manifests (live → desired):", "bold"))
    for change in plan.changes:
        style = STYLES[change.action]
        out.append((f"  {address_line(change)}", style))
        out.extend((f"      {line}", None) for line in field_lines(change))
    if plan.changes:
        out.append(("", None))
    for title, problems, style in (
        ("Errors:", plan.errors, "bold red"),
        ("Warnings:", plan.warnings, "yellow"),
    ):
        if problems:
            out.append((title, style))
            out.extend((f"  - {problem_line(p)}", style) for p in problems)
            out.append(("", None))
    out.append((summary_line(plan, mode), "bold"))
    if mode == "plan" and plan.calls:
        out.append(("", None))
        out.append(("Calls, in order:", "bold"))
        out.extend((f"  {call_line(call)}", None) for call in plan.calls)
    return out


def render_text(plan: Plan, mode: Mode = "plan", *, color: bool = False) -> str:
    lines = _lines(plan, mode)
    if not color:
        return "".join(text + "\n" for text, _ in lines)
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=True, color_system="standard", width=10_000, highlight=False
    )
    for text, style in lines:
        console.print(Text(text, style=style or ""), soft_wrap=True)
    return buffer.getvalue()
