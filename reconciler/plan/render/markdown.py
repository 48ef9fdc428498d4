"""A pull-request comment: heading, summary table, problems, changes and calls folded.

GitHub rejects a comment above 65,536 characters; the body stays under `LIMIT`, leaving
out the changes and calls that do not fit and saying how many.
"""

from __future__ import annotations

from reconciler.plan.model import Action, Plan
from reconciler.plan.render import Mode
from reconciler.plan.render.lines import (
    RISK_ORDER,
    call_line,
    compact_line,
    grant_lines,
    hunks,
    information_line,
    kind_counts,
    riskiest_first,
    summary_line,
)
from reconciler.shown import inline_code, longest_backtick_run, markdown_text, safe

LIMIT = 65_000
# Room kept for the closing fences and the note on what was left out (per kind).
RESERVE = 1_200


def heading(plan: Plan, mode: Mode) -> str:
    title = "orgctl drift" if mode == "drift" else "orgctl plan"
    return f"## {title}: {inline_code(safe(plan.portal.url))}"


def _listed(address: str, message: str) -> str:
    # The message quotes names a pull request's author chooses: prose, never markup.
    return f"- {inline_code(safe(address))}: {markdown_text(message)}"


def head_lines(plan: Plan, mode: Mode, limit: int) -> list[str]:
    """The heading, summary, table of kinds, errors and warnings (each list capped to a
    quarter of `limit`)."""
    out = [
        heading(plan, mode),
        "",
        f"**{summary_line(plan, mode)}**",
        "",
        *_kind_table(plan, mode),
    ]
    information = information_line(plan, mode)
    if information:
        out += [information, ""]
    grants = grant_lines(plan)
    if grants:
        out += [*map(markdown_text, grants), ""]
    for title, problems in (("Errors", plan.errors), ("Warnings", plan.warnings)):
        if problems:
            out.append(f"### {title}")
            items = [_listed(p.address, p.message) for p in problems]
            out.extend(_capped(items, limit // 4))
            out.append("")
    if plan.ignored:
        out += ["### Ignored by the manifests' ignore rules (neither changed nor drift)", ""]
        items = [_listed(i.address, i.what) for i in plan.ignored]
        out.extend(_capped(items, limit // 4))
        out.append("")
    return out


def _kind_table(plan: Plan, mode: Mode) -> list[str]:
    """Per kind of resource: how many are created, updated and deleted; then the totals
    with the calls, errors and warnings."""
    if not plan.changes:
        return []
    summary = plan.summary()
    calls = summary["calls"] if mode == "plan" else 0
    lines = ["| kind | create | update | delete |", "|---|---:|---:|---:|"]
    for kind, counts in kind_counts(plan.changes).items():
        cells = " | ".join(str(counts[a]) for a in (Action.CREATE, Action.UPDATE, Action.DELETE))
        lines.append(f"| {safe(kind)} | {cells} |")
    lines.append(f"| **all** | {summary['create']} | {summary['update']} | {summary['delete']} |")
    problems = f"{len(plan.errors)} error(s), {len(plan.warnings)} warning(s)"
    return [*lines, "", f"{calls} call(s); {problems}." if mode == "plan" else problems, ""]


def fence_for(items: list[str]) -> str:
    """A fence longer than any run of backticks inside, so none can close it from within."""
    return "`" * max(3, 1 + max((longest_backtick_run(i) for i in items), default=0))


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


def _change_blocks(plan: Plan, mode: Mode, room: int) -> list[str]:
    """Each change with its fields' values, or, when those do not fit in `room`
    characters, each change in one line (the plan JSON holds the values)."""
    blocks = full_blocks(plan, mode)
    if sum(len(b) + 1 for b in blocks) <= room:
        return blocks
    return [compact_line(change, mode) for change in riskiest_first(plan.changes)]


def full_blocks(plan: Plan, mode: Mode = "plan") -> list[str]:
    """Each change, riskiest first, with its fields' values as a diff hunk."""
    blocks = []
    for hunk in hunks(plan, mode):
        # An update's own line is a hunk header (`@@`), coloured but neither + nor -.
        head = f"@@ {hunk.head} @@" if hunk.change.action is Action.UPDATE else hunk.head
        blocks.append("\n".join([head, *hunk.lines]))
    return blocks


def render_markdown(plan: Plan, mode: Mode = "plan", *, limit: int = LIMIT) -> str:
    """The comment: every change that fits, riskiest first, before any call (the calls
    of a plan with errors are not shown: nothing can be applied)."""
    parts = head_lines(plan, mode, limit)
    room = limit - RESERVE - sum(len(p) + 1 for p in parts)
    sections = [("Changes", "diff", _change_blocks(plan, mode, room))]
    if mode == "plan" and not plan.errors:
        sections.append(("Calls", "text", [call_line(c) for c in plan.calls]))
    budget = limit - RESERVE - sum(len(p) + 1 for p in parts)
    omitted: dict[str, int] = {}
    for title, fence, items in (s for s in sections if s[2]):
        ticks = fence_for(items)
        opening = [f"<details><summary>{title} ({len(items)})</summary>", "", f"{ticks}{fence}"]
        if title == "Changes":
            opening[0] = f"<details open><summary>{title} ({len(items)})</summary>"
        closing = [ticks, "", "</details>", ""]
        budget -= sum(len(p) + 1 for p in opening + closing)
        shown: list[str] = []
        for item in items:
            if len(item) + 1 > budget:
                break
            shown.append(item)
            budget -= len(item) + 1
        if len(shown) < len(items):
            omitted[title.lower()] = len(items) - len(shown)
        if shown:
            parts.extend(opening + shown + closing)
    if omitted:
        parts += [_truncation_note(plan, omitted), ""]
    return "\n".join(parts)


def _truncation_note(plan: Plan, omitted: dict[str, int]) -> str:
    """What the cut left out, per kind, and how to see everything."""
    what = []
    if "changes" in omitted:
        left = riskiest_first(plan.changes)[-omitted["changes"] :]
        per_kind = "; ".join(
            f"{safe(kind)}: " + ", ".join(f"{n:,} to {a.value}" for a, n in counts.items() if n)
            for kind, counts in kind_counts(left).items()
        )
        what.append(f"{len(left):,} of {len(plan.changes):,} changes ({per_kind})")
    if "calls" in omitted:
        calls, total = omitted["calls"], len(plan.calls)
        what.append(f"all {total:,} calls" if calls == total else f"{calls:,} of {total:,} calls")
    return (
        f"> **Truncated to fit one comment:** left out {' and '.join(what)}. Changes are"
        f" kept riskiest first ({', '.join(RISK_ORDER)}), so the least risky went. To see"
        " everything, `orgctl plan --format markdown --split 60000` prints numbered parts"
        " of one comment each; the plan JSON (`-o plan.json`) holds every value."
    )
