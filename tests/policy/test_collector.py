"""Judging holds the garbage collector off and gives it back as it found it."""

from __future__ import annotations

import gc

import pytest

from reconciler.policy.verdicts import collector_paused


def test_the_collector_is_off_while_judging_and_on_again_after_an_error() -> None:
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        assert not gc.isenabled()
        raise ValueError("a rule failed")
    assert gc.isenabled()


def test_a_collector_someone_else_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
