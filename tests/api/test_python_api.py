"""The Python face alone, against a real `orgctl serve`: no command line is involved.
examples/hq is loaded, planned, applied, planned again (empty), checked for drift and
reported on, the portal exported, in the sync forms and in the async ones."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from reconciler import api
from reconciler.api import (
    Connection,
    Credentials,
    ManifestError,
    StalePlan,
    UserError,
    load,
)
from reconciler.apply.lock import LockError

from .conftest import EXAMPLES

HQ = EXAMPLES / "hq"


def test_sync_calls_converge_hq_and_print_nothing(
    hq: Connection, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    manifests = load(HQ, hq)
    plan = api.plan_sync(manifests, hq)
    assert plan.changes and plan.calls and not plan.errors
    assert plan.manifests == HQ.as_posix()

    applied = api.apply_sync(manifests, plan, hq)
    assert applied.result is not None and applied.result.ok
    assert applied.converged, applied.after
    assert [c.seq for c in applied.plan.calls] == [c.seq for c in plan.calls]

    again = api.plan_sync(manifests, hq)
    assert again.empty and not again.errors
    drift = api.drift_sync(manifests, hq)
    assert not drift.drifted and not drift.plan.errors

    report = api.access_sync(manifests, hq)
    members = {m["username"]: m for m in report.document["members"]}
    assert {"alice", "bob", "erin"} <= set(members)
    assert members["alice"]["role"] == "Field Analyst"
    assert report.left_out == ()

    exported = api.export_sync(hq.variables["ORGCTL_PORTAL_URL"], hq, name="hq")
    texts = {f.name: f.text for f in exported.files}
    assert "portal.yaml" in texts and "Field Analyst" in "".join(texts.values())
    # What export returns, written out, describes the portal: a plan of it is empty.
    exported.write(tmp_path / "exported")
    assert api.plan_sync(load(tmp_path / "exported", hq), hq).empty

    examined = api.doctor_sync(manifests, hq)
    assert examined.report.exit_code in (0, 2), examined.report
    # A library prints nothing: each result is the caller's to show.
    assert capfd.readouterr() == ("", "")


def test_async_calls_converge_hq(hq: Connection) -> None:
    async def main() -> None:
        manifests = load(HQ, hq)
        plan = await api.plan(manifests, hq)
        applied = await api.apply(manifests, plan, hq, parallelism=4)
        assert applied.converged
        assert (await api.plan(manifests, hq)).empty
        assert not (await api.drift(manifests, hq)).drifted
        # Several calls at once in one loop: nothing is shared between them.
        report, examined = await asyncio.gather(
            api.access(manifests, hq), api.doctor_url(hq.variables["ORGCTL_PORTAL_URL"], hq)
        )
        assert report.document["members"]
        assert examined.report.exit_code in (0, 2)
        exported = await api.export(hq.variables["ORGCTL_PORTAL_URL"], hq)
        assert exported.counts["Role"] >= 2

    asyncio.run(main())


def test_a_plan_made_stale_is_refused_and_nothing_is_sent(hq: Connection) -> None:
    manifests = load(HQ, hq)
    plan = api.plan_sync(manifests, hq)
    assert api.apply_sync(manifests, plan, hq).converged
    # The plan was applied already: the portal is no longer what it was made on.
    with pytest.raises(StalePlan):
        api.apply_sync(manifests, plan, hq)


def test_failures_are_raised_as_user_errors(hq: Connection, tmp_path: Path) -> None:
    broken = tmp_path / "portal.yaml"
    broken.write_text("apiVersion: orgctl/v1\nkind: Portal\nmetadata: {name: x}\nspec: {}\n")
    with pytest.raises(ManifestError) as caught:
        load(tmp_path, hq)
    assert any(line.startswith(f"{broken}:") for line in caught.value.lines), caught.value.lines

    wrong = Connection.of(
        Credentials(username="admin", password="not-the-password"),
        portal_url=hq.variables["ORGCTL_PORTAL_URL"],
    )
    with pytest.raises(UserError) as refused:
        api.plan_sync(load(HQ, wrong), wrong)
    assert "not-the-password" not in str(refused.value)


def test_credentials_are_one_kind_and_never_shown() -> None:
    with pytest.raises(UserError):
        Credentials()
    with pytest.raises(UserError):
        Credentials(token="t", username="u", password="p")
    shown = repr(Credentials(username="u", password="secret-pass"))
    assert "secret-pass" not in shown
    assert "secret-tok" not in repr(Connection.of(Credentials(token="secret-tok")))


def test_an_apply_held_open_locks_another_out(hq: Connection) -> None:
    async def main() -> None:
        manifests = load(HQ, hq)
        async with api.Applying(manifests, hq) as applying:
            await applying.lock()
            plan = await applying.plan()
            with pytest.raises(LockError):
                await api.apply(manifests, plan, hq)
            result = await applying.send(plan)
            assert result.ok
            assert (await applying.plan()).empty
        assert applying.lease is None
        # Given back: the next apply takes the lock and finds nothing to send.
        assert (await api.apply(manifests, await api.plan(manifests, hq), hq)).converged

    asyncio.run(main())


def test_the_process_environment_is_never_read(
    hq: Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Variables that would send the commands elsewhere, as someone else: the API is
    # given its connection, and reads none of them.
    monkeypatch.setenv("ORGCTL_PORTAL_URL", "http://127.0.0.1:9/nowhere/sharing/rest")
    monkeypatch.setenv("ORGCTL_USERNAME", "nobody")
    monkeypatch.setenv("ORGCTL_PASSWORD", "nothing")
    monkeypatch.setenv("ORGCTL_TRUSTED_ORIGINS", "https://elsewhere.example.com")
    manifests = load(HQ, hq)
    assert manifests.desired.portal.url == hq.variables["ORGCTL_PORTAL_URL"]
    plan = api.plan_sync(manifests, hq)
    assert plan.calls and not plan.errors
