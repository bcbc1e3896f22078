"""Watchers of a table with a passphrase: they prove it at the host's game port
(`WatchDesk`), with the lobby's own handshake and the lobby's own guess limits.

A table with a passphrase starts with every seat refusing watchers (`Seating.watchers` is
False: a guest or an AI seat may not know the passphrase). The host's seat, which does,
opens a desk: a watcher's hello then carries a lobby passphrase hello (SPAKE2,
`tractor.net.lobby.pake.GuestHandshake`); the seat answers as the lobby would
(`HostHandshake`), the watcher confirms, and only then does it get its welcome, sealed
with the handshake's key (so a watcher that knows the passphrase replays the game from
keys given by a seat that knows it too). The passphrase never crosses the network.

Guesses: each run is one online guess, counted by the lobby's `AttemptLimiter` (the same
one the table's guests were counted by before the start, when the host passes it on), so a
hostile watcher guesses no faster than a guest could: five a minute from an address, 20 at
once then one each 15 s from everyone. Where a guest would wait in the lobby's line for a
turn, a watcher is refused at once (try again in a minute): never faster, and no line to
keep on a game port. A handshake not finished in `GATE_TIMEOUT` seconds is dropped.
"""

from __future__ import annotations

from tractor.net.lobby.guess_line import AttemptLimiter
from tractor.net.lobby.pake import HostHandshake, Step
from tractor.net.lobby.tokens import TokenBook

GATE_TIMEOUT = 30.0  #: seconds a watcher has to finish the passphrase handshake
#: What a watcher is told when the table has no turn free for a guess now.
NO_TURN = ("this table takes few passphrase guesses at a time and has none free now; "
           "try again in a minute")


class WatchDesk:
    """The host seat's passphrase check for watchers: the passphrase, the name the
    handshake's transcript holds, and the guess limits."""

    def __init__(self, name: str, passphrase: str, limiter: AttemptLimiter | None = None
                 ) -> None:
        if not passphrase:
            raise ValueError("a watch desk checks a passphrase")
        self.name = name
        self.passphrase = passphrase
        self.limiter = limiter or AttemptLimiter()
        self._tokens = TokenBook()  #: (none: a watcher has no seat token)

    def gate(self, source: str) -> WatchGate:
        """The check of one watcher connected from ``source`` (an IP address)."""
        handshake = HostHandshake(self.name, self.passphrase, self._tokens, self.limiter,
                                  source, f"watcher at {source or 'an unknown address'}")
        return WatchGate(handshake)


class WatchGate:
    """One watcher's passphrase handshake: `hello` (its lobby hello), then `confirm`; a
    finished one gives the `Channel` its welcome is sealed with."""

    def __init__(self, handshake: HostHandshake) -> None:
        self.handshake = handshake

    def hello(self, frame: bytes, now: float) -> Step:
        """The answer to the watcher's passphrase hello: the lobby's welcome, or a refusal
        (``error`` set; a table with no turn free refuses rather than making it wait)."""
        step = self.handshake.receive(frame, now)
        if step.wait is not None:
            return self.handshake.give_up(NO_TURN)
        return step

    def confirm(self, frame: bytes, now: float) -> Step:
        """The watcher's confirmation: a ``channel`` when it proved the passphrase, else an
        ``error`` and the refusal to send."""
        return self.handshake.receive(frame, now)

    def abort(self) -> None:
        """The watcher went away (or took too long): a started guess stays counted."""
        self.handshake.abort()
