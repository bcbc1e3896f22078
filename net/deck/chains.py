"""`SeatChains`: the frames of each seat at one peer, in the seat's own order.

Each seat numbers its messages; a frame is applied only after every earlier one of its
seat (the network may deliver them in any order), so every peer applies the same chain
per seat. Applied frames form the seat's hash chain (`chain_digest`), whose running
hashes every header reports as its sender's views: comparing them finds a seat that sent
different messages to different peers. Frames not yet due wait here, bounded
(`SeatLoads.make_room`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .envelope import Envelope, chain_digest
from .errors import BadMessage, DeckError, Equivocation, Replay, ViewMismatch
from .holdings import SeatLoads

MAX_VIEW_COUNT = 1 << 20
ZERO = bytes(32)


@dataclass
class SeatChain:
    """One seat's applied frames, and the hash of its chain after each (``hashes[i]``:
    after its first ``i`` frames)."""

    frames: list[Envelope] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=lambda: [ZERO])


@dataclass
class SeatChains:
    """Every seat's chain, the frames waiting for their turn, and the views still to
    compare."""

    chains: list[SeatChain]
    #: Per seat: frames received and not applied yet, by message number.
    pending: list[dict[int, Envelope]]
    #: Numbers of other seats' frames taken back from the journal (`SeatLoads.make_room`).
    loaded: list[set[int]]
    #: (reporter, chain) -> the latest (count, hash) it reported that is not compared yet.
    view_checks: dict[tuple[int, int], tuple[int, bytes]] = field(default_factory=dict)

    @classmethod
    def empty(cls, seats: int) -> SeatChains:
        return cls([SeatChain() for _ in range(seats)], [{} for _ in range(seats)],
                   [set() for _ in range(seats)])

    def admit(self, env: Envelope, kinds: frozenset[str]) -> None:
        """Keep ``env`` until its turn: a replay, a second message with its number
        (`Equivocation`), an unknown kind or one more than the seat may keep waiting here
        is refused, and nothing changes."""
        seat, seq = env.seat, env.header.seq
        chain = self.chains[seat]
        known = chain.frames[seq] if seq < len(chain.frames) else self.pending[seat].get(seq)
        if known is not None:
            if known.content == env.content:
                raise Replay(seat, f"message {seq} was already received")
            exc = Equivocation(seat, f"signed two different messages number {seq}")
            exc.frames = (known.frame, env.frame)
            raise exc
        if env.header.kind not in kinds:
            raise BadMessage(seat, f"unknown message kind {env.header.kind!r:.30}")
        SeatLoads.make_room(env, self.pending[seat], self.loaded[seat], len(chain.frames))
        self.pending[seat][seq] = env

    def hold(self, env: Envelope, from_journal: bool = False) -> None:
        """Keep a frame of this hand's journal until its turn (checked when it was first
        received). ``from_journal``: it does not count against the seat's room here."""
        self.pending[env.seat][env.header.seq] = env
        if from_journal:
            self.loaded[env.seat].add(env.header.seq)

    def drain(self, due: Callable[[Envelope], bool], apply: Callable[[Envelope], None],
              act: Callable[[], list[bytes]]) -> list[bytes]:
        """Apply every waiting frame whose turn has come: ``due(env)`` says whether it can be
        applied now (or raises if never), ``apply`` applies it, and after each ``act()``
        returns this peer's answer. A refused frame is dropped (its sender's later frames
        wait for a valid one) and the run goes on; the first refusal is raised at the end,
        carrying the frames produced meanwhile."""
        out: list[bytes] = []
        errors: list[DeckError] = []
        progress = True
        while progress:
            progress = False
            for seat, chain in enumerate(self.chains):
                env = self.pending[seat].get(len(chain.frames))
                if env is None:
                    continue
                try:
                    if not due(env):
                        continue
                    apply(env)
                except DeckError as exc:
                    del self.pending[seat][env.header.seq]
                    if exc.seat == seat and not exc.frames:
                        exc.frames = (env.frame,)  # its signed message shows it
                    errors.append(exc)
                    continue
                del self.pending[seat][env.header.seq]
                chain.frames.append(env)
                chain.hashes.append(chain_digest(chain.hashes[-1], env.content))
                for mismatch in self._check_views(env):
                    if mismatch.seat == seat:
                        mismatch.frames = (env.frame,)  # the reporter signed that view
                    errors.append(mismatch)
                try:
                    out += act()
                except DeckError as exc:  # raised by this peer's own frame's processing
                    out += exc.outgoing
                    errors += [exc, *exc.also]
                progress = True
        if errors:
            first = errors[0]
            first.outgoing = out
            first.also = errors[1:]
            raise first
        return out

    def _check_views(self, env: Envelope) -> list[DeckError]:
        """Compare the sender's view of every chain with ours, now or once we catch up. Only
        the latest view per (reporter, chain) waits: a chain that split earlier differs
        later too."""
        for j, (count, digest) in enumerate(env.header.views):
            if count > MAX_VIEW_COUNT:
                return [BadMessage(env.seat, "impossible view count")]
            self.view_checks[(env.seat, j)] = (count, digest)
        found: list[DeckError] = []
        for (reporter, j), (count, digest) in list(self.view_checks.items()):
            hashes = self.chains[j].hashes
            if count < len(hashes):
                del self.view_checks[(reporter, j)]
                if hashes[count] != digest:
                    found.append(ViewMismatch(reporter, j, count))
        return found

    def views(self) -> tuple[tuple[int, bytes], ...]:
        """This peer's view of every chain, as its headers report it."""
        return tuple((len(c.frames), c.hashes[-1]) for c in self.chains)

    def holds(self, seat: int, seq: int, frame: bytes) -> bool:
        """Whether ``frame`` is ``seat``'s message ``seq`` here, applied or waiting."""
        frames = self.chains[seat].frames
        return (seq < len(frames) and frames[seq].frame == frame) or seq in self.pending[seat]

    def arrived(self, seat: int) -> bool:
        """Whether ``seat``'s next message is here, waiting for its checks."""
        return len(self.chains[seat].frames) in self.pending[seat]

    def started(self) -> bool:
        """Whether any frame was applied."""
        return any(c.frames for c in self.chains)

    def accepted(self, seat: int) -> int:
        """How many of ``seat``'s messages this deck took, in their order."""
        return len(self.chains[seat].frames)

    def evidence(self, seat: int, seq: int) -> bytes:
        """The signed frame number ``seq`` of ``seat`` as this peer received it."""
        return self.chains[seat].frames[seq].frame

    def frames(self) -> list[bytes]:
        """The journal of this hand: every frame received and signature-checked, accepted
        (per seat in order) or still waiting for its turn."""
        accepted = [e.frame for c in self.chains for e in c.frames]
        waiting = [e.frame for pending in self.pending for _, e in sorted(pending.items())]
        return accepted + waiting

    def check_equivocation(self, env: Envelope) -> None:
        """Raise `Equivocation` if ``env`` differs from the message held for its seat and
        number."""
        frames = self.chains[env.seat].frames
        if env.header.seq < len(frames) and frames[env.header.seq].content != env.content:
            raise Equivocation(env.seat, f"signed two different messages number "
                                         f"{env.header.seq} (proven)")
