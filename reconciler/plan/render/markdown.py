"""A pull-request comment: heading, summary table, problems, changes and calls folded.

GitHub rejects a comment above 65,536 characters; the body stays under `LIMIT`, leaving
out the changes and calls that do not fit and saying how many.
"""

from __future__ import annotations

from reconciler.plan.model import Plan
from reconciler.plan.render import Mode
from reconciler.plan.render.lines import (
    SIGNS,
    address_line,
    call_line,
    field_lines,
    summary_line,
)
from reconciler.shown import longest_backtick_run, safe

LIMIT = 65_000
# Room kept for the closing fences and the note on what was left out.
RESERVE = 400


def _head(plan: Plan, mode: Mode, limit: int) -> list[str]:
    counts = plan.summary()
    title = "orgctl drift" if mode == "drift" else "orgctl plan"
    out = [
        f"## {title}: {safe(plan.portal.url)}",
        "",
        f"**{summary_line(plan, mode)}**",
        "",
        "| create | update | delete | calls | errors |",
        "|---:|---:|---:|---:|---:|",
        f"| {counts['create']} | {counts['update']} | {counts['delete']} | "
        f"{counts['calls'] if mode == 'plan' else 0} | {len(plan.errors)} |",
        "",
    ]
    for title, problems in (("Errors", plan.errors), ("Warnings", plan.warnings)):
        if problems:
            out.append(f"### {title}")
            items = [f"- {_code(safe(p.address))}: {safe(p.message)}" for p in problems]
            out.extend(_capped(items, limit // 4))
            out.append("")
    return out


def _code(text: str) -> str:
    """`text` as inline code that its own backticks cannot end."""
    ticks = "`" * (longest_backtick_run(text) + 1)
    return f"{ticks} {text} {ticks}" if ticks != "`" else f"`{text}`"


def _capped(items: list[str], room: int) -> list[str]:
    """As many items as fit in `room` characters, then how many more there are."""
    shown: list[str] = []
    for item in items:
        room -= len(item) + 1
        if room < 0:
            shown.append(f"- … and {len(items) - len(shown)} more")
            break
        shown.append(item)
    return shown


def _change_blocks(plan: Plan) -> list[str]:
    blocks = []
    for change in plan.changes:
        lines = [address_line(change)]
        lines.extend(f"{SIGNS[change.action]}     {line}" for line in field_lines(change))
        blocks.append("\n".join(lines))
    return blocks


def render_markdown(plan: Plan, mode: Mode = "plan", *, limit: int = LIMIT) -> str:
    parts = _head(plan, mode, limit)
    sections = [("Changes", "diff", _change_blocks(plan))]
    if mode == "plan":
        sections.append(("Calls", "text", [call_line(c) for c in plan.calls]))
    sections = [s for s in sections if s[2]]
    budget = limit - RESERVE - sum(len(p) + 1 for p in parts)
    omitted: dict[str, int] = {}
    for index, (title, fence, items) in enumerate(sections):
        # A fence longer than any run of backticks inside cannot be closed from within.
        ticks = "`" * max(3, 1 + max((longest_backtick_run(i) for i in items), default=0))
        opening = [f"<details><summary>{title} ({len(items)})</summary>", "", f"{ticks}{fence}"]
        closing = [ticks, "", "</details>", ""]
        budget -= sum(len(p) + 1 for p in opening + closing)
        # Each section may take an equal share of what is left, so the changes cannot
        # crowd the calls out entirely; what a section leaves unused passes on.
        share = budget // (len(sections) - index)
        shown: list[str] = []
        for item in items:
            if len(item) + 1 > share:
                break
            shown.append(item)
            share -= len(item) + 1
            budget -= len(item) + 1
        if len(shown) < len(items):
            omitted[title.lower()] = len(items) - len(shown)
        parts.extend(opening + shown + closing)
    if omitted:
        left_out = " and ".join(f"{n} {what}" for what, n in omitted.items())
        parts.append(
            f"> **Truncated:** {left_out} left out to fit a comment; "
            "run `orgctl plan` for the full plan."
        )
        parts.append("")
    return "\n".join(parts)
