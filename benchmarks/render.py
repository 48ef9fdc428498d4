"""Rendering a reviewer's plan (benchmarks/README.md): a 1,000-change plan in text,
Markdown (one comment, and parts for `--split`), JSON and HTML; text and Markdown under
0.2 s.

Run: .venv/bin/python benchmarks/render.py [--changes N]
The plan is benchmarks/plan_cpu.py's world: role description and privilege updates, new
roles and member role changes, about two calls a change.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from plan_cpu import world

import reconciler.kinds  # noqa: F401  (the built-in kinds, as the CLI loads them)
from reconciler.html import render_html
from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.plan.render.json import render_json
from reconciler.plan.render.markdown import render_markdown
from reconciler.plan.render.markdown_parts import render_markdown_parts
from reconciler.plan.render.text import render_text

GOAL_SECONDS = 0.2


def plan_of(changes: int) -> Plan:
    # 1,000 roles give 250 role changes; one member in ten changes role.
    desired, live = world(members=max(0, changes - 250) * 10, roles=1_000)
    return build_plan(desired, live, now=1_793_491_200)


def best_of(render: Callable[[], object], repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        render()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--changes", type=int, default=1_000)
    changes = parser.parse_args().changes
    plan = plan_of(changes)
    print(f"plan: {len(plan.changes):,} changes, {len(plan.calls):,} calls")
    renderers: list[tuple[str, Callable[[], object], bool]] = [
        ("text", lambda: render_text(plan), True),
        ("markdown", lambda: render_markdown(plan), True),
        ("markdown --split 65000", lambda: render_markdown_parts(plan, size=65_000), True),
        ("json", lambda: render_json(plan), False),
        ("html", lambda: render_html(plan), False),
    ]
    for name, render, goal in renderers:
        seconds = best_of(render)
        verdict = ("ok" if seconds < GOAL_SECONDS else "OVER GOAL") if goal else "-"
        print(f"{name:<24} best of 5: {seconds * 1000:7.1f} ms  (goal < 200 ms: {verdict})")


if __name__ == "__main__":
    main()
