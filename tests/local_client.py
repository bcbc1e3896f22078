"""`LocalClient`: a `TableClient` on an in-process game, for offline play and the screens' tests.

The person's seat waits for `submit`; every other seat moves at once through ``others``
(an AI strategy's ``act``, or a seeded random legal policy), so the screens are driven
exactly as over the network, without sockets, and every game replays from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tractor.actions import (
    Action,
    Bid,
    Bury,
    Call,
    Declare,
    Draw,
    NameTrump,
    Pass,
    Play,
    Show,
    TakeBack,
)
from tractor.ai.players.explain import reason
from tractor.cards import format_cards
from tractor.cli.screen.friends_view import call_words, result_lines, reveal_words
from tractor.cli.screen.words import count, display_names
from tractor.cli.seat.client import Hint
from tractor.dealing import declaration_strength
from tractor.game import Game
from tractor.hand import Hand
from tractor.observation import Observation
from tractor.phases import Decision, Phase
from tractor.rules import Rules

Policy = Callable[[Hand, int], Action]

#: What the summary says about checking: in-process every move went through the rules core.
LOCAL_AUDIT = "played in-process: every move was checked by the rules core"


def default_names(players: int, seat: int) -> list[str]:
    """"You" for the person's seat, "AI n" for the others."""
    return ["You" if s == seat else f"AI {s}" for s in range(players)]


def _suit_text(suit: str | None) -> str:
    return {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}.get(suit or "", "no suit")


def trump_text(trump: list[str | None] | None) -> str:
    """Readable trump from `Trump.to_data` form (``["2", "H"]``)."""
    if trump is None:
        return "not declared yet"
    rank, suit = trump
    if rank is None:
        return "jokers only"
    return f"rank {rank}, {_suit_text(suit)}"


