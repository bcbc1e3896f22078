"""The watching code of this session attacked again, in memory and on a `Clock`: as the
seat a watcher watches through (ballots: a flood over the hands, forged, other-table,
replayed, one seat's own pair), as a watcher or a stranger at a watch code (a seat's hello,
many connections on one code, guesses against the budget), at the welcome's no-watchers
field, and at the lobby's ``ready`` digests (stale, flooded, malformed)."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tractor.net.referee.ballots import BallotError, pack_ballot
from tractor.net.referee.machine import Ballot, Item
from tractor.net.referee.onlooker import Onlooker

TABLE = b"t" * 32


def _keys(seats: int = 4) -> list[Ed25519PrivateKey]:
    return [Ed25519PrivateKey.from_private_bytes(bytes([s + 1]) * 32) for s in range(seats)]


def _onlooker(keys: list[Ed25519PrivateKey], table: bytes = TABLE) -> Onlooker:
    return Onlooker(table, [k.public_key() for k in keys])


def _vote(key: Ed25519PrivateKey, signer: int, item: Item, what: str = "play",
          table: bytes = TABLE) -> bytes:
    return pack_ballot(key, table, Ballot(item, signer, False, what))


def _pass(key: Ed25519PrivateKey, signer: int, item: Item, table: bytes = TABLE) -> bytes:
    return pack_ballot(key, table, Ballot(item, signer, True))


# --- B: ballots sent to a watcher -----------------------------------------------------------

def test_a_seat_flooding_its_watcher_with_its_own_ballots_hand_after_hand_is_forgotten() -> None:
    """The seat watched through signs ballots of its own (within the referee's bounds per
    hand) as the game goes on: the watcher holds those of the hands beside its replay's
    only, as the seats do (`forget_before`), not every hand's for the whole game (memory,
    and each ballot's settling goes over all held: time)."""
    keys = _keys()
    onlooker = _onlooker(keys)
    for hand in range(6):
        for m in range(6):
            assert onlooker.take(_vote(keys[0], 0, Item(hand, 1, m)), hand)
            assert onlooker.take(_pass(keys[0], 0, Item(hand, 2, m)), hand)
        held = {item.hand for item in onlooker.referee.ballots}
        assert held <= {hand - 1, hand}, (hand, held)
    assert onlooker.verdict is None
