"""ORGCTL_TRUSTED_ORIGINS: with it set, a manifest (or an environment override) that points
a portal anywhere else gets an error naming the origin, the Portal document and the
variable, and the other host receives no request at all; loopback is not exempt. In CI
without it, plan, apply and drift say once that credentials follow the manifests."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli import env_with

from .catcher import Catcher
from .harness import ADMIN, EXAMPLES, MANIFESTS, Serve, World, output_of

pytestmark = pytest.mark.e2e

WARNING = "ORGCTL_TRUSTED_ORIGINS is not set"


@pytest.fixture
def world(serve: Serve) -> World:
    return serve("secrets")


@pytest.fixture
def catcher() -> Iterator[Catcher]:
    with Catcher() as caught:
        yield caught


def manifests(tmp_path: Path, url: str, admin_url: str, name: str = "hq") -> Path:
    """tests/e2e/manifests/secrets with the Portal's URLs (and name) replaced."""
    folder = tmp_path / "manifests"
    shutil.copytree(MANIFESTS / "secrets", folder)
    portal = folder / "portal.yaml"
    text = portal.read_text().replace("name: hq", f"name: {name}")
    text = text.replace("http://127.0.0.1:8080/hq/sharing/rest", url)
    portal.write_text(text.replace("http://127.0.0.1:8080/hq/admin", admin_url))
    return folder


def commands(folder: Path) -> list[list[str]]:
    return [
        ["plan", str(folder)],
        ["apply", str(folder), "--auto-approve"],
        ["drift", str(folder)],
        ["access", str(folder)],
    ]


