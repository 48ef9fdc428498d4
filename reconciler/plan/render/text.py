"""Terraform-like terminal output; colour (rich) only when asked, for a TTY."""

from __future__ import annotations

import io
from collections import Counter

from rich.console import Console
from rich.text import Text

from reconciler.plan.model import Action, Plan, PlanProblem
from reconciler.plan.render import Mode
from reconciler.plan.render.lines import (
    IGNORED_TITLE,
    address_line,
    call_line,
    field_lines,
    grant_lines,
    ignored_line,
    information_line,
    kind_counts,
    problem_line,
    riskiest_first,
    summary_line,
)
from reconciler.shown import safe

STYLES = {Action.CREATE: "green", Action.UPDATE: "yellow", Action.DELETE: "red"}

Line = tuple[str, str | None]  # text and its rich style


# Beyond this many lines the summary (and any errors) are repeated at the end, where a
# terminal leaves the reader; a short plan is read whole anyway.
LONG = 40


def _lines(plan: Plan, mode: Mode) -> list[Line]:
    """Summary and errors first; then the changes, warnings and (only for a plan that can
    be applied) the calls; the errors and summary again at the end of a long output."""
    summary: Line = (summary_line(plan, mode), "bold")
    information = information_line(plan, mode)
    noted: list[Line] = [(information, None)] if information else []
    grants = grant_lines(plan)
    noted += [*((line, "yellow") for line in grants), ("", None)] if grants else []
    if plan.empty and not plan.errors and not plan.warnings and not plan.ignored:
        return [summary, *noted]
    errors = _problems("Errors:", plan.errors, "bold red")
    warnings = _problems("Warnings:", plan.warnings, "yellow")
    body = _changes(plan, mode) + _ignored(plan) + warnings + noted
    if mode == "plan" and plan.calls and not plan.errors:
        body += [("Calls, in order:", "bold")]
        body += [(f"  {call_line(call)}", None) for call in plan.calls]
        body += [("", None)]
    out = [summary, ("", None), *errors, *body]
    if len(out) > LONG:
        # Where the reader is left (apply asks for confirmation right below): what the
        # thousands of lines above add up to, per kind.
        out += [*errors, *_by_kind(plan, mode), summary]
    elif plan.errors:
        out += [summary]
    while out[-1] == ("", None):
        out.pop()
    return out


def _changes(plan: Plan, mode: Mode) -> list[Line]:
    out: list[Line] = []
    if mode == "drift" and plan.changes:
        out.append(("Differences from the manifests (live → desired):", "bold"))
    # A drift report, riskiest first: an administrative grant made outside Git leads.
    changes = riskiest_first(plan.changes) if mode == "drift" else plan.changes
    for change in changes:
        style = STYLES[change.action]
        out.append((f"  {address_line(change)}", style))
        out.extend((f"      {line}", None) for line in field_lines(change, mode))
    return [*out, ("", None)] if out else out


def _by_kind(plan: Plan, mode: Mode) -> list[Line]:
    """Per kind: how many to create, update and delete, and (a plan) the calls."""
    rows = kind_counts(plan.changes)
    if not rows:
        return []
    calls: Counter[str] = Counter(c.address.split("/", 1)[0] for c in plan.calls)
    with_calls = mode == "plan" and not plan.errors
    totals = {action: sum(counts[action] for counts in rows.values()) for action in Action}
    width = max(len("all"), *(len(safe(kind)) for kind in rows))

    def row(kind: str, counts: dict[Action, int], call_count: int) -> Line:
        cells = "".join(f"{counts[action]:>8}" for action in Action)
        return (f"  {kind:<{width}}{cells}" + (f"{call_count:>8}" if with_calls else ""), None)

    head = f"  {'kind':<{width}}  create  update  delete" + ("   calls" if with_calls else "")
    return [
        ("By kind:", "bold"),
        (head, None),
        *(row(safe(kind), counts, calls[kind]) for kind, counts in rows.items()),
        row("all", totals, len(plan.calls)),
        ("", None),
    ]


def _ignored(plan: Plan) -> list[Line]:
    if not plan.ignored:
        return []
    return [
        (IGNORED_TITLE, "bold"),
        *((f"  {ignored_line(i)}", None) for i in plan.ignored),
        ("", None),
    ]


def _problems(title: str, problems: tuple[PlanProblem, ...], style: str) -> list[Line]:
    if not problems:
        return []
    return [(title, style), *((f"  - {problem_line(p)}", style) for p in problems), ("", None)]


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
