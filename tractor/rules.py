"""`Rules`: one frozen value holding every variant option of a game.

Defaults follow seed 000 (see ``seeds/README.md``); seed 001 and the options
players of other Tractor programs ask for are switches.

>>> r = Rules()
>>> r.hand_size, r.talon_size, r.total_points, r.level_step
(25, 8, 200, 40)
>>> Rules(players=6, decks=3).hand_size
26
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from .cards import RANKS
from .errors import CoreError

Seat = int  #: 0 .. players-1, in playing order


class RulesError(CoreError):
    """An impossible combination of variant options."""


DeclarationStyle = Literal["reveal", "auction"]
TalonMultiplier = Literal["seed", "power"]
WinCondition = Literal["past_ace", "reach_ace"]
ThrowRuff = Literal["highest_pair", "largest_component"]
ThrowForced = Literal["lowest", "first_claimant"]
GameMode = Literal["teams", "friends"]
FriendCards = Literal["no_trump", "trump_too", "no_highest", "no_points"]
FriendJoin = Literal["unrestricted", "no_double"]
ThrowPenaltyPer = Literal["card", "attempt"]
JokerDeclare = Literal["pair", "decks", "none"]

#: Values of the two throw options, the default first (seeds/README.md, "Throws").
THROW_RUFFS: tuple[str, ...] = ("highest_pair", "largest_component")
THROW_FORCED: tuple[str, ...] = ("lowest", "first_claimant")
#: Values of the find-a-friend options, the default first (seeds/README.md, "Find a friend").
MODES: tuple[str, ...] = ("teams", "friends")
FRIEND_CARDS: tuple[str, ...] = ("no_trump", "trump_too", "no_highest", "no_points")
FRIEND_JOIN: tuple[str, ...] = ("unrestricted", "no_double")
#: Values of the house-rule options, the default first (seeds/README.md, "House rules").
THROW_PENALTY_PER: tuple[str, ...] = ("card", "attempt")
JOKER_DECLARE: tuple[str, ...] = ("pair", "decks", "none")
#: `Rules.must_defend` separates its levels with this (a comma separates ``--rules`` items).
LEVEL_SEPARATOR = "/"


@dataclass(frozen=True, slots=True)
class Rules:
    decks: int = 2
    players: int = 4
    #: "reveal": trump declared by showing rank cards while drawing (seed 000);
    #: "auction": points auction, then a card-play picks the starter (seed 001).
    declaration: DeclarationStyle = "reveal"
    #: "seed": talon points x2 for a one-card last trick, x(2*n) for n cards (seed 000);
    #: "power": x2 per card of the last trick's lead (x2**n).
    talon_multiplier: TalonMultiplier = "seed"
    start_level: str = "2"
    win: WinCondition = "past_ace"
    tractor_across_rank: bool = True
    rank_and_jokers_in_tractors: bool = True
    must_play_tractor: bool = False
    throw_penalty: int = 10
    #: Points per level band of the scoring table; None means 20 per deck (40 for two).
    level_step_points: int | None = None
    #: Talon size; None derives the smallest talon of at least 6 cards that
    #: leaves equal hands.
    talon_cards: int | None = None
    #: A plain-suit throw ruffed by several void seats: "highest_pair": the highest paired
    #: trump wins, the highest single trump when the throw has no pair (seeds 000, 004);
    #: "largest_component": the highest component matching the throw's largest one wins.
    throw_ruff: ThrowRuff = "highest_pair"
    #: The part a failed throw is forced to: "lowest": of every component some seat can
    #: beat, the smallest shape, then the lowest card; "first_claimant": the same, among
    #: the components that the first seat (in playing order) able to beat one can beat.
    throw_forced: ThrowForced = "lowest"
    #: "teams": fixed teams alternate seats (seeds 000, 001); "friends": find-a-friend, the
    #: starter calls its partners by card after burying, any number of players from 4.
    mode: GameMode = "teams"
    #: Find-a-friend: how many friends the starter calls; None: half the table less the
    #: starter, rounded down (5 players: 1, 6: 2, 7: 2, 8: 3).
    friends: int | None = None
    #: Find-a-friend: which cards may be called. "no_trump": any card but a trump (the
    #: default); "trump_too": any card; "no_highest": no trump and no card that is the
    #: highest of its suit (an ace; a king when aces are trump); "no_points": no trump and
    #: no point card (a king is allowed when the starter's level is ace).
    friend_cards: FriendCards = "no_trump"
    #: Find-a-friend: a called card played by a seat on the starter's side already.
    #: "unrestricted": the call is spent on it, the side stays smaller (and the starter
    #: plays alone when every call falls to itself); "no_double": the call waits for the
    #: next copy played by a seat not on the side yet.
    friend_join: FriendJoin = "unrestricted"
    #: Find-a-friend: a starter's side smaller than called that wins the hand gains one
    #: level more.
    smaller_side_bonus: bool = True
    #: A failed throw's penalty: ``throw_penalty`` points per card taken back ("card", seed
    #: 000) or once per failed throw ("attempt").
    throw_penalty_per: ThrowPenaltyPer = "card"
    #: Levels a side cannot pass unless it wins a hand as declarers at that level, written
    #: "5/10/K" (in level order; "" none): a gain stops there (`tractor.scoring`).
    must_defend: str = ""
    #: Which jokers declare no trump: "pair" (two identical jokers), "decks" (as many
    #: identical jokers as there are decks), "none" (no trump cannot be declared).
    joker_declare: JokerDeclare = "pair"
    #: Whether a seat may overcall its own standing declaration (a single made a pair).
    reinforce_own: bool = True
    #: Hide the cards played: the screens show only the trick in play and the last one.
    hide_played: bool = False
    #: Show every seat the buried cards when a hand ends (else only the starter sees them,
    #: and everyone when the defenders turn the talon over; a replay shows them all).
    show_talon: bool = False
    #: Kitty theft (reveal style only): after each burial the other seats, in playing order,
    #: may overcall the standing declaration; an overcaller takes the buried cards, buries as
    #: many and changes trump (the starter and the declaring side stay).
    kitty_theft: bool = False
    #: A seat may take back its last play until the next seat has played (seeds/README.md,
    #: "Take-backs"); on at practice tables (`tractor play`), off by default.
    takebacks: bool = False

    def __post_init__(self) -> None:
        # Rules may arrive from a peer: check types exactly before any arithmetic.
        for f in fields(self):
            value = getattr(self, f.name)
            expected = _FIELD_TYPES[f.name]
            if not any(type(value) is t for t in expected):
                names = " or ".join("None" if t is type(None) else t.__name__ for t in expected)
                raise RulesError(f"option {f.name} must be {names}, not {value!r:.40}")
        if not 1 <= self.decks <= MAX_DECKS:
            raise RulesError(f"decks must be 1 to {MAX_DECKS}")
        if self.mode not in MODES:
            raise RulesError(f"mode must be {' or '.join(MODES)} (find-a-friend), "
                             f"not {self.mode!r:.40}")
        if not 4 <= self.players <= MAX_PLAYERS:
            raise RulesError(f"players must be 4 to {MAX_PLAYERS}")
        if self.mode == "teams" and self.players % 2:
            raise RulesError(f"players must be an even number from 4 to {MAX_PLAYERS} "
                             "(teams alternate seats); an odd table plays mode=friends")
        if self.friend_cards not in FRIEND_CARDS:
            raise RulesError(f"friend_cards is {'/'.join(FRIEND_CARDS)}; "
                             f"not {self.friend_cards!r:.20}")
        if self.friend_join not in FRIEND_JOIN:
            raise RulesError(f"friend_join must be {' or '.join(FRIEND_JOIN)}, "
                             f"not {self.friend_join!r:.40}")
        if self.friends is not None:
            if self.mode != "friends":
                raise RulesError("friends (how many are called) is an option of mode=friends")
            if not 1 <= self.friends <= self.players - 2:
                raise RulesError(f"friends must be 1 to {self.players - 2} at a table of "
                                 f"{self.players} (the starter's side must be smaller than "
                                 "the table)")
        if self.mode == "friends" and self.declaration != "reveal":
            raise RulesError("find-a-friend declares trump by revealing cards while drawing "
                             "(declaration=reveal): the auction picks a team, not a starter "
                             "alone")
        if self.declaration not in ("reveal", "auction"):
            raise RulesError(f"unknown declaration style {self.declaration!r}")
        if self.kitty_theft and self.declaration != "reveal":
            raise RulesError("kitty_theft needs declaration=reveal: the kitty goes to a later "
                             "overcall, and in the auction nobody overcalls the trump the "
                             "starter names")
        if self.talon_multiplier not in ("seed", "power"):
            raise RulesError(f"unknown talon multiplier {self.talon_multiplier!r}")
        if self.win not in ("past_ace", "reach_ace"):
            raise RulesError(f"unknown win condition {self.win!r}")
        if self.throw_ruff not in THROW_RUFFS:
            raise RulesError(f"throw_ruff must be {' or '.join(THROW_RUFFS)}, "
                             f"not {self.throw_ruff!r:.40}")
        if self.throw_forced not in THROW_FORCED:
            raise RulesError(f"throw_forced must be {' or '.join(THROW_FORCED)}, "
                             f"not {self.throw_forced!r:.40}")
        self._check_house_rules()
        if self.start_level not in RANKS:
            raise RulesError(f"start_level must be a level, 2 to 10, J, Q, K or A; "
                             f"not {self.start_level!r:.30}")
        if self.throw_penalty < 0:
            raise RulesError("throw penalty cannot be negative")
        if self.level_step_points is not None and (
            self.level_step_points <= 0 or self.level_step_points % 5
        ):
            raise RulesError("level step must be a positive multiple of 5 points")
        if self.talon_cards is not None:
            t = self.talon_cards
            if t < 0 or (self.total_cards - t) % self.players or t >= self.total_cards:
                raise RulesError(
                    f"a talon of {t} does not leave {self.players} equal hands "
                    f"of {self.total_cards} cards"
                )
        if self.hand_size < 1:
            raise RulesError("not enough cards for that many players")
        if self.throw_penalty > 1000 or (self.level_step_points or 0) > 1000:
            raise RulesError("throw penalty and level step are at most 1000 points")

    def _check_house_rules(self) -> None:
        """The options of seeds/README.md's "House rules" (types are checked already)."""
        for name, values in (("throw_penalty_per", THROW_PENALTY_PER),
                             ("joker_declare", JOKER_DECLARE)):
            if getattr(self, name) not in values:
                raise RulesError(f"{name} must be {', '.join(values)}, "
                                 f"not {getattr(self, name)!r:.40}")
        if len(self.must_defend) > 60:
            raise RulesError("must_defend lists at most the 13 levels")
        typed = [x.strip() for x in self.must_defend.split(LEVEL_SEPARATOR)]
        typed = [x for x in typed if x and x.upper() != "NONE"]
        # Read in any case, but a refusal quotes the level as it was written.
        bad = [x for x in typed if x.upper() not in RANKS]
        if bad:
            raise RulesError(f"must_defend lists levels joined by {LEVEL_SEPARATOR!r}, as "
                             f"5/10/K; not {bad[0]!r:.40}")
        levels = [x.upper() for x in typed]
        # One spelling of each set, so peers that write it otherwise agree on the rules.
        canonical = LEVEL_SEPARATOR.join(r for r in RANKS if r in levels)
        object.__setattr__(self, "must_defend", canonical)

    @property
    def must_defend_levels(self) -> frozenset[str]:
        """The levels of `must_defend`.

        >>> sorted(Rules(must_defend="k/5 / 10").must_defend_levels, key=RANKS.index)
        ['5', '10', 'K']
        >>> Rules(must_defend="K/5").must_defend
        '5/K'
        """
        return frozenset(x for x in self.must_defend.split(LEVEL_SEPARATOR) if x)

    @property
    def no_trump_jokers(self) -> int:
        """How many identical jokers declare no trump (0: none may).

        >>> Rules().no_trump_jokers, Rules(joker_declare="decks", decks=3).no_trump_jokers
        (2, 3)
        """
        if self.joker_declare == "none":
            return 0
        return self.decks if self.joker_declare == "decks" else 2

    def throw_penalty_for(self, withdrawn: int) -> int:
        """The penalty of a failed throw that took back ``withdrawn`` cards.

        >>> Rules().throw_penalty_for(2), Rules(throw_penalty_per="attempt").throw_penalty_for(2)
        (20, 10)
        """
        if withdrawn <= 0:
            return 0
        return self.throw_penalty * (1 if self.throw_penalty_per == "attempt" else withdrawn)

    @property
    def total_cards(self) -> int:
        return 54 * self.decks

    @property
    def talon_size(self) -> int:
        if self.talon_cards is not None:
            return self.talon_cards
        t = 6
        while (self.total_cards - t) % self.players:
            t += 1
        return t

    @property
    def hand_size(self) -> int:
        return (self.total_cards - self.talon_size) // self.players

    @property
    def total_points(self) -> int:
        return 100 * self.decks

    @property
    def level_step(self) -> int:
        return self.level_step_points or 20 * self.decks

    @property
    def teams(self) -> int:
        """Fixed teams: 2. Find-a-friend: 0 (the sides are made in each hand)."""
        return 2 if self.mode == "teams" else 0

    @property
    def friend_calls(self) -> int:
        """How many friends the starter calls in find-a-friend (0 with fixed teams).

        >>> Rules(players=5, mode="friends").friend_calls, Rules(players=8, mode="friends",
        ...     decks=3).friend_calls, Rules().friend_calls
        (1, 3, 0)
        """
        if self.mode != "friends":
            return 0
        return self.friends if self.friends is not None else max(1, self.players // 2 - 1)

    @property
    def level_count(self) -> int:
        """How many levels a game keeps: one per team, or one per player in find-a-friend."""
        return 2 if self.mode == "teams" else self.players

    def to_data(self) -> dict[str, Any]:
        """Plain data (msgpack- and JSON-friendly). The find-a-friend options and the later
        ones (`takebacks`) appear only when one differs from its default, so the rules of a
        game without them read as they did before they existed (journals, the digests peers
        agree on)."""
        data = asdict(self)
        for name, default in _LATER_DEFAULTS.items():
            if data[name] == default:
                del data[name]
        return data

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """Every option's name, in order (`to_data` leaves out some at their defaults)."""
        return tuple(_FIELD_TYPES)

    @classmethod
    def text_options(cls) -> frozenset[str]:
        """The options whose values are text (so "10" stays the level, not a number)."""
        return frozenset(name for name, types in _FIELD_TYPES.items() if types == (str,))

    @classmethod
    def from_data(cls, data: Any) -> Rules:
        """Read `to_data` output (possibly from a peer); anything else raises `RulesError`."""
        if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
            raise RulesError("rules must be a map of option names to values")
        unknown = set(data) - set(_FIELD_TYPES)
        if unknown:
            # Named as a terminal can show them: a peer's words go into the sentence.
            shown = ("".join(c if c.isprintable() else "?" for c in name)
                     for name in sorted(unknown))
            raise RulesError(f"unknown rules option(s): {', '.join(shown)[:200]}")
        return cls(**data)


MAX_DECKS = 6
MAX_PLAYERS = 12

_NONE = type(None)
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "decks": (int,), "players": (int,), "declaration": (str,), "talon_multiplier": (str,),
    "start_level": (str,), "win": (str,), "tractor_across_rank": (bool,),
    "rank_and_jokers_in_tractors": (bool,), "must_play_tractor": (bool,),
    "throw_penalty": (int,), "level_step_points": (int, _NONE), "talon_cards": (int, _NONE),
    "throw_ruff": (str,), "throw_forced": (str,), "mode": (str,), "friends": (int, _NONE),
    "friend_cards": (str,), "friend_join": (str,), "smaller_side_bonus": (bool,),
    "throw_penalty_per": (str,), "must_defend": (str,), "joker_declare": (str,),
    "reinforce_own": (bool,), "hide_played": (bool,), "show_talon": (bool,),
    "kitty_theft": (bool,), "takebacks": (bool,),
}


#: Options added after the plain-data form was first fixed, with their defaults (`to_data`).
_LATER_DEFAULTS: dict[str, object] = {
    "mode": "teams", "friends": None, "friend_cards": "no_trump",
    "friend_join": "unrestricted", "smaller_side_bonus": True,
    "throw_penalty_per": "card", "must_defend": "", "joker_declare": "pair",
    "reinforce_own": True, "hide_played": False, "show_talon": False,
    "kitty_theft": False, "takebacks": False,
}


def team_of(seat: int) -> int:
    """Teams alternate seats: even seats are team 0, odd seats team 1."""
    return seat % 2