class LocalClient:
    """One person's seat at a table of in-process players.

    ``others(hand, seat)`` decides for every other seat (called when that seat is to act,
    as `tractor.ai.players.base.Strategy.act`); ``hinter(hand, seat)`` answers `hint` (default: a
    simple built-in suggestion), and during the deal too (a strategy's ``act`` then
    gives its declaration, or Draw for none). Both see the real `Hand`; a strategy reads
    only what its seat may know.
    """

    def __init__(self, rules: Rules | None = None, seat: int = 0, seed: int | str = 0,
                 others: Policy | None = None, hinter: Policy | None = None,
                 names: list[str] | None = None) -> None:
        self.rules = rules or Rules()
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"there is no seat {seat} at a table of {self.rules.players}")
        self.seat = seat
        self.seed = seed
        self.game = Game(self.rules, seed)
        self.names = display_names(names) if names else default_names(self.rules.players, seat)
        if len(self.names) != self.rules.players:
            raise ValueError(f"give one name per seat ({self.rules.players})")
        self.on_change: Callable[[], None] | None = None
        self._rng = random.Random(f"{seed}:others")
        self._others = others or self._random_policy
        self._hinter = hinter
        self._events: list[str] = []
        self._declined: set[tuple[int, ...]] = set()
        self._summary: dict[str, Any] | None = None
        self._finished: Hand | None = None
        self._deal_no = self.game.deal_no
        self._advance()

    # --- the TableClient surface -----------------------------------------------------------

    def observation(self) -> Observation:
        if self._finished is not None:
            # The finished hand's number, with the game's record as it stands now.
            record = replace(self.game.record(), hand_no=self.game.hand_no - 1)
            return replace(self._finished.observe(self.seat), game=record)
        return self.game.observe(self.seat)

    def decision(self) -> Decision | None:
        if self._summary is not None or self.game.over:
            return None
        hand = self.game.hand
        phase, actor = hand.phase, hand.to_act()
        if phase == Phase.DEAL:
            return Decision.DECLARE if self._new_options(hand) else None
        if actor != self.seat:
            return None
        if phase == Phase.DECLARE:
            return Decision.DECLARE
        if phase == Phase.TALON:
            return Decision.BURY
        if phase == Phase.PLAY:
            return Decision.PLAY
        if phase == Phase.CALL:  # find-a-friend: the starter calls its friends
            return Decision.CALL
        return None

    def declaration_options(self) -> list[tuple[int, ...]]:
        if self._summary is not None or self.game.over:
            return []
        hand = self.game.hand
        rank = hand.trump_rank()
        options = [d.faces for d in hand.legal_declarations(self.seat)]
        return sorted(options, key=lambda f: (declaration_strength(f, rank), f))

    def submit(self, action: Action) -> str | None:
        if getattr(action, "seat", None) != self.seat:
            return f"you play seat {self.seat}"
        if isinstance(action, TakeBack):  # unasked, judged by the rules core alone
            try:
                self.game.apply(action)
            except ValueError as exc:
                return str(exc)
            self._events.append(f"{self._label(self.seat)} took back a play")
            self._changed()
            return None
        decision = self.decision()
        hand = self.game.hand
        in_deal = not self.game.over and self._summary is None and hand.phase == Phase.DEAL
        try:
            if isinstance(action, Declare) and (decision == Decision.DECLARE or in_deal):
                self._apply(action)
                if in_deal:  # don't stop the deal again to offer what is left of this
                    self._declined.update(self.declaration_options())
            elif isinstance(action, Pass) and decision == Decision.DECLARE:
                if hand.phase == Phase.DEAL:
                    self._declined.update(self.declaration_options())
                else:
                    self._apply(action)
            elif decision is None:
                return "it is not your turn"
            elif decision == Decision.DECLARE:
                return "declare one of the cards offered, or pass"
            elif decision == Decision.BURY and not isinstance(action, Bury):
                return f"bury {self.rules.talon_size} cards first"
            elif decision == Decision.PLAY and not isinstance(action, Play):
                return "play cards to the trick"
            elif decision == Decision.CALL and not isinstance(action, Call):
                return "call your friends first"
            else:
                self._apply(action)
        except ValueError as exc:  # IllegalAction and malformed actions
            return str(exc)
        self._advance()
        self._changed()
        return None

    def hint(self) -> Action | None:
        decision = self.decision()
        if decision is None:
            return None
        hand = self.game.hand
        # While dealing another seat draws, but the person's declaration is asked for.
        asked = hand.to_act() == self.seat or decision == Decision.DECLARE
        if self._hinter is not None and asked:
            try:
                action = self._hinter(hand, self.seat)
            except Exception:  # a broken hinter must not break the screen
                action = None
            if decision == Decision.DECLARE and action is not None:
                offered = isinstance(action, Declare) and action.seat == self.seat and \
                    tuple(action.faces) in self.declaration_options()
                return action if offered else Pass(self.seat)
            if isinstance(action, Draw):
                return Pass(self.seat)
            if action is not None:
                return action
        return self._default_hint(hand, decision)

    def advice(self) -> Hint | None:
        action = self.hint()
        if action is None:
            return None
        return Hint(action, reason(self.observation(), action, self.rules))

    def advisor(self) -> Callable[[], Hint | None] | None:
        """The advice worked out now (the hinter reads the live `Hand`, which must not be
        read from another thread), handed out to be taken later."""
        advice = self.advice()
        return None if advice is None else (lambda: advice)

    def chat(self, text: str) -> None:
        text = " ".join(text.split())
        if text:
            self._events.append(f"{self.names[self.seat]}: {text}")
            self._changed()

    def events(self) -> list[str]:
        return list(self._events)

    def banner(self) -> str | None:
        return None

    def takeback_refusal(self) -> str | None:
        return self.game.hand.takeback_refusal(self.seat)

    def summary(self) -> dict[str, Any] | None:
        return self._summary

    def next_hand(self) -> None:
        if self._summary is None:
            return
        self._summary = None
        self._finished = None
        self._advance()
        self._changed()

    # --- running the other seats -----------------------------------------------------------

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _new_options(self, hand: Hand) -> bool:
        """The person has a declaration they have not passed on (the deal stops for it)."""
        return any(d.faces not in self._declined for d in hand.legal_declarations(self.seat))

    def _waiting(self, hand: Hand, actor: int) -> bool:
        phase = hand.phase
        if phase == Phase.DEAL:
            return self._new_options(hand)
        if actor != self.seat:
            return False
        if phase == Phase.DECLARE:
            return bool(hand.legal_declarations(self.seat))
        return phase in (Phase.TALON, Phase.CALL, Phase.PLAY)

    def _advance(self) -> None:
        """Move every seat that is not waiting for the person (and the person's own draws,
        auction bids and shows, which the person does not decide here)."""
        while self._summary is None and not self.game.over:
            hand = self.game.hand
            actor = hand.to_act()
            if actor is None or self._waiting(hand, actor):
                return
            if actor == self.seat:
                if hand.phase == Phase.DEAL:
                    action: Action = Draw(self.seat)
                elif hand.phase == Phase.DECLARE:
                    action = Pass(self.seat)
                else:  # auction style: bids, the card-play and naming are automatic
                    action = self._policy_move(self._hinter or self._random_policy, hand, actor)
            else:
                action = self._policy_move(self._others, hand, actor)
            self._apply(action)

    def _policy_move(self, policy: Policy, hand: Hand, seat: int) -> Action:
        try:
            action = policy(hand, seat)
            probe = hand.clone()
            probe.apply(action)
            return action
        except Exception as exc:  # a faulty AI: say so, and play on with a legal move
            self._events.append(f"seat {seat}'s AI failed ({exc}); a random legal move is "
                                "played instead")
            return hand.random_action(self._rng)

    def _random_policy(self, hand: Hand, seat: int) -> Action:
        return hand.random_action(self._rng)

    def _default_hint(self, hand: Hand, decision: Decision) -> Action:
        seat = self.seat
        if decision == Decision.DECLARE:
            options = self.declaration_options()
            return Declare(seat, options[-1]) if options else Pass(seat)
        assert hand.ladder is not None
        ladder = hand.ladder
        cards = hand.hands[seat]
        if decision == Decision.BURY:
            # Lowest plain cards, point cards and trumps last.
            counts = {f: cards.count(f) for f in cards}
            ranked = sorted(cards, key=lambda f: (ladder.esuit[f] == 4, ladder.order[f] >= 10,
                                                  counts[f] > 1, ladder.order[f], f))
            return Bury(seat, tuple(ranked[: self.rules.talon_size]))
        rng = random.Random(f"{self.seed}:hint:{self.game.hand_no}:{len(hand.log)}")
        return hand.random_action(rng)

    # --- applying moves and telling about them ---------------------------------------------

    def _label(self, seat: int) -> str:
        """A seat in the log: its name (as between peers, `NetClient._name`)."""
        return self.names[seat]

    def _apply(self, action: Action) -> None:
        game = self.game
        hand = game.hand
        before_phase = hand.phase
        before_tricks = len(hand.tricks)
        leading = hand.phase == Phase.PLAY and not hand.current
        hand_no = game.hand_no
        friends_before = hand.sides.friends if hand.sides is not None else ()
        game.apply(action)  # raises IllegalAction: nothing changed
        seat = action.seat
        who = self._label(seat)
        if isinstance(action, Declare):
            self._events.append(f"{who} declares {format_cards(action.faces, symbols=True)}")
        elif isinstance(action, Bid):
            self._events.append(f"{who} bids {action.points}")
        elif isinstance(action, Pass) and before_phase not in (Phase.DEAL, Phase.DECLARE):
            self._events.append(f"{who} passes")
        elif isinstance(action, Show):
            self._events.append(f"{who} shows {format_cards(action.faces, symbols=True)}")
        elif isinstance(action, NameTrump):
            self._events.append(f"{who} names {_suit_text(action.suit)}")
        elif isinstance(action, Bury):
            self._events.append(f"{who} buries {len(action.faces)} cards")
        elif isinstance(action, Call):
            self._events.append(call_words(who, action.calls))
        elif isinstance(action, Play):
            self._tell_reveals(hand, friends_before)
            self._tell_play(hand, action, leading, before_tricks)
        if game.deal_no != self._deal_no and game.hand_no == hand_no:
            self._deal_no = game.deal_no
            self._declined.clear()
            self._events.append("nobody declared: the cards are shuffled and dealt again")
            return
        if hand.phase != before_phase:
            self._tell_phase(hand, before_phase)
        if game.hand_no != hand_no:
            self._end_hand(hand)

    def _tell_play(self, hand: Hand, action: Play, leading: bool, before_tricks: int) -> None:
        who = self._label(action.seat)
        cards = format_cards(action.faces, symbols=True)
        finished = len(hand.tricks) > before_tricks
        if leading:
            attempt = hand.current_attempt
            if attempt:
                forced = format_cards(hand.current[0], symbols=True)
                self._events.append(f"{who} throws {cards}: the throw fails, {forced} is led "
                                    f"(penalty {hand.current_penalty})")
            else:
                self._events.append(f"{who} leads {cards}")
        else:
            self._events.append(f"{who} plays {cards}")
        if finished:
            trick = hand.tricks[-1]
            side = self._side_word(hand, trick.winner)
            self._events.append(f"trick {len(hand.tricks)} to {self._label(trick.winner)}, "
                                f"{trick.points} points ({side})")

    def _side_word(self, hand: Hand, seat: int) -> str:
        """The side of a trick's winner, as far as the table knows it."""
        if not hand.friend_mode:
            return "defenders" if hand.is_defender(seat) else "declarers"
        if not hand.is_defender(seat):
            return "starter's side"
        settled = hand.sides is not None and hand.sides.settled
        return "defenders" if settled else "side not known yet"

    def _tell_reveals(self, hand: Hand, before: tuple[int | None, ...]) -> None:
        """Find-a-friend: the calls the last play made fall, each a line."""
        sides, starter = hand.sides, hand.starter
        if sides is None or starter is None:
            return
        for i, (was, seat) in enumerate(zip(before, sides.friends, strict=True)):
            if was is None and seat is not None:
                self._events.append(reveal_words(self._label(seat), self._label(starter),
                                                 sides.calls[i], seat == starter))

    def _tell_phase(self, hand: Hand, before: Phase) -> None:
        if before == Phase.DEAL and hand.phase == Phase.DECLARE:
            self._events.append("all cards are dealt: last chance to declare")
        if hand.phase == Phase.TALON and hand.trump is not None and hand.starter is not None:
            if hand.talon_revealed:
                shown = format_cards(hand.talon_revealed, symbols=True)
                self._events.append(f"nobody declared: the talon shows {shown}")
            trump = trump_text(hand.trump.to_data())
            self._events.append(f"trump: {trump}; {self._label(hand.starter)} starts and "
                                "takes the talon")

    def _end_hand(self, hand: Hand) -> None:
        result = hand.result
        assert result is not None
        self._finished = hand
        bonus = f" (talon bonus {result.talon_bonus})" if result.talon_turned else ""
        if hand.friend_mode:
            self._events.append(f"hand over: defenders {result.defender_points} points{bonus}")
            self._events += result_lines(self.rules, hand.levels, result.side, result.gaining,
                                         result.levels_gained, result.next_starter,
                                         self._label)[:2]
        else:
            if result.levels_gained:
                change = (f"team {result.gaining_team} goes up "
                          f"{count(result.levels_gained, 'level')}")
            else:
                change = f"team {result.gaining_team} takes over with no level gain"
            self._events.append(f"hand over: defenders {result.defender_points} points{bonus}; "
                                f"{change}; next starter {self._label(result.next_starter)}")
        show_buried = self.seat == hand.starter or result.talon_turned
        from tractor.cli.screen.summary_view import (
            strip_entry,  # the strip reads the same on both clients
        )
        self._summary = {
            "result": result.to_data(),
            "buried": format_cards(hand.buried) if show_buried else None,
            "levels": list(self.game.levels),
            "audit": LOCAL_AUDIT,
            "game_over": self.game.over,
            "strip": [strip_entry(number, played.observe(self.seat), played.result, self.rules)
                      for number, played in enumerate(self.game.hands_played, 1)
                      if played.result is not None],
        }
        if self.game.over and hand.friend_mode:
            won = " and ".join(self._label(s) for s in self.game.winners)
            self._events.append(f"game over: {won} win{'s' if len(self.game.winners) == 1 else ''}")
        elif self.game.over:
            self._events.append(f"game over: team {self.game.winner} wins")
