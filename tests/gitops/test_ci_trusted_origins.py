"""A pull request cannot take a portal's credentials: with ORGCTL_TRUSTED_ORIGINS naming
the real portals (each bound to its name), a branch whose manifests point a portal at
another host, or give a dev portal's folder prod's name, gets an error in its plan comment,
and the other host receives no request at all. Run end to end: the shipped workflows and
`ci/orgctl_ci.py plan`, the real CLI, `orgctl serve`, and a catcher on loopback."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.catcher import Catcher
from tests.e2e.harness import EXAMPLES, World
from tests.gitops.ci_runner import GitHubRun, GitLabPipeline, Pipeline, Sandbox
from tests.gitops.fake_hosting import Hosting
from tests.gitops.test_ci_steps import HEAD, PR, REQUIREMENT, WORKFLOWS, sandbox, secrets

pytestmark = pytest.mark.e2e

DEV_PASSWORD = "dev-Reader-Pw-93731"


@pytest.fixture
def elsewhere() -> Iterator[Catcher]:
    with Catcher() as caught:
        yield caught


def set_portal(box: Sandbox, folder: str, old: str, new: str) -> None:
    """The branch's change to portals/<folder>/portal.yaml."""
    portal = box.repo / "portals" / folder / "portal.yaml"
    text = portal.read_text()
    assert old in text, text
    portal.write_text(text.replace(old, new))


def pull_request(
    box: Sandbox, hosting: Hosting, world: World, trusted: str, run_id: int = 1
) -> Pipeline:
    return GitHubRun(
        WORKFLOWS / "orgctl-pull-request.yml",
        box,
        hosting,
        {"pull_request": {"number": PR, "head": {"sha": HEAD}, "base": {"sha": box.base}}},
        HEAD,
        {
            **secrets(world),
            "ORGCTL_DEV_USERNAME_READ": "reader",
            "ORGCTL_DEV_PASSWORD_READ": DEV_PASSWORD,
        },
        {"ORGCTL_REQUIREMENT": REQUIREMENT, "ORGCTL_TRUSTED_ORIGINS": trusted},
        run_id,
    ).run()


def comment(hosting: Hosting, name: str) -> str:
    [body] = [b for b in hosting.bodies(PR) if b.startswith(f"<!-- orgctl-plan:{name}:")]
    return body


def test_a_portal_pointed_at_another_host_is_refused_and_that_host_gets_nothing(
    world: World, hosting: Hosting, elsewhere: Catcher, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, world.service.url, "hq", "cloud")
    real = world.service.url
    set_portal(box, "hq", f"url: {real}/hq/", f"url: {elsewhere.origin}/hq/")
    run = pull_request(box, hosting, world, f"hq={real},cloud={real}")
    assert [j.split("'name': '")[1].split("'")[0] for j in run.failed_jobs] == ["hq"], run.log()
    said = comment(hosting, "hq")
    assert f"refusing to send credentials to {elsewhere.origin}" in said, said
    assert "portals/hq/portal.yaml:" in said and "ORGCTL_TRUSTED_ORIGINS" in said
    assert "**Plan: " in comment(hosting, "cloud")  # the other portal is planned as before
    assert elsewhere.caught == [], "the other host received a request"


def claim_prod(tmp_path: Path, world: World, dev: Catcher) -> Sandbox:
    """Base: portals/hq (prod, the real portal) and portals/dev (a portal on dev's own
    host). The branch gives dev's folder the name hq, and hq's folder another name."""
    box = sandbox(tmp_path, world.service.url, "hq")
    shutil.copytree(EXAMPLES / "cloud", box.repo / "portals" / "dev")
    set_portal(box, "dev", "name: cloud", "name: hq")
    set_portal(box, "dev", "http://127.0.0.1:8080", dev.origin)
    set_portal(box, "hq", "name: hq", "name: hq-old")
    return box


def test_a_dev_folder_claiming_prods_name_gets_no_prod_credentials(
    world: World, hosting: Hosting, elsewhere: Catcher, tmp_path: Path
) -> None:
    dev, real = elsewhere, world.service.url
    box = claim_prod(tmp_path, world, dev)
    run = pull_request(box, hosting, world, f"hq={real},dev={dev.origin}")
    assert len(run.failed_jobs) == 2, run.log()
    said = comment(hosting, "hq")  # the job named hq plans portals/dev
    assert f"refusing to send credentials to {dev.origin}" in said, said
    assert f"trusted for portal 'hq': {real}" in said and "portals/dev/portal.yaml:" in said
    # No secret holds a read-only account for the new name: nothing is even signed in.
    assert "no read-only credentials for hq-old" in comment(hosting, "hq-old")
    assert dev.caught == [], "dev's host received a request"


def test_plain_origins_do_not_plan_a_pull_request(
    world: World, hosting: Hosting, elsewhere: Catcher, tmp_path: Path
) -> None:
    """Two plain origins would let the branch above send prod's secrets to dev's host:
    the script asks for NAME=origin entries instead, and sends nothing."""
    box = claim_prod(tmp_path, world, elsewhere)
    for run_id, trusted in enumerate((f"{world.service.url},{elsewhere.origin}", ""), 1):
        run = pull_request(box, hosting, world, trusted, run_id)
        assert len(run.failed_jobs) == 2, run.log()
        said = comment(hosting, "hq")
        assert ("without a portal name" if trusted else "is not set") in said, said
    assert elsewhere.caught == []


def test_gitlab_a_dev_folder_claiming_prods_name_gets_no_prod_credentials(
    world: World, hosting: Hosting, elsewhere: Catcher, tmp_path: Path
) -> None:
    """GitLab hands every job every variable: each job still gets its own portal's."""
    dev, real = elsewhere, world.service.url
    box = claim_prod(tmp_path, world, dev)
    variables = {
        **secrets(world),
        "ORGCTL_DEV_USERNAME_READ": "reader",
        "ORGCTL_DEV_PASSWORD_READ": DEV_PASSWORD,
        "ORGCTL_REQUIREMENT": REQUIREMENT,
        "ORGCTL_TRUSTED_ORIGINS": f"hq={real},dev={dev.origin}",
    }
    pipeline = GitLabPipeline(
        box, hosting, ["hq", "dev"], "merge_request_event", HEAD, variables, merge_request=PR
    ).run()
    assert "plan: [hq]" in pipeline.failed_jobs and "plan: [dev]" in pipeline.failed_jobs
    assert dev.caught == [], "dev's host received a request"