# Which URL points at the other host: in the manifest, or in the environment over it.
CASES = {
    "spec.url": ("manifest-url", {}),
    "spec.adminUrl": ("manifest-admin", {}),
    "ORGCTL_PORTAL_URL": ("env", {"ORGCTL_PORTAL_URL": "{other}/hq/sharing/rest"}),
    "ORGCTL_ADMIN_URL": ("env", {"ORGCTL_ADMIN_URL": "{other}/hq/admin"}),
    "ORGCTL_HQ_PORTAL_URL": ("env", {"ORGCTL_HQ_PORTAL_URL": "{other}/hq/sharing/rest"}),
    "ORGCTL_HQ_ADMIN_URL": ("env", {"ORGCTL_HQ_ADMIN_URL": "{other}/hq/admin"}),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_url_outside_the_trusted_origins_is_refused_before_any_request(
    world: World, catcher: Catcher, tmp_path: Path, case: str
) -> None:
    where, overrides = CASES[case]
    real, other = world.service.url, catcher.origin
    url = f"{other if where == 'manifest-url' else real}/hq/sharing/rest"
    admin = f"{other if where == 'manifest-admin' else real}/hq/admin"
    folder = manifests(tmp_path, url, admin)
    env = env_with(
        ORGCTL_USERNAME=ADMIN[0],
        ORGCTL_PASSWORD="Vq8-xyzzy-Plugh-4417",
        ORGCTL_TRUSTED_ORIGINS=real,  # the real portal, on loopback too
        **{k: v.format(other=other) for k, v in overrides.items()},
    )
    for args in commands(folder):
        result = world.orgctl(*args, portal="hq", env=env)
        assert result.returncode == 1, output_of(result)
        said = result.stderr
        assert f"refusing to send credentials to {other}" in said, output_of(result)
        assert "ORGCTL_TRUSTED_ORIGINS" in said and f"trusted: {real}" in said, said
        assert f"{folder / 'portal.yaml'}:1" in said, said  # the Portal document, file:line
        if where == "env":
            assert f"{case}, set over the spec." in said, said
        assert "Traceback" not in said
    assert catcher.caught == [], "the other host received a request"


def test_the_trusted_portal_is_planned_and_applied_as_before(world: World, tmp_path: Path) -> None:
    real = world.service.url
    folder = manifests(tmp_path, f"{real}/hq/sharing/rest", f"{real}/hq/admin")
    for trusted in (real, f"hq={real}/", f" https://gis.example.com , {real}"):
        env = env_with(
            ORGCTL_USERNAME=ADMIN[0],
            ORGCTL_PASSWORD="Vq8-xyzzy-Plugh-4417",
            ORGCTL_TRUSTED_ORIGINS=trusted,
        )
        result = world.orgctl("plan", folder, portal="hq", env=env)
        assert result.returncode == 0, output_of(result)
    applied = world.orgctl("apply", folder, "--auto-approve", portal="hq", env=env)
    assert applied.returncode == 0, output_of(applied)


def test_an_origin_bound_to_one_portal_is_refused_to_a_portal_claiming_its_name(
    world: World, catcher: Catcher, tmp_path: Path
) -> None:
    """`hq=<real>,dev=<other>`: a Portal named hq whose URL is dev's host gets an error and
    dev's host nothing; a Portal named dev may talk to its own host."""
    real, dev = world.service.url, catcher.origin
    env = env_with(
        ORGCTL_HQ_USERNAME=ADMIN[0],
        ORGCTL_HQ_PASSWORD="Vq8-xyzzy-Plugh-4417",
        ORGCTL_TRUSTED_ORIGINS=f"hq={real},dev={dev}",
    )
    claimed = manifests(tmp_path / "claim", f"{dev}/dev/sharing/rest", f"{dev}/dev/admin")
    result = world.orgctl("plan", claimed, portal="hq", env=env)
    assert result.returncode == 1, output_of(result)
    assert f"refusing to send credentials to {dev}" in result.stderr
    assert f"trusted for portal 'hq': {real}" in result.stderr, result.stderr
    assert f"add hq={dev} to ORGCTL_TRUSTED_ORIGINS" in result.stderr
    assert catcher.caught == []

    own = manifests(tmp_path / "own", f"{dev}/dev/sharing/rest", f"{dev}/dev/admin", "dev")
    env = {**env, "ORGCTL_DEV_USERNAME": "admin", "ORGCTL_DEV_PASSWORD": "dev-pass"}
    result = world.orgctl("plan", own, portal="hq", env=env)
    assert result.returncode == 1  # the catcher is no portal, but it was asked
    assert [c.path.split("?")[0] for c in catcher.caught] == ["/dev/sharing/rest/generateToken"]


def test_an_entry_that_is_not_an_origin_is_an_error(world: World, tmp_path: Path) -> None:
    real = world.service.url
    folder = manifests(tmp_path, f"{real}/hq/sharing/rest", f"{real}/hq/admin")
    for wrong in (f"{real}/hq/sharing/rest", "gis.example.com", "ftp://gis.example.com"):
        env = env_with(ORGCTL_USERNAME="admin", ORGCTL_PASSWORD="x", ORGCTL_TRUSTED_ORIGINS=wrong)
        result = world.orgctl("plan", folder, portal="hq", env=env)
        assert result.returncode == 1, output_of(result)
        assert f"ORGCTL_TRUSTED_ORIGINS: {wrong!r} is not an origin" in result.stderr


def test_in_ci_without_trusted_origins_plan_apply_and_drift_warn_once(demo: World) -> None:
    world = demo
    fleet = world.workdir / "fleet"  # includes stay inside the repository (the cwd)
    shutil.copytree(EXAMPLES / "fleet", fleet)
    variables = {
        f"ORGCTL_FLEET_{name.upper()}_{kind}_URL": f"{world.service.url}/{name}/{path}"
        for name in ("hq", "field", "cloud")
        for kind, path in (("PORTAL", "sharing/rest"), ("ADMIN", "admin"))
    }
    plain = env_with(ORGCTL_USERNAME=ADMIN[0], ORGCTL_PASSWORD=ADMIN[1], **variables)
    runs = [
        ["plan", str(fleet)],  # three portals, one process: still one warning
        ["plan", str(fleet / "hq")],
        ["apply", str(fleet / "hq"), "--dry-run"],
        ["drift", str(fleet / "hq")],
    ]
    for args in runs:
        warned = world.orgctl(*args, portal="hq", env={**plain, "CI": "true"})
        assert warned.returncode in (0, 2), output_of(warned)
        assert warned.stderr.count(WARNING) == 1, output_of(warned)
        assert "credentials follow the URLs in the manifests" in warned.stderr
        quiet = world.orgctl(*args, portal="hq", env={**plain, "CI": "false"})
        assert WARNING not in quiet.stderr, output_of(quiet)
    trusted = {**plain, "CI": "true", "ORGCTL_TRUSTED_ORIGINS": world.service.url}
    result = world.orgctl("plan", fleet, portal="hq", env=trusted)
    assert WARNING not in result.stderr, output_of(result)
