"""Cards by the deck positions they are at: this peer's own, and those the seats revealed.

A table message names cards by deck position; `OwnCards` turns this seat's decisions
(faces) into its positions, `RevealedCards` turns another seat's positions into the faces
it revealed through the deck, refusing any it did not.
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.net.deck.dealing import Reveal
from tractor.net.deck.engine import Deck
from tractor.net.table.errors import TableError
from tractor.net.table.schedule import Schedule
from tractor.phases import Phase
from tractor.public import PublicHand


class OwnCards:
    """This peer's cards in the deck, as the table stands."""

    def __init__(self, deck: Deck, schedule: Schedule, hand_size: int,
                 returned: set[int] | None = None) -> None:
        self.deck = deck
        self.schedule = schedule
        self.hand_size = hand_size
        #: Positions of plays taken back (`RevealedCards.returned`): back in the hand.
        self.returned: set[int] = set() if returned is None else returned

    def cards(self) -> dict[int, int]:
        """Position -> card of this peer's hand as the table stands: while dealing, only the
        rounds drawn so far (keys of later rounds may arrive early; a replay after a crash
        has them all), so every decision sees what it saw the first time."""
        hand = self.deck.hand()
        # (In the DECLARE after the last window, as the talon is turned over, every round
        # is drawn: the whole hand.)
        if self.schedule.phase in (Phase.DEAL, Phase.DECLARE):
            drawn = min(self.schedule.round + 1, self.hand_size) * self.deck.config.seats
            hand = {p: c for p, c in hand.items() if p < drawn}
        elif self.returned:
            # The deck counts a card played once it is revealed for a play; a take-back
            # gives it back.
            me, owner, cards = self.deck.me, self.deck.owner, self.deck.cards
            hand.update({p: cards[p] for p in self.returned if owner[p] == me})
            hand = dict(sorted(hand.items()))
        return hand

    def faces(self) -> list[int]:
        return [c % 54 for c in self.cards().values()]

    def find(self, faces: Sequence[int]) -> list[int] | None:
        """The positions of ``faces`` in this hand (the lowest first); None if it does not
        hold them all."""
        hand = self.cards()
        out: list[int] = []
        for f in faces:
            p = next((p for p in sorted(hand) if hand[p] % 54 == f and p not in out), None)
            if p is None:
                return None
            out.append(p)
        return out

    def positions_for(self, faces: Sequence[int]) -> list[int]:
        """The positions of cards this peer's own player chose (a person's move is checked
        before: cards it does not hold are this peer's fault)."""
        found = self.find(faces)
        if found is None:
            raise TableError(self.deck.me, f"this peer's player chose cards it does not hold: "
                                           f"{list(faces)!r:.80}")
        return found

    def show(self, positions: Sequence[int]) -> list[bytes]:
        """Show cards face up (those not shown yet: a card stays shown)."""
        fresh = [p for p in positions if not self.deck.is_shown(self.deck.me, p)]
        return self.deck.reveal(fresh, "show") if fresh else []


class RevealedCards:
    """The faces behind the positions a seat's message names, as that seat revealed them
    through the deck; and the positions played so far in this hand."""

    def __init__(self, deck: Deck, public: PublicHand) -> None:
        self.deck = deck
        self.public = public
        self.used: set[int] = set()  #: positions played in this hand
        #: Positions of plays taken back and not played again: back in their seat's hand,
        #: seen (their keys are out), so a play or a show of them needs no new reveal.
        self.returned: set[int] = set()
        # The deck's reveals by position, indexed as they come (`faces` asks for a few
        # positions at each play; the reveals grow with the hand).
        self._indexed: list[Reveal] | None = None
        self._at: dict[int, list[Reveal]] = {}
        self._count = 0

    def _reveals_at(self, position: int) -> list[Reveal]:
        reveals = self.deck.reveals
        if reveals is not self._indexed or len(reveals) < self._count:
            self._indexed, self._at, self._count = reveals, {}, 0
        for r in reveals[self._count:]:
            self._at.setdefault(r.position, []).append(r)
        self._count = len(reveals)
        return self._at.get(position, [])

    def faces(self, seat: int, positions: Sequence[int], purpose: str,
              seq: int) -> tuple[int, ...]:
        """Faces at positions (distinct deck positions: `table_message`) the seat revealed
        before its message number ``seq`` (played, for a play; shown and not yet played,
        for a show). Judged at the message's place in the seat's chain: the deck may
        already hold the seat's later messages."""
        deck = self.deck
        shown: set[int] = set()
        played: set[int] = set()
        for p in positions:
            for r in self._reveals_at(p):
                if r.seat == seat and r.seq < seq:
                    (played if r.purpose == "play" else shown).add(p)
        # A talon card the table turned over for everyone is shown already: a claim may
        # show it without revealing it again (an honest starter's claim was refused). Only
        # those the table turned over, and opened by every seat: a seat may send an `open`
        # of its own for any talon card, and that shows nothing.
        talon = range(deck.config.dealt, deck.config.size)
        opened = len(self.public.talon_revealed)
        shown |= {p for p in talon[:opened] if p in deck.cards} - played
        faces = []
        for p in positions:
            if not 0 <= p < deck.config.size or deck.owner[p] != seat or (
                    p not in shown and p not in played):
                raise TableError(seat, f"position {p} was not revealed by this seat")
            if p not in self.returned and (p in played) != (purpose == "play"):
                raise TableError(seat, f"position {p} was {'not ' * (purpose == 'play')}played")
            if p in self.used:
                raise TableError(seat, f"position {p} was played in an earlier trick")
            faces.append(deck.cards[p] % 54)
        return tuple(faces)

    def played(self, positions: Sequence[int]) -> None:
        self.used.update(positions)
        self.returned.difference_update(positions)

    def returned_to_hand(self, positions: Sequence[int]) -> None:
        """A take-back gives the cards at ``positions`` back to their seat's hand."""
        self.used.difference_update(positions)
        self.returned.update(positions)
