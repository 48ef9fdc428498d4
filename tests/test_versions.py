import pytest

from reconciler.versions import Deployment, Platform, Release, VersionError, release_text


@pytest.mark.parametrize(
    ("low", "high"),
    [("10.9", "10.10"), ("10.6", "10.6.1"), ("10.8.1", "11"), ("11.2", "11.3")],
)
def test_self_hosted_releases_compare_as_versions(low: str, high: str) -> None:
    assert Release.parse("self-hosted", low) < Release.parse("self-hosted", high)


def test_trailing_zeros_do_not_matter() -> None:
    assert Release.parse("self-hosted", "10.6") == Release.parse("self-hosted", "10.6.0")


def test_cloud_releases_are_months() -> None:
    assert Release.parse("hosted-cloud", "2021-03") > Release.parse("hosted-cloud", "2020-11")
    assert str(Release.parse(Deployment.HOSTED_CLOUD, "2026-06")) == "2026-06"


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("self-hosted", "10.x"),
        ("self-hosted", "2021-03"),
        ("hosted-cloud", "10.6"),
        ("hosted-cloud", "2021-13"),
    ],
)
def test_bad_release_strings_are_refused(kind: str, text: str) -> None:
    with pytest.raises(VersionError):
        Release.parse(kind, text)


def test_kinds_never_compare() -> None:
    with pytest.raises(TypeError):
        _ = Release.parse("self-hosted", "10.6") < Release.parse("hosted-cloud", "2021-03")


@pytest.mark.parametrize(
    ("current", "release"),
    [("2024.2", "2024-02"), ("5.4", "2017-12"), ("9.1", "2021-03"), ("10.3", "2022-09")],
)
def test_hosted_cloud_rest_numbers_old_and_new_read_as_months(current: str, release: str) -> None:
    """Before 2023 hosted-cloud answered `N.M` (REST JS's captured organization: 5.4)."""
    fields: dict[str, object] = {"currentVersion": current}
    assert release_text(Deployment.HOSTED_CLOUD, fields) == release
    Platform.parse("hosted-cloud", release)  # a release month orgctl gates on
