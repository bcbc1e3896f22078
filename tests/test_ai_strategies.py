"""The random and heuristic players: always legal (500 seeded hands, every variant family),
blind to hidden cards (the same decision in every world consistent with the seat's view),
and a few of the heuristic's habits on hands built to order."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest
from helpers import F

from tractor.actions import Declare, Draw, Play
from tractor.ai.players.base import Strategy
from tractor.ai.players.heuristic import HeuristicStrategy, choose_burial
from tractor.ai.players.random_ai import RandomStrategy
from tractor.ai.players.strategies import LEVELS, STRATEGIES, make_strategy
from tractor.ai.players.tracker import Tracker
from tractor.ai.players.trump_choice import choose_declaration, trump_strength
from tractor.ai.players.worlds import Knowledge
from tractor.hand import Hand
from tractor.phases import BID, DEAL, DECLARE, DONE, NAME, PLAY, REDEAL, SHOW, TALON
from tractor.rules import Rules, team_of
from tractor.trump import TRUMP, Trump

Probe = Callable[[Hand, int], None]


def drive(hand: Hand, seats: Sequence[Strategy], probe: Probe | None = None) -> Hand:
    """Play a hand to its end through `Hand.apply` (which refuses any illegal action).
    Every seat is asked to declare after each round of draws, as between peers."""
    n = hand.players
    while hand.phase not in (DONE, REDEAL):
        seat = hand.to_act()
        assert seat is not None
        if probe:
            probe(hand, seat)
        action = seats[seat].act(hand, seat)
        hand.apply(action)
        if isinstance(action, Draw) and hand.phase == DEAL and hand.drawn % n == 0:
            for i in range(n):
                s = (hand.first + i) % n
                decl = seats[s].declare(hand, s)
                if decl is not None:
                    hand.apply(decl)
    return hand


def new_hand(rules: Rules, seed: int, later: bool) -> Hand:
    rng = random.Random(f"test_ai:{seed}")
    deck = [f for f in range(54) for _ in range(rules.decks)]
    rng.shuffle(deck)
    first = rng.randrange(rules.players)
    levels = [rng.choice(["2", "7", "10", "A"])] * 2
    if later and rules.declaration == "reveal":
        return Hand(rules, deck, levels, first, starter=first, declarers=team_of(first))
    return Hand(rules, deck, levels, first)


def seats_for(seed: int, players: int) -> list[Strategy]:
    """Heuristic and random players mixed three ways, seeded per seat."""
    kind = seed % 3
    out: list[Strategy] = []
    for s in range(players):
        heur = kind == 0 or (kind == 1 and s % 2 == 0) or (kind == 2 and s % 2 == 1)
        out.append(HeuristicStrategy(seed * 10 + s) if heur else RandomStrategy(seed * 10 + s))
    return out


# (rules, first seed, count, later hand?): 500 hands in all.
FAMILIES = [
    (Rules(), 0, 220, True),
    (Rules(), 1000, 100, False),
    (Rules(must_play_tractor=True, rank_and_jokers_in_tractors=False), 2000, 60, True),
    (Rules(declaration="auction"), 3000, 60, False),
    (Rules(players=6, decks=3), 4000, 40, True),
    (Rules(players=6, decks=3, declaration="auction"), 5000, 20, False),
]
CHUNK = 20
CASES = [(rules, start + i, min(CHUNK, count - i), later)
         for rules, start, count, later in FAMILIES for i in range(0, count, CHUNK)]


@pytest.mark.parametrize("rules,start,count,later", CASES)
def test_strategies_play_only_legal_actions(rules: Rules, start: int, count: int,
                                            later: bool) -> None:
    finished = 0
    for seed in range(start, start + count):
        hand = drive(new_hand(rules, seed, later), seats_for(seed, rules.players))
        assert hand.phase in (DONE, REDEAL)
        if hand.phase == DONE:
            finished += 1
            assert all(not h for h in hand.hands)
    assert finished >= count // 2


# --- blind to hidden cards ------------------------------------------------------------------

def other_world(hand: Hand, seat: int, rng: random.Random) -> Hand:
    """A copy of ``hand`` in which every card ``seat`` cannot see is dealt again among the
    places it could be (other hands, the undealt deck, the talon or the buried cards), each
    place keeping its size, and the deck reshuffled."""
    w = hand.clone()
    n = hand.players
    phase = hand.phase
    slots: list[tuple[str, int]] = []
    pool: list[int] = []
    # The turned-over talon is public: the starter's copies of it stay where they are.
    public = list(hand.talon_revealed)
    for s in range(n):
        if s == seat:
            continue
        keep: list[int] = []
        hidden: list[int] = []
        for f in w.hands[s]:
            if s == hand.starter and f in public:
                public.remove(f)
                keep.append(f)
            else:
                hidden.append(f)
        w.hands[s] = keep
        pool += hidden
        slots += [("hand", s)] * len(hidden)
    talon_hidden = phase in (DECLARE, BID, SHOW, NAME)
    if talon_hidden:
        pool += w.talon
        slots += [("talon", 0)] * len(w.talon)
        w.talon = []
    buried_hidden = seat != hand.starter and phase in (PLAY, DONE)
    if buried_hidden:
        pool += w.buried
        slots += [("buried", 0)] * len(w.buried)
        w.buried = []
    undealt = list(w.deck[w.drawn:]) if phase == DEAL else []
    pool += undealt
    rng.shuffle(pool)
    it = iter(pool)
    for kind, s in slots:
        f = next(it)
        if kind == "hand":
            w.hands[s].append(f)
        elif kind == "talon":
            w.talon.append(f)
        else:
            w.buried.append(f)
    rest = list(it)
    if buried_hidden:
        # The starter may have buried exactly the talon it took (the turned-over cards
        # are public and stay in it).
        w.talon = (list(hand.talon_revealed) + w.buried)[: len(hand.talon)]
    if phase == DEAL:
        # The drawn part of the deck as the new hands would have drawn it.
        drawn = [w.hands[(w.first + i) % n][i // n] for i in range(w.drawn)]
        w.deck = drawn + rest
    else:
        deck = list(w.deck)
        rng.shuffle(deck)
        w.deck = deck
    return w


MAKERS: dict[str, Callable[[int], Strategy]] = {
    "heuristic": HeuristicStrategy,
    "random": RandomStrategy,
}

LEAK_CASES = [
    (Rules(), 7000, 10, True),
    (Rules(), 7100, 4, False),
    (Rules(declaration="auction"), 7200, 4, False),
    (Rules(players=6, decks=3), 7300, 3, True),
]


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("rules,start,count,later", LEAK_CASES)
def test_decisions_do_not_depend_on_hidden_cards(name: str, rules: Rules, start: int,
                                                 count: int, later: bool) -> None:
    make = MAKERS[name]
    probed: dict[str, int] = {}

    def probe(hand: Hand, seat: int) -> None:
        if hand.phase == DEAL and hand.drawn % 7:
            return
        seed = rng.randrange(1 << 30)
        world = other_world(hand, seat, rng)
        assert sorted(world.hands[seat]) == sorted(hand.hands[seat])
        real, alt = hand.clone(), world
        assert make(seed).act(real, seat) == make(seed).act(alt, seat)
        if hand.phase in (DEAL, DECLARE):
            for s in range(hand.players):
                w2 = other_world(hand, s, rng)
                assert make(seed).declare(hand.clone(), s) == make(seed).declare(w2, s)
        probed[hand.phase] = probed.get(hand.phase, 0) + 1

    for seed in range(start, start + count):
        rng = random.Random(seed)
        drive(new_hand(rules, seed, later), seats_for(seed, rules.players), probe)
    assert probed.get(PLAY, 0) > 50 and probed.get(DEAL, 0) > 0
    if rules.declaration == "auction":
        assert probed.get(BID, 0) and probed.get(SHOW, 0) and probed.get(NAME, 0)
    else:
        assert probed.get(DECLARE, 0)
    assert probed.get(TALON, 0)


def test_other_world_really_moves_hidden_cards() -> None:
    hand = new_hand(Rules(), 1, True)
    seats = seats_for(0, 4)
    while not (hand.phase == PLAY and len(hand.tricks) == 3):
        seat = hand.to_act()
        hand.apply(seats[seat].act(hand, seat))
    w = other_world(hand, 0, random.Random(5))
    assert w.hands[0] == hand.hands[0]
    assert [len(h) for h in w.hands] == [len(h) for h in hand.hands]
    assert w.hands[1:] != hand.hands[1:]
    assert sorted(sum(w.hands[1:], []) + w.buried) == sorted(sum(hand.hands[1:], [])
                                                                + hand.buried)
    assert sorted(w.talon) == sorted(w.buried) and w.deck != hand.deck


# --- the factory ----------------------------------------------------------------------------

def test_make_strategy() -> None:
    assert STRATEGIES == ("random", "heuristic", "search")
    assert LEVELS == ("easy", "normal", "hard")
    assert make_strategy("random", seed=3).name == "random"
    assert make_strategy("heuristic", "hard", 3).name == "heuristic"
    with pytest.raises(ValueError, match="unknown strategy"):
        make_strategy("oracle")
    with pytest.raises(ValueError, match="unknown level"):
        make_strategy("random", level="insane")
    try:
        import tractor.ai.players.search  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="search strategy is not available"):
            make_strategy("search")
    else:
        assert make_strategy("search", "easy", 1).name == "search"


def test_same_seed_same_game() -> None:
    rules = Rules()
    logs = []
    for _ in range(2):
        hand = drive(new_hand(rules, 42, True), seats_for(43, 4))
        logs.append([a.to_data() for a in hand.log])
    assert logs[0] == logs[1]


# --- habits of the heuristic, in positions built to order ------------------------------------

HEARTS_2 = Trump("2", "H")


def position(hands: Sequence[str], plays: Sequence[str] = (), trump: Trump = HEARTS_2,
             starter: int = 0, leader: int = 0) -> Hand:
    """A hand in the play phase holding exactly ``hands`` (the other cards are somewhere
    unseen), with ``plays`` made so far in the first trick from ``leader``."""
    rules = Rules()
    deck = [f for f in range(54) for _ in range(2)]
    hand = Hand.dealt(rules, deck, ["2", "2"], starter, trump, starter, team_of(starter))
    hand.hands = [F(h) for h in hands]
    hand.buried = []
    hand.phase = PLAY
    hand.leader = leader
    for i, p in enumerate(plays):
        hand.apply(Play((leader + i) % 4, tuple(F(p))))
    return hand


def decide(hand: Hand) -> str:
    seat = hand.to_act()
    assert seat is not None
    action = HeuristicStrategy().act(hand, seat)
    assert isinstance(action, Play)
    return " ".join(sorted(format_faces(action.faces)))


def format_faces(faces: Sequence[int]) -> list[str]:
    from tractor.cards import format_cards
    return format_cards(faces).split()


def test_feeds_points_to_a_partner_sure_to_win() -> None:
    # Seat 3 plays last; its partner (seat 1) is winning with the ace.
    hand = position(["3S 4D", "AS 5D", "4S 6D", "KS 6S 7S 8D"], ["3S", "AS", "4S"])
    assert decide(hand) == "KS"


def test_plays_low_when_the_trick_is_lost() -> None:
    # The opponent's ace wins; seat 3 cannot beat it and keeps its points.
    hand = position(["AS 4D", "3S 5D", "4S 6D", "KS 10S 6S 8D"], ["AS", "3S", "4S"])
    assert decide(hand) == "6S"


def test_ruffs_a_trick_with_points_when_void() -> None:
    hand = position(["10S 4D", "3S 5D", "4S 6D", "3H 9H 8D 9D"], ["10S", "3S", "4S"])
    assert decide(hand) == "3H"  # the cheapest trump that wins


def test_discards_low_when_void_and_losing() -> None:
    hand = position(["AS 4D", "3S 5D", "AH 6D", "KD 3D 8C QH"], ["AS", "3S", "AH"])
    assert decide(hand) == "3D"


def test_leads_a_safe_throw_of_top_cards() -> None:
    # Both aces of spades and a king: no other seat can beat any part of AS AS KS.
    hand = position(["AS AS KS 3D 4C", "5S 6S 7S 8S 9S", "2C", "2D"], [])
    assert decide(hand) == "AS AS KS"


def test_does_not_lead_a_beatable_king() -> None:
    hand = position(["KS 3C 4C", "5S 6S 7S", "2C", "2D"], [])
    assert decide(hand) in ("3C", "4C")


def test_tracker_counts_cards_and_voids() -> None:
    hand = position(["AS 4D", "5D 7D", "4S 6D", "3H 9H 8D 9D"], ["AS", "5D", "4S", "3H"])
    tr = Tracker(Knowledge.from_hand(hand, 0))
    assert 0 in tr.voids[1] and 0 in tr.voids[3] and not tr.voids[2]
    assert tr.unseen[F("AS")[0]] == 1 and tr.unseen[F("4D")[0]] == 1
    assert tr.unseen[F("3H")[0]] == 1  # one copy played, the other unseen
    assert tr.is_top(F("4D")[0]) is False and tr.is_top(F("AD")[0]) is True
    assert tr.trumps_out() == 36 - 1


def test_burial_keeps_trumps_points_and_pairs() -> None:
    rules = Rules()
    mine = ("RJ BJ 2H 2S AH KH 10H 5H 9H AS AS KS QS 10S 7S 7S AD KD 10D "
            "3D 4D 6D 8D 9C 3C 4C 6C 8C 10C 5C QC JC 2C")
    assert len(F(mine)) == 33
    hand = position([mine, "", "", ""])
    hand.phase = TALON
    hand.hands[0] = F(mine)
    assert rules.talon_size == 8
    buried = choose_burial(Knowledge.from_hand(hand, 0))
    assert len(buried) == 8
    ladder = hand.ladder
    assert all(ladder.esuit[f] != TRUMP for f in buried)
    assert F("AS")[0] not in buried and F("7S")[0] not in buried
    assert sum(1 for f in buried if f in F("10S 10D 10C 5C KD KS")) == 0


def test_declares_a_strong_suit_and_not_a_weak_one() -> None:
    rules = Rules()
    deck = [f for f in range(54) for _ in range(2)]
    hand = Hand(rules, deck, ["2", "2"], 0, starter=0, declarers=0)
    hand.hands[1] = F("2S AS KS QS 10S 9S 8S 6S 5S 4H 7D 9C 3C RJ")
    hand.hands[2] = F("2S 3H 4H 5H 6H 7D 8D 9D JC QC KC AD 3C 4C")
    strong = choose_declaration(Knowledge.from_hand(hand, 1))
    assert isinstance(strong, Declare) and strong.faces == tuple(F("2S"))
    assert choose_declaration(Knowledge.from_hand(hand, 2)) is None
    assert trump_strength(F("2S AS KS QS"), "2", "S") > trump_strength(F("2S AH KD QC"), "2",
                                                                         "S")
    # Never over the partner's declaration (seat 3 is seat 1's partner).
    hand.apply(Declare(1, tuple(F("2S"))))
    hand.hands[3] = F("2H 2H AH KH QH 10H 9H 8H 6H 5H 4H RJ RJ")
    assert choose_declaration(Knowledge.from_hand(hand, 3)) is None
    # An opponent much stronger in hearts overcalls with its pair.
    hand.hands[0] = F("2H 2H AH KH QH JH 10H 9H 8H 7H 3S 4D 5C RJ")
    assert choose_declaration(Knowledge.from_hand(hand, 0)) == Declare(0, tuple(F("2H 2H")))
