"""What one seat may know, as a typed value: `Observation` (and a game's `GameRecord`).

`tractor.public.PublicHand.observe_seat` is the one place an observation is made, for the
rules core's `Hand` and for the peers' table alike; the AI, the screens and the table read
its fields (cards are face numbers, never text). `Observation.to_data` is the documented
plain-data form (``Hand.observation(seat)`` / ``Game.observation(seat)``: cards as text,
lists, msgpack- and JSON-friendly), and `Observation.from_data` reads it back:

>>> import random
>>> from tractor.game import Game
>>> g, rng = Game(seed=3), random.Random(1)
>>> while len(g.hand.tricks) < 2:
...     g.apply(g.random_action(rng))
>>> obs = g.observe(0)
>>> obs.phase, obs.trump, obs.hand[:4]
(<Phase.PLAY: 'play'>, Trump(rank='2', suit='S'), (52, 26, 39, 10))
>>> obs.tricks[-1]
Trick(leader=0, plays=((52,), (5,), (9,), (11,)), winner=0, points=10, attempted=None, penalty=0)
>>> data = obs.to_data()
>>> data["phase"], data["trump"], data["hand"][:11], data["tricks"][-1]["plays"]
('play', ['2', 'S'], 'BJ 2D 2C QS', ['BJ', '7S', 'JS', 'KS'])
>>> data == g.observation(0), Observation.from_data(data) == obs
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import format_cards, parse_faces
from .errors import CoreError
from .friends import FriendCall, format_calls, parse_calls
from .phases import TABLE_ONLY, Face, Phase, Seat
from .records import HandResult, Trick
from .rules import Rules
from .trump import Trump

#: A declaration shown: the seat and its cards.
Declaration = tuple[Seat, tuple[Face, ...]]


class ObservationDataError(CoreError):
    """Plain data that is not an observation (`Observation.to_data` output)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The game around a hand, public to every seat: the rules, hands completed, the
    teams' levels now (``game_levels`` in plain data), the winning team once the game is
    over, and every finished hand's public result."""

    rules: Rules
    hand_no: int
    levels: tuple[str, ...]
    winner: int | None
    history: tuple[HandResult, ...]

    def to_data(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_data(),
            "hand_no": self.hand_no,
            "game_levels": list(self.levels),
            "winner": self.winner,
            "history": [r.to_data() for r in self.history],
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> GameRecord:
        return cls(Rules.from_data(d["rules"]), d["hand_no"], tuple(d["game_levels"]),
                   d["winner"], tuple(HandResult.from_data(r) for r in d["history"]))


@dataclass(frozen=True, slots=True)
class Observation:
    """Exactly what ``seat`` may know about the hand now (and, from a `tractor.game.Game`,
    about the game: ``game``; None for a hand alone).

    ``hand`` is the seat's own cards in display order (trumps first, then the suits, high
    to low; face order before the trump is known). ``talon`` is the talon as dealt, shown
    only to the starter once it took it; ``buried`` the buried cards, known to the seat that
    buried them (the starter, or the last to take the kitty: ``exchanger``) and, once the
    defenders turned the talon over, to everyone (None when unknown or not yet buried).
    ``window_passes`` counts passes since the last declaration in the final declaring
    window, or since the last burial in the kitty-theft window (0 outside them).
    ``current_attempt`` is the throw a failed lead of the current trick tried
    (``current[0]`` is what stands). ``result``'s ``talon_points`` are hidden (0) unless
    the talon was turned over, as in its plain data.
    """

    seat: Seat
    phase: Phase
    to_act: Seat | None
    levels: tuple[str, ...]
    declarers: int | None
    starter: Seat | None
    first: Seat
    trump: Trump | None
    trump_rank: str
    hand: tuple[Face, ...]
    hand_sizes: tuple[int, ...]
    cards_dealt: int
    declarations: tuple[Declaration, ...]
    window_passes: int
    talon_revealed: tuple[Face, ...]
    talon: tuple[Face, ...] | None
    buried: tuple[Face, ...] | None
    bids: tuple[tuple[Seat, int], ...]
    passed_auction: tuple[Seat, ...]  #: in seat order
    shown: tuple[tuple[Seat, Face], ...]
    tricks: tuple[Trick, ...]
    leader: Seat
    current: tuple[tuple[Face, ...], ...]
    current_attempt: tuple[Face, ...] | None
    defender_points: int
    penalties: int
    result: HandResult | None
    game: GameRecord | None = None
    #: Find-a-friend: the starter's calls (empty before it calls, and with fixed teams) and,
    #: for each, the seat it fell to (None while it waits).
    calls: tuple[FriendCall, ...] = ()
    friends: tuple[Seat | None, ...] = ()
    #: Kitty theft: each overcall that took the kitty after a burial, in order (each is in
    #: ``declarations`` too); the last one's seat holds the kitty.
    thefts: tuple[Declaration, ...] = ()
    #: Kitty theft: the buried cards this seat took by its overcall, shown to it while it
    #: holds them to bury again (None otherwise), as ``talon`` is to the starter.
    kitty: tuple[Face, ...] | None = None

    @property
    def players(self) -> int:
        return len(self.hand_sizes)

    @property
    def exchanger(self) -> Seat | None:
        """The seat holding the kitty: the last to take it by an overcall, or the starter."""
        return self.thefts[-1][0] if self.thefts else self.starter

    @property
    def declaring(self) -> tuple[Seat, ...]:
        """The seats known to be on the declaring side: the declaring team's; in
        find-a-friend (no team: ``declarers`` None once a starter is known) the starter,
        then the friends revealed so far in the order of the calls they answered."""
        if self.declarers is not None:
            return tuple(s for s in range(self.players) if s % 2 == self.declarers)
        if self.starter is None:
            return ()
        joined = [s for s in self.friends if s is not None and s != self.starter]
        return (self.starter, *dict.fromkeys(joined))

    def to_data(self) -> dict[str, Any]:
        """The plain-data observation: the same keys and text formats as always (cards as
        text like ``"AS 10H"``), and the game's keys when ``game`` is set."""
        data = {
            "seat": self.seat,
            "phase": str(self.phase),
            "to_act": self.to_act,
            "levels": list(self.levels),
            "declarers": self.declarers,
            "starter": self.starter,
            "first": self.first,
            "trump": self.trump.to_data() if self.trump else None,
            "trump_rank": self.trump_rank,
            "hand": format_cards(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "cards_dealt": self.cards_dealt,
            "declarations": [[s, format_cards(f)] for s, f in self.declarations],
            "window_passes": self.window_passes,
            "talon_revealed": format_cards(self.talon_revealed),
            "talon": format_cards(self.talon) if self.talon is not None else None,
            "buried": format_cards(self.buried) if self.buried is not None else None,
            "bids": [list(b) for b in self.bids],
            "passed_auction": list(self.passed_auction),
            "shown": [[s, format_cards([f])] for s, f in self.shown],
            "tricks": [t.to_data() for t in self.tricks],
            "leader": self.leader,
            "current": [format_cards(p) for p in self.current],
            "current_attempt": (format_cards(self.current_attempt)
                                if self.current_attempt else None),
            "defender_points": self.defender_points,
            "penalties": self.penalties,
            "result": self.result.to_data() if self.result else None,
        }
        if self.calls:
            data["calls"] = format_calls(self.calls)
            data["friends"] = list(self.friends)
        if self.thefts:
            data["thefts"] = [[s, format_cards(f)] for s, f in self.thefts]
        if self.kitty is not None:
            data["kitty"] = format_cards(self.kitty)
        if self.game is not None:
            data.update(self.game.to_data())
        return data

    @classmethod
    def from_data(cls, d: Any) -> Observation:
        """Read `to_data` output back (a `Game` observation's keys into ``game``); anything
        else raises `ObservationDataError`."""
        try:
            return cls._from_data(d)
        except ObservationDataError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ObservationDataError(f"not an observation: {exc!s:.100}") from exc

    @classmethod
    def _from_data(cls, d: dict[str, Any]) -> Observation:
        if not isinstance(d, dict):
            raise ObservationDataError("an observation is a map")
        return cls(
            seat=d["seat"],
            phase=_hand_phase(d["phase"]),
            to_act=d["to_act"],
            levels=tuple(d["levels"]),
            declarers=d["declarers"],
            starter=d["starter"],
            first=d["first"],
            trump=Trump.from_data(d["trump"]) if d["trump"] is not None else None,
            trump_rank=d["trump_rank"],
            hand=_faces(d["hand"]),
            hand_sizes=tuple(d["hand_sizes"]),
            cards_dealt=d["cards_dealt"],
            declarations=tuple((s, _faces(f)) for s, f in d["declarations"]),
            window_passes=d["window_passes"],
            talon_revealed=_faces(d["talon_revealed"]),
            talon=_faces(d["talon"]) if d["talon"] is not None else None,
            buried=_faces(d["buried"]) if d["buried"] is not None else None,
            bids=tuple((s, p) for s, p in d["bids"]),
            passed_auction=tuple(d["passed_auction"]),
            shown=tuple((s, _one_face(f)) for s, f in d["shown"]),
            tricks=tuple(Trick.from_data(t) for t in d["tricks"]),
            leader=d["leader"],
            current=tuple(_faces(p) for p in d["current"]),
            current_attempt=(_faces(d["current_attempt"]) if d["current_attempt"]
                             else None),
            defender_points=d["defender_points"],
            penalties=d["penalties"],
            result=HandResult.from_data(d["result"]) if d["result"] is not None else None,
            game=GameRecord.from_data(d) if "rules" in d else None,
            calls=parse_calls(d["calls"]) if d.get("calls") else (),
            friends=tuple(d.get("friends", ())),
            thefts=tuple((s, _faces(f)) for s, f in d.get("thefts", ())),
            kitty=_faces(d["kitty"]) if d.get("kitty") is not None else None,
        )


def _hand_phase(text: str) -> Phase:
    phase = Phase(text)
    if phase in TABLE_ONLY:  # a step of the peers' table: no hand of the rules core has it
        raise ObservationDataError(f"no hand is observed in the {phase} phase")
    return phase


def _faces(text: str) -> tuple[Face, ...]:
    return tuple(parse_faces(text))


def _one_face(text: str) -> Face:
    faces = parse_faces(text)
    if len(faces) != 1:
        raise ObservationDataError(f"a shown card is one card, not {text!r:.20}")
    return faces[0]
