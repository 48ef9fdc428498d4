"""Sortable, filterable tables: the markup the page's script works on.

A table is `<table class="data" id=ID>` with a button in each header (click to sort) and
a search box `ID-filter` above it (type to hide the rows that do not hold every word);
both work from the DOM alone. A long table shows its first `SHOWN` rows (of those that
match) and a button `ID-more` to show them all. A cell's `data-sort` (a number, a date)
orders it where its text would not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO

from reconciler.html.page import SHOWN, Markup, text


@dataclass(frozen=True, slots=True)
class Column:
    title: str
    numeric: bool = False
    vertical: bool = False  # a narrow column under a long name (the matrix's privileges)
    css: str = ""


@dataclass(frozen=True, slots=True)
class Cell:
    markup: Markup
    sort: str | None = None
    css: str = ""

    def html(self) -> str:
        css = f' class="{self.css}"' if self.css else ""
        sort = f' data-sort="{text(self.sort)}"' if self.sort is not None else ""
        return f"<td{css}{sort}>{self.markup}</td>"


def cell(value: object, css: str = "", sort: object | None = None) -> Cell:
    """A cell showing `value` as text."""
    return Cell(text(value), None if sort is None else str(sort), css)


def number(value: int | None) -> Cell:
    """A count, right-aligned; an unknown one empty and sorted first."""
    if value is None:
        return Cell(Markup(""), "-1", "num")
    return Cell(text(f"{value:,}"), str(value), "num")


class Ids:
    """Ids unique within one page: `prefix-1`, `prefix-2`, ..."""

    def __init__(self) -> None:
        self._count = 0

    def next(self, prefix: str = "t") -> str:
        self._count += 1
        return f"{prefix}{self._count}"


def table(
    ident: str,
    label: str,
    columns: Sequence[Column],
    rows: Iterable[Sequence[Cell]],
    empty: str = "None.",
) -> Markup:
    """The filter box, the row count and the table; `empty` in their place without rows.
    `ident` is made here (`Ids`), never from data."""
    body = list(_rows(rows))
    if not body:
        return Markup(f'<p class="muted">{text(empty)}</p>')
    opening, closing = _frame(ident, label, columns, len(body))
    return Markup(opening + "\n".join(body) + closing)


def write_table(
    out: IO[str],
    count: int,
    ident: str,
    label: str,
    columns: Sequence[Column],
    rows: Iterable[Sequence[Cell]],
    empty: str = "None.",
) -> None:
    """`table` written row by row to `out`, for tables too long to hold as one string;
    `count` is how many rows `rows` gives."""
    if not count:
        out.write(f'<p class="muted">{text(empty)}</p>')
        return
    opening, closing = _frame(ident, label, columns, count)
    out.write(opening)
    for index, row in enumerate(_rows(rows)):
        out.write(f"\n{row}" if index else row)
    out.write(closing)


def _rows(rows: Iterable[Sequence[Cell]]) -> Iterator[str]:
    for index, row in enumerate(rows):
        opening = "<tr>" if index < SHOWN else "<tr hidden>"
        yield opening + "".join(c.html() for c in row) + "</tr>"


def _frame(ident: str, label: str, columns: Sequence[Column], count: int) -> tuple[str, str]:
    shown = f"{count:,} row" + ("" if count == 1 else "s")
    more = ""
    if count > SHOWN:
        shown += f" (first {SHOWN:,} shown)"
        more = f'<button type="button" id="{ident}-more">Show all {count:,}</button>'
    opening = (
        '<div class="filter">'
        f'<input type="search" id="{ident}-filter" aria-label="Filter {text(label)}"'
        f' placeholder="Filter {text(label)}" autocomplete="off" spellcheck="false">'
        f'<span id="{ident}-count" class="muted" aria-live="polite">{shown}</span>{more}</div>\n'
        f'<div class="scroll"><table class="data" id="{ident}">'
        f"<thead><tr>{''.join(_head(c) for c in columns)}</tr></thead>\n<tbody>\n"
    )
    return opening, "\n</tbody></table></div>"


def _head(column: Column) -> str:
    classes = " ".join(
        c
        for c in (
            "num" if column.numeric else "",
            "vertical" if column.vertical else "",
            column.css,
        )
        if c
    )
    css = f' class="{classes}"' if classes else ""
    return f'<th scope="col"{css}><button type="button">{text(column.title)}</button></th>'
