"""The play of a hand: the starter's burial, leads (a throw judged by which of its
components another seat can beat), follows of the lead's size, tricks and their winners,
and the score once every trick is in (or a forfeit before).

`PlayRules` is the part of `tractor.public.PublicHand` that records those moves; it checks
what public information can check (whether a follow follows suit needs the hand:
`tractor.hand.Hand`, between peers the audit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .formats import THROW, Format, classify_faces
from .friends import FriendCall, Sides, call_error
from .hand_state import HandState
from .phases import CALL, DONE, PLAY, TALON, Face, IllegalAction, Seat
from .records import (
    HandResult,
    Trick,
    friends_forfeit,
    friends_result,
    hand_result,
    throw_penalty_points,
)
from .scoring import points_of
from .takeback import LastPlay
from .trick import forced_component, winner_against

#: The fields a play changes, which a take-back restores (`PlayRules._saved`): the lists
#: among them are copied, the rest are values. (The omniscient hand adds its seats' cards.)
_PLAY_LISTS = ("sizes", "tricks", "current", "won", "thrown")
_PLAY_VALUES = ("phase", "leader", "lead_format", "current_attempt", "current_penalty",
                "pending_lead", "defender_points", "penalties", "result")


class PlayRules(HandState):
    """The burial, the tricks and the score of a hand (see the module docstring)."""

    def record_burial(self, seat: Seat) -> None:
        """The starter (with kitty theft, the seat holding the kitty) buries as many cards
        as the talon held (which ones is private)."""
        self._expect_turn(seat, (TALON,), "bury the talon")
        self._move_buried(seat)
        self._after_burial()

    def record_calls(self, seat: Seat, calls: tuple[FriendCall, ...]) -> None:
        """Find-a-friend: the starter calls its friends after burying (public; whether a
        call is allowed is `tractor.friends.call_error`'s, in the rules' words)."""
        self._expect_turn(seat, (CALL,), "call friends")
        assert self.trump is not None and self.starter is not None
        reason = call_error(self.rules, self.trump, self.levels[self.starter], calls)
        if reason:
            raise IllegalAction(reason)
        self.sides = Sides(self.rules, self.starter, tuple(calls))
        self.phase = PLAY

    def lead_format_of(self, faces: Sequence[Face]) -> Format:
        """The format of a lead as far as the public can tell: one suit, and a shape."""
        assert self.ladder is not None
        if not faces:
            raise IllegalAction("play at least one card")
        if self.ladder.suit_of_faces(list(faces)) is None:
            raise IllegalAction("a lead must be of one suit")
        try:
            return classify_faces(list(faces), self.ladder)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from exc

    def record_throw(self, seat: Seat, faces: Sequence[Face],
                     beaten: Sequence[int]) -> tuple[Face, ...]:
        """``seat`` leads the throw ``faces``; ``beaten`` are the indices of its components
        the forced part is chosen from under `Rules.throw_forced` (the core finds them in the
        hands, `tractor.trick.beaten_components`, the table by claims, `beaten_by_claims`).
        Returns the lead that stands (the whole throw, or its forced component), which
        `record_play` then expects; a failed throw's penalty is counted now."""
        self._expect_turn(seat, (PLAY,), "play")
        if self.current or self.pending_lead is not None:
            raise IllegalAction("only the lead of a trick can be a throw")
        fmt = self.lead_format_of(faces)
        if fmt.kind != THROW:
            raise IllegalAction("that lead is not a throw")
        if not all(type(i) is int and 0 <= i < len(fmt.components) for i in beaten):
            raise IllegalAction("a beaten component must be one of the throw's")
        self.current_attempt, self.current_penalty = None, 0
        self.takebacks.last = None  # the seat before the thrower cannot take back now
        stands = tuple(faces)
        if beaten:
            forced = forced_component([fmt.components[i] for i in sorted(set(beaten))])
            self.current_attempt = tuple(faces)
            withdrawn = len(faces) - len(forced.faces)
            self.current_penalty = self.rules.throw_penalty_for(withdrawn)
            if self.friend_mode:
                # Whose side pays is known only as the plays reveal it: kept per seat.
                self.thrown[seat] += self.current_penalty
                self._recount()
            else:
                shift = throw_penalty_points(self.current_penalty, self.is_defender(seat))
                self.defender_points += shift
                self.penalties += shift
            stands = tuple(forced.faces)
        self.pending_lead = stands
        return stands

    def record_play(self, seat: Seat, faces: Sequence[Face]) -> None:
        """``seat`` plays ``faces`` to the trick. Public checks only: a lead of one suit
        (a throw judged first by `record_throw`), a follow of the lead's size; following
        suit needs the hand (`tractor.hand.Hand` checks it; between peers, the audit)."""
        self._expect_turn(seat, (PLAY,), "play")
        self._add_play(seat, tuple(faces))

    def _add_play(self, seat: Seat, faces: tuple[Face, ...], lead: Format | None = None) -> None:
        """`record_play` once the turn is checked. ``lead``: the format of ``faces`` when
        the caller (`tractor.hand.Hand`) has classified them already as a lead that is not
        a throw, so they are not classified twice."""
        turn = (len(self.tricks), len(self.current))
        throw = not self.current and self.pending_lead is not None
        saved = self._saved() if self.rules.takebacks else None
        if not self.current:
            if self.pending_lead is not None:
                if sorted(faces) != sorted(self.pending_lead):
                    raise IllegalAction("after a throw, play the throw or its forced part")
                fmt = self.lead_format_of(faces)
            else:
                fmt = lead if lead is not None else self.lead_format_of(faces)
                if fmt.kind == THROW:
                    raise IllegalAction("a throw must be announced for claims first")
                self.current_attempt, self.current_penalty = None, 0
            self.pending_lead = None
            self.lead_format = fmt
        else:
            assert self.lead_format is not None
            if len(faces) != self.lead_format.size:
                raise IllegalAction(f"play {self.lead_format.size} cards")
        self._move_played(seat, faces)
        self.current.append(faces)
        if self.sides is not None and self.sides.on_play(seat, faces):
            self._recount()  # a friend revealed: its points change sides
        if len(self.current) == self.players:
            self._finish_trick()
        if saved is not None:
            final = self.takebacks.why_final(seat, turn, throw, self.tricks_done)
            self.takebacks.last = LastPlay(seat, turn, None if final else saved, final)

    def _saved(self) -> dict[str, Any]:
        """The state a take-back of the play about to be made restores (`tractor.takeback`):
        the fields a play changes (the rest it does not touch)."""
        state = self.__dict__
        saved = {name: state[name] for name in _PLAY_VALUES}
        for name in _PLAY_LISTS:
            saved[name] = list(state[name])
        saved["sides"] = self.sides.copy() if self.sides is not None else None
        self._save_cards(saved)
        return saved

    def _save_cards(self, saved: dict[str, Any]) -> None:
        """The omniscient hand adds its seats' cards to what a take-back restores."""

    def takeback_refusal(self, seat: Seat) -> str | None:
        """Why ``seat`` may not take back its last play now (None: it may)."""
        self.check_seat(seat)
        reason = self.takebacks.refusal(self.rules, seat)
        if reason is None and self.phase != PLAY:  # ended early (a forfeit)
            return f"there is no play to take back: the hand is in the {self.phase} phase"
        return reason

    def record_takeback(self, seat: Seat) -> None:
        """``seat`` takes back its last play: the hand stands exactly as before it."""
        reason = self.takeback_refusal(seat)
        if reason:
            raise IllegalAction(reason)
        self.__dict__.update(self.takebacks.taken(seat))

    def _finish_trick(self) -> None:
        assert self.ladder is not None and self.lead_format is not None
        plays = self.current
        win = (self.leader + winner_against([list(p) for p in plays], self.lead_format,
                                            self.ladder, throw_ruff=self.rules.throw_ruff)
               ) % self.players
        pts = sum(points_of(p) for p in plays)
        trick = Trick(self.leader, tuple(plays), win, pts, self.current_attempt,
                      self.current_penalty)
        self.tricks.append(trick)
        if self.friend_mode:
            self.won[win] += pts
            self._recount()
        elif self.is_defender(win):
            self.defender_points += pts
        self.current = []
        self.current_attempt = None
        self.current_penalty = 0
        self.lead_format = None
        self.leader = win
        if self.tricks_done:
            self._tricks_over()

    def _recount(self) -> None:
        """Find-a-friend: the defenders' points (and the penalties' share of them) from each
        seat's tricks and failed throws, with the sides as known now."""
        side = self.declaring_side()
        penalties = sum(self.thrown[s] if s in side else -self.thrown[s]
                        for s in range(self.players))
        self.penalties = penalties
        self.defender_points = penalties + sum(
            self.won[s] for s in range(self.players) if s not in side)

    def record_score(self, talon_points: int, offender: Seat | None = None) -> HandResult:
        """Score the hand once every trick is in, with the points the talon buried.
        ``offender``: the first seat an audit found breaking a rule, if any."""
        if not self.tricks_done or self.result is not None:
            raise IllegalAction("the hand is scored once, after its last trick")
        if self.friend_mode:
            return self._record_friends_score(talon_points, offender)
        assert self.declarers is not None and self.starter is not None
        points, defenders_last = self.defender_points, self.is_defender(self.tricks[-1].winner)
        if offender is not None:
            # Choice (the seeds are silent): a broken rule found by the audit loses the hand
            # for the offender's team as badly as the scoring table allows.
            points = self.rules.total_points if not self.is_defender(offender) else 0
            defenders_last = False
        self.result = hand_result(self.rules, points, talon_points,
                                  len(self.tricks[-1].plays[0]), defenders_last,
                                  self.declarers, self.starter)
        self.defender_points = self.result.defender_points
        self.phase = DONE
        return self.result

    def _record_friends_score(self, talon_points: int, offender: Seat | None) -> HandResult:
        """`record_score` in find-a-friend: every card is played, so the sides are final (a
        call whose card was buried never joins anyone)."""
        assert self.sides is not None and self.starter is not None
        points, defenders_last = self.defender_points, self.is_defender(self.tricks[-1].winner)
        if offender is not None:
            points = self.rules.total_points if not self.is_defender(offender) else 0
            defenders_last = False
        self.result = friends_result(self.rules, points, talon_points,
                                     len(self.tricks[-1].plays[0]), defenders_last,
                                     self.starter, self.sides.side)
        self.defender_points = self.result.defender_points
        self.phase = DONE
        return self.result

    def record_forfeit(self, offender: Seat) -> HandResult:
        """End the hand before its time: ``offender`` stalled or left it (peer-to-peer
        play). **Choice** (the seeds are silent), as for a rule broken: the offender's team
        loses it as badly as the scoring table allows (every card point to the defenders if
        it declares, none if it defends), so walking out of a losing hand gains nothing.
        Only once a team declares; before that there is nothing to lose (`IllegalAction`).
        Find-a-friend, where the offender's side may still be secret: the offender loses
        alone (`tractor.records.friends_forfeit`), on the side every peer knows whatever it
        applied when the verdict came: the starter alone (see `forfeit_result`).

        >>> from tractor.public import PublicHand
        >>> from tractor.rules import Rules
        >>> h = PublicHand(Rules(), ("2", "2"), first=0, starter=0, declarers=0)
        >>> h.record_forfeit(1).gaining_team  # a defender left: the declarers gain
        0
        """
        if self.result is not None:
            raise IllegalAction("the hand is scored already")
        self.result = self.forfeit_result(offender)
        self.defender_points = self.result.defender_points
        self.phase = DONE
        return self.result

    def forfeit_result(self, offender: Seat) -> HandResult:
        """What `record_forfeit` scores, without recording it: also for a hand already
        scored (a verdict on it came after its last card, which a seat sent too late).

        >>> from tractor.public import PublicHand
        >>> from tractor.rules import Rules
        >>> h = PublicHand(Rules(), ("2", "2"), first=0, starter=0, declarers=0)
        >>> h.forfeit_result(0).gaining_team  # a declarer left: the defenders gain
        1
        """
        if self.friend_mode:
            if self.starter is None:
                raise IllegalAction("nobody declares yet: the hand has nothing to lose")
            # Not the friends revealed so far: between peers a verdict is on a hand each
            # peer holds where it stands, and one that took a late play revealing a friend
            # would score the forfeit otherwise than one that did not (other points, other
            # levels with a level step of its own). The starter is known to every peer.
            return friends_forfeit(self.rules, offender, self.starter, (self.starter,))
        if self.declarers is None or self.starter is None:
            raise IllegalAction("no team declares yet: the hand has nothing to lose")
        points = self.rules.total_points if not self.is_defender(offender) else 0
        return hand_result(self.rules, points, 0, 1, False, self.declarers, self.starter)
