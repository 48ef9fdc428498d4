"""Renderers of a `Plan` value: text (terminal), json (plan file), markdown (PR comment).

Each has a `mode`: "plan" shows changes and calls; "drift" shows only the changes, as
live (before) against desired (after). None of them walks the diff again.
"""

from __future__ import annotations

from typing import Literal

Mode = Literal["plan", "drift"]
