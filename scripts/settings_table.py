"""Write the settings table (reconciler/settings.py) into the README, between its markers.

Run after changing a row: `python scripts/settings_table.py`. tests/test_settings.py fails
while the README's table and the settings table differ.
"""

from __future__ import annotations

import sys
from pathlib import Path

from reconciler.settings import README_END, README_START, markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"


def with_table(text: str) -> str:
    """`text` with what stands between the markers replaced by the table."""
    head, found, rest = text.partition(README_START)
    _, ended, tail = rest.partition(README_END)
    if not (found and ended):
        raise SystemExit(f"{README}: the markers of the settings table are missing")
    return f"{head}{README_START}\n{markdown_table()}{README_END}{tail}"


def main() -> int:
    README.write_text(with_table(README.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
