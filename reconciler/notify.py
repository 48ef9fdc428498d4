"""A one-line summary of a plan, apply or drift check posted to a chat incoming webhook.

Slack and Microsoft Teams incoming webhooks both accept `{"text": "..."}`. The summary
holds the command, the portal's name and URL, the counts and a link to the CI run when the
environment tells one (GitHub Actions, GitLab CI); never a credential. A webhook URL is
itself a secret (whoever has it can post), so messages name only its host. Notifying is a
side effect: a failure warns on stderr and never changes the command's outcome.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import click
import httpx

from reconciler.apply.result import ApplyResult
from reconciler.errors import UserError
from reconciler.live.urls import check_url
from reconciler.plan.model import Plan
from reconciler.settings import NOTIFY_URL, Settings

NOTIFY_ENV = NOTIFY_URL.name
TIMEOUT_SECONDS = 10.0


def run_link(env: Mapping[str, str]) -> str | None:
    """The CI run this command belongs to, when the CI says."""
    server, repository, run = (
        env.get("GITHUB_SERVER_URL"),
        env.get("GITHUB_REPOSITORY"),
        env.get("GITHUB_RUN_ID"),
    )
    if server and repository and run:
        return f"{server}/{repository}/actions/runs/{run}"
    return env.get("CI_JOB_URL") or None


def _counts(plan: Plan) -> str:
    summary = plan.summary()
    text = (
        f"{summary['create']} to create, {summary['update']} to update,"
        f" {summary['delete']} to delete, {summary['calls']} calls"
    )
    return text + (f", {len(plan.errors)} error(s)" if plan.errors else "")


def plan_text(plan: Plan) -> str:
    if plan.errors:
        return f"{plan.portal.url}: plan has errors: {_counts(plan)}"
    return f"{plan.portal.url}: " + ("no changes" if plan.empty else _counts(plan))


def drift_text(plan: Plan) -> str:
    differ = f"{len(plan.changes)} resource(s) differ from the manifests"
    # The finding a drift notice most needs to say: who holds administrative privileges
    # granted outside Git.
    granted = [c.address for c in plan.changes if c.administrative is not None]
    if granted:
        differ += (
            f"; administrative privileges granted on the portal, not in Git: {', '.join(granted)}"
        )
    if plan.errors:
        return f"{plan.portal.url}: drift check has {len(plan.errors)} error(s); {differ}"
    return f"{plan.portal.url}: " + (differ if plan.changes else "in sync, no drift")


def apply_text(url: str, result: ApplyResult | None, converged: bool) -> str:
    if result is None:
        return f"{url}: " + ("nothing to apply" if converged else "nothing applied")
    counts = result.counts()
    outcome = "converged" if converged else "NOT converged"
    stopped = "".join(f", {counts[s]} {s}" for s in ("not sent", "unknown") if s in counts)
    return (
        f"{url}: applied, {outcome}: {counts['done']} done, {counts['failed']} failed,"
        f" {counts['skipped']} skipped{stopped}"
    )


@dataclass(frozen=True, slots=True)
class Notifier:
    """Where to post (None: nowhere) and what names this run."""

    url: str | None
    command: str
    portal: str
    env: Mapping[str, str]

    @classmethod
    def create(cls, option: str | None, command: str, portal: str, given: Settings) -> Notifier:
        """`--notify` when given, else $ORGCTL_NOTIFY_URL."""
        return cls(option or given.notify_url, command, portal, given.environ)

    def message(self, summary: str) -> dict[str, str]:
        text = f"orgctl {self.command} {self.portal}: {summary}"
        link = run_link(self.env)
        return {"text": f"{text} ({link})" if link else text}

    @contextmanager
    def failures(self) -> Iterator[None]:
        """A user error (portal down, invalid manifests, stale plan) is told too, then
        raised as before."""
        try:
            yield
        except UserError as exc:
            self.send(f"failed: {exc}")
            raise

    def send(self, summary: str) -> None:
        if self.url is None:
            return
        try:
            host = check_url(self.url).host
        except UserError as exc:
            _warn(f"not notifying: the --notify URL is refused ({_without_url(exc, self.url)})")
            return
        try:
            reply = httpx.post(self.url, json=self.message(summary), timeout=TIMEOUT_SECONDS)
        except httpx.HTTPError as exc:
            _warn(f"could not notify {host}: {type(exc).__name__}")
            return
        if reply.status_code >= 300:
            _warn(f"could not notify {host}: HTTP {reply.status_code}")


def _without_url(exc: UserError, url: str) -> str:
    # The webhook URL carries its secret in the path: never repeat it.
    return str(exc).replace(url.split("?", 1)[0], "the URL")


def _warn(message: str) -> None:
    click.echo(f"Warning: {message}", err=True)
