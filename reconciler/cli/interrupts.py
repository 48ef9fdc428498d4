"""Ctrl-C (SIGINT) and SIGTERM during apply end it cleanly (README: interrupting apply).

While calls are being sent, the first signal stops starting calls and lets the ones in
flight finish (or time out); a second stops waiting for them: their outcome is unknown.
Either way each outcome is journaled, the summary printed and the lock released, and
apply exits 130 (SIGINT) or 143 (SIGTERM), without a traceback. Before anything is sent
(reading the portal, planning), a signal cancels the work at once. At the confirmation
prompt, the first Ctrl-C cancels: the prompt reads the terminal outside the event loop,
where a handler of the loop would run only after the next line is typed.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

import click

from reconciler.errors import UserError

T = TypeVar("T")
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(UserError):
    """apply was interrupted by a signal; it exits 128 + the signal's number."""

    def __init__(self, signum: int, message: str) -> None:
        self.exit_code = 128 + signum
        super().__init__(message)


def name(signum: int) -> str:
    return signal.Signals(signum).name


class Interrupts:
    """The signals of one apply, handled on its event loop."""

    def __init__(self) -> None:
        self.received: int | None = None  # the first signal, once one came
        self.count = 0
        self.abandon = asyncio.Event()  # set by the second signal while sending
        self._sending = False
        self._sent = False  # calls were sent: a later signal cannot say nothing changed
        self._task: asyncio.Task[Any] | None = None
        self._previous: dict[int, Any] = {}

    def reason(self) -> str | None:
        """Why calls are no longer started (the engine's guard), or None."""
        return None if self.received is None else f"interrupted by {name(self.received)}"

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` with the handlers installed; a signal before sending cancels it."""
        loop = asyncio.get_running_loop()
        task: asyncio.Task[T] = asyncio.ensure_future(work)
        self._task = task
        if threading.current_thread() is not threading.main_thread():
            return await task  # only the main thread receives signals
        self._previous = {signum: signal.getsignal(signum) for signum in SIGNALS}
        try:
            self._install(loop)
        except NotImplementedError:  # an event loop without signal handlers (Windows)
            self._previous = {}
            return await task
        try:
            return await task
        except asyncio.CancelledError:
            if self.received is None:
                raise
            told = "after the calls were sent" if self._sent else "before any call was sent"
            raise Interrupted(self.received, f"{self.reason()} {told}") from None
        finally:
            self._remove(loop)
            for signum, handler in self._previous.items():  # as they were (a test runner's)
                signal.signal(signum, handler)

    @contextmanager
    def sending(self) -> Iterator[None]:
        """While calls are sent, a signal stops the run instead of cancelling it."""
        self._sending = self._sent = True
        try:
            yield
        finally:
            self._sending = False

    @contextmanager
    def at_prompt(self) -> Iterator[None]:
        """The first Ctrl-C (or SIGTERM) at a prompt cancels the apply."""
        if not self._previous:  # not handling signals (not the main thread)
            yield
            return
        loop = asyncio.get_running_loop()
        self._remove(loop)
        previous = {signum: signal.signal(signum, self._raise) for signum in SIGNALS}
        try:
            yield
        except click.exceptions.Abort:
            if self.received is None:
                raise  # end of input: click's own "Aborted!"
            raise Interrupted(
                self.received, f"apply cancelled ({name(self.received)}); nothing was sent"
            ) from None
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self._install(loop)

    def _raise(self, signum: int, frame: FrameType | None) -> None:
        self.received = self.received or signum
        raise KeyboardInterrupt  # click's prompt turns it into Abort

    def _on_signal(self, signum: int) -> None:
        self.count += 1
        self.received = self.received or signum
        if not self._sending:
            if self._task is not None:
                self._task.cancel()
            return
        if self.count == 1:
            click.echo(
                f"\nInterrupted ({name(signum)}): no further calls are started; waiting for"
                " the calls in flight to finish (interrupt again to stop waiting).",
                err=True,
            )
        else:
            click.echo(
                f"Interrupted again ({name(signum)}): not waiting for the calls in flight;"
                " their outcome is unknown.",
                err=True,
            )
            self.abandon.set()

    def _install(self, loop: asyncio.AbstractEventLoop) -> None:
        for signum in SIGNALS:
            loop.add_signal_handler(signum, self._on_signal, signum)

    def _remove(self, loop: asyncio.AbstractEventLoop) -> None:
        for signum in SIGNALS:
            loop.remove_signal_handler(signum)
