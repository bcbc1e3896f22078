"""`SetupStage`: the deck before the deal: every seat's shuffle in turn, then every seat's
lock, each checked before it is taken; and this peer's own shuffle and lock made.

That is the heavy work of a hand (a few hundred milliseconds of scalar multiplications):
with a runner it goes to the `Background` (the next hand's deck is made while this one
is played), and a message whose checks are under way waits for them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .background import Background
from .bodies import check_shape, judged
from .envelope import Envelope
from .group import SecretStream
from .locking import LockStep
from .own_secrets import OwnSecrets
from .shuffling import ShuffleChain


@dataclass
class SetupStage:
    """The shuffle chain, the lock step and the work they give the runner."""

    shuffles: ShuffleChain
    locks: LockStep
    background: Background = field(default_factory=Background)

    def lock_input(self) -> list[bytes]:
        """The deck the current locking seat works on."""
        return self.locks.input(len(self.locks.decks), self.shuffles.last)

    def checked(self, env: Envelope, step: int, vouched: bool, here: bool) -> bool:
        """Whether another seat's shuffle or lock, whose turn (``step``) has come, is
        checked: its points and proofs, by the runner if there is one (not ``here``,
        rebuilding from a journal); the result waits in the `Background` to be applied.
        Without a runner it is checked as it is applied; ``vouched`` (its proofs passed
        here before a crash) it is checked at once, without them."""
        kind, seat, seq = env.header.kind, env.seat, env.header.seq
        if self.background.runner is None and not vouched:
            return True
        check_shape(env)
        job: Callable[[], Any] = (
            partial(self.shuffles.check, seat, env.body, self.shuffles.last, step, vouched)
            if kind == "shuffle" else
            partial(self.locks.check, seat, env.body, self.lock_input(),
                    self.shuffles.keys[seat], vouched))
        checking = partial(judged, seat, kind, job)
        ready, result = (True, checking()) if vouched else self.background.run(
            ("check", seat, seq), checking, here)
        if ready:
            self.background.results[(seat, seq)] = result
        return ready

    def apply_shuffle(self, seat: int, body: dict[str, Any], seq: int, step: int) -> None:
        """Take ``seat``'s shuffle (its message ``seq``), checked now if not before."""
        checked = self.background.results.pop((seat, seq), None)
        deck, key = checked or self.shuffles.check(seat, body, self.shuffles.last, step)
        self.shuffles.add(deck, key)

    def apply_lock(self, seat: int, body: dict[str, Any], seq: int) -> None:
        """Take ``seat``'s lock (its message ``seq``), checked now if not before."""
        checked = self.background.results.pop((seat, seq), None)
        deck, locks = checked or self.locks.check(seat, body, self.lock_input(),
                                                  self.shuffles.keys[seat])
        self.locks.add(deck, locks)

    def my_move(self, kind: str, own: OwnSecrets, secrets: SecretStream,
                journaled: Callable[[str], bool], here: bool) -> tuple[str, Any] | None:
        """This peer's ``kind`` move ("shuffle" or "lock"), its turn having come: the kind
        and its body, an empty body when the journal holds the move (``journaled``: the
        engine sends that frame again), None while the runner makes it (``here``: at once)."""
        if journaled(kind):
            return kind, {}
        k = own.shuffle_key(self.shuffles)
        if kind == "shuffle":
            ready, body = self.make_shuffle(k, own.permutation(self.shuffles), secrets,
                                            own.proof_label(self.shuffles), here)
        else:
            ready, body = self.make_lock(k, secrets, own.lock_binding(self.shuffles,
                                                                      self.locks), here)
        return (kind, body) if ready else None

    def make_shuffle(self, k: bytes, perm: list[int], secrets: SecretStream, label: str,
                     here: bool) -> tuple[bool, Any]:
        """This peer's shuffle body (True, body), or (False, None) while the runner makes
        it (`Background.run`)."""
        make = self.shuffles.maker(k, perm, secrets, label)
        return self.background.run(("make", "shuffle"), make, here)

    def make_lock(self, k: bytes, secrets: SecretStream, binding: str,
                  here: bool) -> tuple[bool, Any]:
        """This peer's lock body, as `make_shuffle`."""
        key = self.shuffles.keys[self.locks.me]
        make = self.locks.maker(self.lock_input(), k, key, secrets, binding)
        return self.background.run(("make", "lock"), make, here)
