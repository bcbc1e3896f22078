"""The network layer's one error root: what a peer, the network or a journal file did that
this peer refuses.

Under it: `CodecError` (bytes refused, naming whose they were), `DeckError` (the deck
protocol: a cheat, a replay, a timeout, each naming the seat it blames) and the proof
checks' errors, `LobbyError` (a lobby refusal, in words for the person), `JournalError`
(a journal file that cannot be used), `HelloError` and `Refused` (a link's handshake and
admission), `Stalled`, `SeatGone` and `ComplaintError` (the referee), `RendezvousError`
(internet tables), `TableError` (a table message the hand refuses) and `ProcessingFailure`
(a frame whose processing failed here). Each also keeps the built-in base its callers
caught before (`ValueError`, `OSError`, `RuntimeError`).
"""

from __future__ import annotations

from tractor.errors import TractorError


class NetError(TractorError):
    """What a peer, the network or a journal file did that this peer refuses."""
