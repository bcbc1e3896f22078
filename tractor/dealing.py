"""The deal and the declaring of trump (reveal style, seed 000): cards drawn one at a
time, declarations shown meanwhile and overcalled, the final declare-or-pass window, and
the talon turned over when nobody declared in a later hand.

The pure rules (`declaration_strength`, `declaration_options`, `declared_trump`,
`talon_trump_suit`) and `DealingRules`, the part of `tractor.public.PublicHand` that
records those moves.

>>> declaration_options([13, 0, 0, 53, 53, 7], "2", standing=(13,))
[(0, 0), (53, 53)]
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import BLACK_JOKER, RANKS, RED_JOKER, face_suit, format_cards
from .hand_state import HandState
from .phases import BID, DEAL, DECLARE, REDEAL, THEFT, Face, IllegalAction, Seat
from .rules import team_of
from .trump import Trump


def declared_trump(faces: Sequence[Face], rank: str) -> Trump:
    """The trump a winning declaration makes: jokers make a hand of jokers only (no rank,
    no suit); rank cards make their suit trump with the rank.

    >>> print(declared_trump([53, 53], "2"), "/", declared_trump([13], "2"))
    jokers only / rank 2, suit H
    """
    return Trump(None, None) if faces[0] >= 52 else Trump(rank, face_suit(faces[0]))



def declaration_strength(faces: Sequence[Face], rank: str | None, jokers: int = 2) -> int:
    """1 for one rank card, 2 for a pair of identical rank cards, 3 for ``jokers``
    identical jokers (`Rules.no_trump_jokers`: two by default, 0 when no trump cannot be
    declared), 0 for anything else.

    >>> declaration_strength((0,), "2"), declaration_strength((0, 0), "2")
    (1, 2)
    >>> declaration_strength((53, 53), "2"), declaration_strength((1,), "2")
    (3, 0)
    >>> declaration_strength((53, 53), "2", jokers=3), declaration_strength((53,), "2", 1)
    (0, 3)
    """
    if faces and faces[0] in (BLACK_JOKER, RED_JOKER):
        same = all(f == faces[0] for f in faces)
        return 3 if jokers and same and len(faces) == jokers else 0
    if rank is None or not faces or faces[0] >= 52 or RANKS[faces[0] % 13] != rank:
        return 0
    if len(faces) == 1:
        return 1
    if len(faces) == 2 and faces[0] == faces[1]:
        return 2
    return 0


#: The four faces of each rank, in face order (suits S, H, D, C).
_RANK_FACES = {rank: (r, r + 13, r + 26, r + 39) for r, rank in enumerate(RANKS)}


def declaration_options(held: Sequence[Face], rank: str,
                        standing: tuple[Face, ...] | None,
                        jokers: int = 2) -> list[tuple[Face, ...]]:
    """Every declaration ``held`` can make over the ``standing`` one (None: none yet), in
    face order, singles before pairs (``jokers``: see `declaration_strength`)."""
    current = 0 if standing is None else declaration_strength(standing, rank, jokers)
    # Only the four cards of the rank (strength 1 alone, 2 paired) and the jokers (3, as
    # many as `jokers`) declare: count those rather than the whole hand (asked every draw).
    out: list[tuple[Face, ...]] = []
    if current < 2:
        for f in _RANK_FACES.get(rank, ()):
            copies = held.count(f)
            if copies and current < 1:
                out.append((f,))
            if copies >= 2:
                out.append((f, f))
    if current < 3 and jokers:
        for f in (BLACK_JOKER, RED_JOKER):
            if held.count(f) >= jokers:
                out.append((f,) * jokers)
    return out


def talon_trump_suit(revealed: Sequence[Face], rank: str) -> str | None:
    """The trump suit named by talon cards turned over in order when nobody declared
    (seed 000): the first card of the rank, else the highest-ranked card (the first of
    equals); jokers are skipped; no suited card names no suit."""
    best: int | None = None
    for f in revealed:
        if f >= 52:
            continue
        if RANKS[f % 13] == rank:
            return face_suit(f)
        if best is None or f % 13 > best % 13:
            best = f
    return face_suit(best) if best is not None else None


class DealingRules(HandState):
    """Drawing, declaring and the final window of a hand (see the module docstring)."""

    def record_draw(self) -> Seat:
        """The next card is drawn, by the seat whose turn it is; returns that seat."""
        if self.phase != DEAL:
            raise IllegalAction(f"cannot draw now: the hand is in the {self.phase} phase")
        seat = self.next_drawer()
        self._move_drawn(seat)
        self.drawn += 1
        if self.drawn == self._deal_size:
            self._move_dealt()
            if self.rules.declaration == "reveal":
                self.phase = DECLARE
                self.window_turn = self.first
                self.window_passes = 0
            else:
                self.phase = BID
                self.auction_turn = self.first
        return seat

    def declaration_stands(self, faces: Sequence[Face], seat: Seat | None = None) -> bool:
        """Whether ``faces`` would overcall the standing declaration (or stand first); by
        ``seat``: not over its own unless `Rules.reinforce_own`."""
        if self._own_standing(seat):
            return False
        rank, jokers = self.trump_rank(), self.rules.no_trump_jokers
        current = 0 if self.declaration is None else declaration_strength(
            self.declaration[1], rank, jokers)
        return declaration_strength(faces, rank, jokers) > current

    def declaration_open(self) -> bool:
        """Whether any declaration may still be made (not after no trump is declared)."""
        if self.rules.declaration != "reveal" or self.phase not in (DEAL, DECLARE) \
                or self.turning_talon:
            return False
        return self.declaration is None or declaration_strength(
            self.declaration[1], self.trump_rank(), self.rules.no_trump_jokers) < 3

    def declarable(self, seat: Seat, held: Sequence[Face]) -> list[tuple[Face, ...]]:
        """The cards of each declaration ``seat`` holding ``held`` may make now."""
        if self.phase == THEFT:  # the kitty-theft window: an overcall in turn
            if seat != self.window_turn:
                return []
        elif not self.declaration_open():
            return []
        if self._own_standing(seat):
            return []
        standing = self.declaration[1] if self.declaration else None
        return declaration_options(held, self.trump_rank(), standing,
                                   self.rules.no_trump_jokers)

    def is_declaration(self, faces: Sequence[Face]) -> bool:
        """Whether ``faces`` make a declaration at all under these rules."""
        return declaration_strength(faces, self.trump_rank(), self.rules.no_trump_jokers) > 0

    def _own_standing(self, seat: Seat | None) -> bool:
        """Whether ``seat``'s declaration stands where the rules forbid overcalling it."""
        return (not self.rules.reinforce_own and seat is not None
                and self.declaration is not None and self.declaration[0] == seat)

    def record_declaration(self, seat: Seat, faces: tuple[Face, ...]) -> None:
        """``seat`` shows ``faces`` to declare trump."""
        self.check_seat(seat)
        if self.rules.declaration != "reveal":
            raise IllegalAction("trump is not declared by revealing cards in this variant")
        if self.phase not in (DEAL, DECLARE) or self.turning_talon:
            raise IllegalAction("trump can only be declared while the cards are dealt")
        if self.phase == DECLARE and seat != self.window_turn:
            raise IllegalAction(f"it is seat {self.window_turn}'s turn to declare or pass")
        rank, jokers = self.trump_rank(), self.rules.no_trump_jokers
        strength = declaration_strength(faces, rank, jokers)
        if strength == 0:
            raise IllegalAction(f"a declaration is {self._declaration_kinds(rank)}, not "
                                f"{format_cards(faces, symbols=True)}")
        if self.declaration is not None:
            current = declaration_strength(self.declaration[1], rank, jokers)
            if current >= 3:
                raise IllegalAction(f"{self._jokers_name()} cannot be overcalled")
            if self._own_standing(seat):
                raise IllegalAction("your own declaration stands: at this table only "
                                    "another player may overcall it")
            if strength <= current:
                raise IllegalAction(self._overcall_needed(current) + " can overcall "
                                    f"{format_cards(self.declaration[1], symbols=True)}")
        self.declaration = (seat, tuple(faces))
        self.declarations.append(self.declaration)
        if self.phase == DECLARE:
            self.window_passes = 0
            self.window_turn = (self.window_turn + 1) % self.players

    def _declaration_kinds(self, rank: str) -> str:
        kinds = f"one {rank} or a pair of identical {rank}s"
        if not self.rules.no_trump_jokers:
            return kinds
        jokers = self._jokers_name().replace("a pair of", "a pair of identical")
        return kinds.replace(" or ", ", ") + f" or {jokers}"

    def _overcall_needed(self, current: int) -> str:
        """Who may overcall a declaration of strength ``current``, in words."""
        if not self.rules.no_trump_jokers:
            return "nothing (no trump cannot be declared)" if current == 2 else "only a pair"
        jokers = self._jokers_name()
        return f"only {jokers}" if current == 2 else f"only a pair or {jokers}"

    def _jokers_name(self) -> str:
        """The jokers that declare no trump, in words ("a pair of jokers" by default)."""
        jokers = self.rules.no_trump_jokers
        return {1: "a joker", 2: "a pair of jokers"}.get(jokers, f"{jokers} identical jokers")

    def _pass_window(self, seat: Seat) -> None:
        """``seat`` passes in the final declaring window."""
        self._expect_turn(seat, (DECLARE,), "pass")
        self.window_passes += 1
        self.window_turn = (self.window_turn + 1) % self.players
        if self.window_passes >= self.players:
            self._close_declarations()

    def _close_declarations(self) -> None:
        if self.declaration is not None:
            seat, faces = self.declaration
            if self.starter is None:
                self.starter = seat
                # Find-a-friend has no teams: the starter's side is made by its calls.
                self.declarers = None if self.friend_mode else team_of(seat)
            self._set_trump(declared_trump(faces, self.trump_rank()))
            return
        if self.starter is None:
            self.phase = REDEAL  # first hand, nobody declared: collect and deal again
            return
        self.turning_talon = True  # turn the talon over: `record_talon_card`
        if self.rules.talon_size == 0:
            self._turned_over()

    def record_talon_card(self, face: Face) -> None:
        """The next talon card is turned over for everyone (nobody declared, seed 000):
        until a card of the trump rank shows, else every card."""
        if not self.turning_talon:
            raise IllegalAction("the talon is turned over only when nobody declared")
        self.talon_revealed.append(face)
        if (face < 52 and RANKS[face % 13] == self.trump_rank()) or len(
                self.talon_revealed) == self.rules.talon_size:
            self._turned_over()

    def _turned_over(self) -> None:
        rank = self.trump_rank()
        self.turning_talon = False
        # A talon of jokers only (or no talon) names no suit: the rank alone is trump.
        self._set_trump(Trump(rank, talon_trump_suit(self.talon_revealed, rank)))

