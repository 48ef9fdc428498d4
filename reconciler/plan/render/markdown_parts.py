"""A plan too long for one comment, as numbered parts that together hold everything.

One comment (`markdown.py`) turns changes compact and leaves out what does not fit; a
reviewer of a 2,000-change plan then reads the JSON. `plan --split SIZE` instead cuts the
whole report (every error, every change with its values, every call) into parts of at
most SIZE characters, each opening with a marker `<!-- orgctl part I/N -->` that a CI
step splits on to post consecutive comments and update them in place. A code block cut by
a part is closed at its end and opened again, under the same heading, in the next part.
"""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.plan.model import Plan
from reconciler.plan.render import Mode
from reconciler.plan.render.lines import call_line
from reconciler.plan.render.markdown import fence_for, full_blocks, head_lines, heading

MARK = "<!-- orgctl part {index}/{count} -->"
# The smallest part that still holds a heading, a fence and a line of a change.
MIN_SIZE = 2_000
# Room in each part for the marker and the heading's "(part I of N)".
_PART_ROOM = 60
_CUT = " …(cut: the plan JSON holds the whole line)"


@dataclass(frozen=True, slots=True)
class _Section:
    title: str
    fence: str
    items: list[str]
    folded: bool

    def opening(self, continued: bool) -> list[str]:
        label = f"{self.title} ({len(self.items)}{', continued' if continued else ''})"
        details = "<details>" if self.folded else "<details open>"
        return [f"{details}<summary>{label}</summary>", "", f"{self.fence}{self.kind}"]

    @property
    def kind(self) -> str:
        return "diff" if self.title == "Changes" else "text"

    def closing(self) -> list[str]:
        return [self.fence, "", "</details>", ""]


def render_markdown_parts(plan: Plan, mode: Mode = "plan", *, size: int) -> list[str]:
    """The report in parts of at most `size` characters each, numbered and marked."""
    room = size - len(heading(plan, mode)) - _PART_ROOM
    head = head_lines(plan, mode, limit=10**12)[1:]  # every error; the heading is per part
    packer = _Packer(room)
    for line in head:
        packer.line(line)
    for section in _sections(plan, mode):
        packer.section(section)
    bodies = packer.finish()
    count = len(bodies)
    return [_part(plan, mode, index, count, body) for index, body in enumerate(bodies, 1)]


def _part(plan: Plan, mode: Mode, index: int, count: int, body: list[str]) -> str:
    title = heading(plan, mode) + (f" (part {index} of {count})" if count > 1 else "")
    return "\n".join([MARK.format(index=index, count=count), title, *body]) + "\n"


def _sections(plan: Plan, mode: Mode) -> list[_Section]:
    blocks = full_blocks(plan, mode)
    sections = [_Section("Changes", fence_for(blocks), blocks, folded=False)]
    if mode == "plan" and not plan.errors:
        calls = [call_line(c) for c in plan.calls]
        sections.append(_Section("Calls", fence_for(calls), calls, folded=True))
    return [s for s in sections if s.items]


class _Packer:
    """Fills parts line by line; a section's code block is closed before a part ends."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.parts: list[list[str]] = []
        self.current: list[str] = []
        self.size = 0

    def line(self, text: str) -> None:
        if self.size + len(text) + 1 > self.room:
            self._next_part()
        self._add([text])

    def section(self, section: _Section) -> None:
        overhead = _size(section.opening(True) + section.closing())
        inside = False
        for item in section.items:
            for piece in _pieces(item, self.room - overhead):
                if inside and self.size + len(piece) + 1 + _size(section.closing()) > self.room:
                    self._add(section.closing())
                    self._next_part()
                    inside = False
                if not inside:
                    if self.size + overhead + len(piece) + 1 > self.room:
                        self._next_part()
                    self._add(section.opening(continued=bool(self.parts) and self._began(section)))
                    inside = True
                self._add([piece])
        if inside:
            self._add(section.closing())

    def _began(self, section: _Section) -> bool:
        """Whether an earlier part already opened this section."""
        label = f"<summary>{section.title} ("
        return any(label in line for part in self.parts for line in part)

    def finish(self) -> list[list[str]]:
        if self.current or not self.parts:
            self.parts.append(self.current)
        return self.parts

    def _add(self, lines: list[str]) -> None:
        self.current.extend(lines)
        self.size += _size(lines)

    def _next_part(self) -> None:
        if self.current:
            self.parts.append(self.current)
        self.current, self.size = [], 0


def _pieces(item: str, room: int) -> list[str]:
    """The item whole when it fits, else cut between its lines (a line longer than a part
    is shortened: the plan JSON holds it)."""
    if len(item) + 1 <= room:
        return [item]
    pieces: list[str] = []
    current: list[str] = []
    for line in item.split("\n"):
        if len(line) + 1 > room:
            line = line[: room - len(_CUT) - 1] + _CUT
        if current and _size(current) + len(line) + 1 > room:
            pieces.append("\n".join(current))
            current = []
        current.append(line)
    pieces.append("\n".join(current))
    return pieces


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)
