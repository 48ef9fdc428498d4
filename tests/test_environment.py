"""A portal's own variables and the URL overrides: one naming rule, applied once."""

from __future__ import annotations

from reconciler.environment import effective_urls, portal_key, url_sources, variable_stem

HQ = ("https://gis.example.com/portal/sharing/rest", "https://gis.example.com/server/admin")


def test_a_portal_name_becomes_a_shell_and_secret_name() -> None:
    assert portal_key("field-office") == "FIELD_OFFICE"
    assert variable_stem("Field Office.2") == "ORGCTL_FIELD_OFFICE_2"


def test_the_manifest_urls_stand_when_nothing_overrides_them() -> None:
    assert effective_urls(*HQ, {}, "hq") == HQ
    assert url_sources({}, "hq") == (None, None)


def test_the_portals_own_override_wins_over_the_plain_one() -> None:
    environ = {
        "ORGCTL_PORTAL_URL": "http://127.0.0.1:1/plain/sharing/rest",
        "ORGCTL_HQ_PORTAL_URL": "http://127.0.0.1:2/hq/sharing/rest",
        "ORGCTL_ADMIN_URL": "http://127.0.0.1:1/plain/admin",
    }
    assert effective_urls(*HQ, environ, "hq") == (
        "http://127.0.0.1:2/hq/sharing/rest",
        "http://127.0.0.1:1/plain/admin",
    )
    assert url_sources(environ, "hq") == ("ORGCTL_HQ_PORTAL_URL", "ORGCTL_ADMIN_URL")


def test_an_unnamed_portal_reads_only_the_plain_overrides() -> None:
    environ = {"ORGCTL_PORTAL_URL": "http://127.0.0.1:1/x/sharing/rest"}
    assert effective_urls(*HQ, environ) == ("http://127.0.0.1:1/x/sharing/rest", HQ[1])
