"""A game session and the journal's plain records of it (`net.journal.records`): the start
a crash must not lose, made from a new session (`game_start`), and the session rebuilt from
it and the frames kept (`open_session`, for `tractor resume` and `tractor replay`), and who
declared each hand (`hand_sides`, for `tractor stats`)."""

from __future__ import annotations

from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tractor.net.journal.records import GameStart
from tractor.net.journal.store import Journal
from tractor.net.table.player import Player
from tractor.net.table.session import GameSession
from tractor.phases import Phase
from tractor.rules import team_of


def game_start(session: GameSession, identity: Ed25519PrivateKey,
               master_seed: bytes) -> GameStart:
    """What the journal keeps of a new ``session`` (``identity`` and ``master_seed``: the
    ones it was made with)."""
    return GameStart(seat=session.seat, identity=identity.private_bytes_raw(),
                     master_seed=master_seed, rules=session.rules, table=session.table,
                     public_keys=tuple(k.public_bytes_raw() for k in session.public_keys),
                     first=session.first)


def open_session(journal: Journal, game: str, player: Player, max_hands: int | None = None,
                 progress: Callable[[int, int], None] | None = None
                 ) -> tuple[GameSession, list[bytes]]:
    """Rebuild this peer's session of ``game`` from ``journal`` and replay it; returns the
    session and the frames to send (its latest ones again, and any new move).
    ``progress(done, total)``: frames replayed so far (`GameSession.resume`). Raises
    KeyError for a game not in the journal, ValueError for one this version cannot
    rebuild."""
    start = journal.game_start(game)
    carry = journal.meta(game).get("carry")  # a game that went on at this new table
    session = GameSession(start.rules, start.table, start.seat,
                          Ed25519PrivateKey.from_private_bytes(start.identity),
                          [Ed25519PublicKey.from_public_bytes(k) for k in start.public_keys],
                          start.master_seed, player, first=start.first,
                          max_hands=max_hands, carry=carry)
    frames = journal.frames(game)
    signed, proved = journal.marks.known(game, frames)
    return session, session.resume(frames, proved, signed, progress)


def hand_sides(session: GameSession) -> list[tuple[int, ...] | None]:
    """The seats that declared each scored hand of ``session``, in the order of its
    results (None: nobody had declared when it was forfeited): with teams the declaring
    team's seats, in find-a-friend the starter's side as the hand ended."""
    scored = [h for h in session.played if h.phase != Phase.REDEAL]
    sides: list[tuple[int, ...] | None] = []
    # strict=False: a forfeit that left its hand unscored (`GameSession.forfeit`) leaves
    # that last hand played with no result.
    for hand, result in zip(scored, session.results, strict=False):
        if session.rules.mode == "friends":
            sides.append(result.side or None)
        elif hand.declarers is None:
            sides.append(None)
        else:
            sides.append(tuple(s for s in range(session.rules.players)
                               if team_of(s) == hand.declarers))
    return sides
