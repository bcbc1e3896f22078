"""`Game`: hands strung together, levels, the end of the game, redeals, the auction dealer,
replay from plain data, and the legality of what ``legal_actions``/``random_action`` offer."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from itertools import combinations, islice

import pytest
from helpers import F, build_deck

from tractor import (
    Bury,
    Declare,
    Draw,
    Game,
    IllegalAction,
    Pass,
    Play,
    Rules,
    Trump,
    action_from_data,
)
from tractor.actions import ActionDataError
from tractor.cards import format_cards
from tractor.rules import team_of

R = Rules()
RA = Rules(declaration="auction")


class ScriptedGame(Game):
    """A game whose shuffles are replaced by decks made for the hand about to be dealt; each
    script entry gives hands relative to that hand's first drawer, and the talon's start."""

    def __init__(self, rules: Rules, script: list[tuple[dict[int, str], str]], seed=0):
        self.script = list(script)
        super().__init__(rules, seed)

    def _deck(self) -> list[int]:
        hands, talon = self.script.pop(0)
        if self.rules.declaration == "auction":
            first = self.dealer
        else:
            first = self.starter if self.starter is not None else self.first_seat
        self.deal_no += 1
        n = self.rules.players
        return build_deck(self.rules, {(first + s) % n: c for s, c in hands.items()}, talon,
                          first)


def run_hand(g: Game, tricks: list[tuple[str, ...]], declare: str | None = None):
    """Deal, declare (the first drawer, in the window) or pass, bury the talon back, play."""
    h = g.hand
    while h.phase == "deal":
        g.apply(Draw(h.to_act()))
    if declare:
        g.apply(Declare.of(h.to_act(), declare))
    while h.phase == "declare":
        g.apply(Pass(h.to_act()))
    g.apply(Bury(h.starter, tuple(h.talon)))
    for plays in tricks:
        leader = h.to_act()
        for i, cards in enumerate(plays):
            g.apply(Play.of((leader + i) % h.players, cards))
    assert h.phase == "done"
    return h


SMALL = dict(talon_cards=96)  # hands of 3 cards

# Hand A, first hand: the first drawer declares 2H and its team holds the defenders to 0.
HAND_A = ({0: "2H AS AD", 1: "3C 4C 6C", 2: "3D 4D 6D", 3: "7C 8C 9C"}, "")
TRICKS_A = [("AS", "3C", "3D", "7C"), ("AD", "4C", "4D", "8C"), ("2H", "6C", "6D", "9C")]
# Hand B: trump rank 5, the talon shows 5S first; defender (starter + 1) trumps all three
# tricks (15 points), then the talon's 185 points x 2.
HAND_B = ({0: "3D 4D 6D", 1: "5H 5H 5C", 2: "3C 4C 6C", 3: "7C 8C 9C"}, "5S")
TRICKS_B = [("3D", "5H", "3C", "7C"), ("5H", "4C", "8C", "4D"), ("5C", "6C", "9C", "6D")]
# Hand C: trump rank 9, the talon shows 9C first; the starter's throw AS KS QS is trumped by
# the next seat: 10 points + 190 x 6.
HAND_C = ({0: "AS KS QS", 1: "9H 9H 9D", 2: "3D 4D 6D", 3: "3H 4H 6H"}, "9C")
TRICKS_C = [("AS KS QS", "9H 9H 9D", "3D 4D 6D", "3H 4H 6H")]


def test_levels_trump_rank_and_starters_across_hands_until_a_team_passes_ace():
    g = ScriptedGame(Rules(**SMALL), [HAND_A, HAND_B, HAND_C], seed=3)
    f = g.first_seat
    t = team_of(f)
    assert g.hand.first == f and g.hand.starter is None and g.levels == ["2", "2"]

    a = run_hand(g, TRICKS_A, declare="2H")
    assert a.starter == f and a.declarers == t and a.trump == Trump("2", "H")
    assert a.result.defender_points == 0 and a.result.levels_gained == 3
    assert g.hand_no == 1 and not g.over
    assert g.levels[t] == "5" and g.levels[1 - t] == "2"
    assert g.declarers == t and g.starter == (f + 2) % 4
    assert g.hand.first == g.starter and g.hand.starter == g.starter
    assert g.hand.declarers == t and g.hand.trump_rank() == "5"

    b = run_hand(g, TRICKS_B)
    assert b.trump == Trump("5", "S") and b.talon_revealed == F("5S")
    assert [tr.winner for tr in b.tricks] == [(f + 3) % 4] * 3
    r = b.result
    assert (r.defender_points, r.talon_points, r.talon_bonus) == (385, 185, 370)
    assert (r.next_declarers, r.gaining_team, r.levels_gained) == (1 - t, 1 - t, 7)
    assert g.levels[t] == "5" and g.levels[1 - t] == "9"
    assert g.declarers == 1 - t and g.starter == (f + 3) % 4
    assert g.hand.trump_rank() == "9" and g.hand.first == (f + 3) % 4

    c = run_hand(g, TRICKS_C)
    assert c.trump == Trump("9", "C")
    r = c.result
    assert (r.defender_points, r.talon_points, r.talon_bonus) == (1150, 190, 1140)
    assert (r.gaining_team, r.levels_gained) == (t, 26)
    assert g.over and g.winner == t and g.hand_no == 3
    assert g.levels[t] == "A" and g.levels[1 - t] == "9"
    obs = g.observation(0)
    assert obs["winner"] == t and obs["game_levels"] == g.levels and len(obs["history"]) == 3
    assert obs["history"] == [x.result.to_data() for x in (a, b, c)]
    assert g.to_act() is None
    assert all(list(g.legal_actions(s)) == [] for s in range(4))
    with pytest.raises(IllegalAction, match="the game is over"):
        g.apply(Draw(g.hand.to_act() or 0))
    with pytest.raises(IllegalAction, match="the game is over"):
        g.random_action(random.Random(0))
    assert g.hand_no == 3


def hand_a(rank: str):
    """HAND_A with a declaration of ``rank`` (the start level): the first drawer wins all."""
    return ({0: f"{rank}H AS AD", 1: "3C 4C 6C", 2: "3D 4D 6D", 3: "7C 8C 9C"}, ""), [
        ("AS", "3C", "3D", "7C"), ("AD", "4C", "4D", "8C"), (f"{rank}H", "6C", "6D", "9C")]


@pytest.mark.parametrize("start,win,over,level", [
    ("J", "reach_ace", True, "A"),    # J + 3 reaches Ace
    ("J", "past_ace", False, "A"),    # ... but does not pass it
    ("Q", "past_ace", True, "A"),     # Q + 3 passes Ace
    ("10", "reach_ace", False, "K"),
    ("10", "past_ace", False, "K"),
    ("A", "past_ace", True, "A"),
    ("A", "reach_ace", True, "A"),
])
def test_the_game_ends_when_a_team_reaches_or_passes_ace(start, win, over, level):
    script, tricks = hand_a(start)
    g = ScriptedGame(Rules(start_level=start, win=win, **SMALL), [script, HAND_B])
    t = team_of(g.first_seat)
    h = run_hand(g, tricks, declare=f"{start}H")
    assert h.result.defender_points == 0 and h.result.levels_gained == 3
    assert g.over is over and g.levels[t] == level and g.levels[1 - t] == start
    assert g.winner == (t if over else None)
    if over:
        with pytest.raises(IllegalAction, match="the game is over"):
            g.apply(Draw(0))
        assert g.to_act() is None
    else:
        assert g.hand.trump_rank() == level and g.to_act() == g.starter


@pytest.mark.parametrize("step,over,gain", [(150, False, 0), (200, False, 0), (130, True, 1)])
def test_a_team_at_ace_taking_over_without_gain_does_not_win(step, over, gain):
    # One card each, trump rank A: the first drawer declares AH and leads it, the next seat
    # takes it with RJ and the talon's 200 points x 2: 400 defender points.
    rules = Rules(talon_cards=104, start_level="A", level_step_points=step)
    g = ScriptedGame(rules, [({0: "AH", 1: "RJ", 2: "3C", 3: "3D"}, ""), ({}, "")])
    f = g.first_seat
    h = run_hand(g, [("AH", "RJ", "3C", "3D")], declare="AH")
    assert h.trump == Trump("A", "H") and h.declarers == team_of(f)
    r = h.result
    assert r.defender_points == 400 and r.gaining_team == 1 - team_of(f)
    assert r.levels_gained == gain and r.next_declarers == 1 - team_of(f)
    assert g.over is over and g.levels == ["A", "A"]
    assert g.winner == (1 - team_of(f) if over else None)
    if not over:
        assert g.declarers == 1 - team_of(f) and g.starter == (f + 1) % 4


def test_a_first_hand_nobody_declares_is_dealt_again_with_the_next_first_drawer():
    g = Game(seed=8)
    f = g.first_seat
    for k in range(1, 4):
        assert g.deal_no == k and g.first_seat == (f + k - 1) % 4
        old = g.hand
        while g.hand is old:
            h = g.hand
            g.apply(Draw(h.to_act()) if h.phase == "deal" else Pass(h.to_act()))
        assert old.phase == "redeal"
        assert g.deal_no == k + 1 and g.first_seat == (f + k) % 4
        assert g.hand.first == g.first_seat and g.hand.phase == "deal" and g.hand.drawn == 0
        assert g.hand.starter is None and g.hand.deck != old.deck
        assert g.hand_no == 0 and g.hands_played == [] and g.levels == ["2", "2"]
        assert len(g.actions) == k * (100 + 4)
    replay = Game.from_data(g.to_data())
    assert replay.hand.deck == g.hand.deck and replay.first_seat == g.first_seat
    assert [replay.observation(s) for s in range(4)] == [g.observation(s) for s in range(4)]


def test_auction_dealer_rotates_each_hand():
    g = Game(RA, seed=5)
    rng = random.Random(5)
    d = g.first_seat
    assert g.dealer == d and g.hand.first == d
    for k in range(1, 4):
        while g.hand_no < k:
            g.apply(g.random_action(rng))
        assert g.dealer == (d + k) % 4 and g.hand.first == g.dealer
        assert g.hand.phase == "deal" and g.hand.starter is None


@pytest.mark.parametrize("seed", range(12))
def test_auction_hands_pick_declarers_and_starter_as_documented(seed):
    g = Game(RA, seed=seed)
    rng = random.Random(seed)
    while g.hand_no < 3:
        g.apply(g.random_action(rng))
    for h in g.hands_played:
        if h.bids:
            top = max(p for _, p in h.bids)
            bidder = [s for s, p in h.bids if p == top]
            assert len(bidder) == 1 and h.declarers == team_of(bidder[0])
            assert [p for _, p in h.bids] == sorted(p for _, p in h.bids)
        else:
            assert h.declarers == team_of(h.first)
        assert [s for s, _ in h.shown] == [(h.first + i) % 4 for i in range(4)]
        ours = [(s, f) for s, f in h.shown if team_of(s) == h.declarers]
        key = [(100 + f if f >= 52 else f % 13) for _, f in ours]
        assert h.starter == ours[key.index(max(key))][0]
        rank = h.levels[h.declarers]
        assert h.trump in {Trump(rank, s) for s in "SHDC"} | {Trump(rank, None), Trump(None, None)}


# --- replay ------------------------------------------------------------------------------------

VARIANTS = [
    R, RA, Rules(players=6, decks=3), Rules(must_play_tractor=True, talon_multiplier="power"),
    Rules(tractor_across_rank=False, rank_and_jokers_in_tractors=False, win="reach_ace"),
]


@pytest.mark.parametrize("rules", VARIANTS)
@pytest.mark.parametrize("seed", [1, "x7"])
def test_replay_reproduces_every_observation(rules, seed):
    g = Game(rules, seed=seed)
    rng = random.Random(str(seed))
    stops = {0, 5, 60}
    steps = 0
    while not g.over and g.hand_no < 4:
        if steps in stops or g.hand.phase in ("talon", "name") or steps % 97 == 0:
            data = json.loads(json.dumps(g.to_data()))
            replay = Game.from_data(data)
            assert replay.to_data() == g.to_data()
            for s in range(rules.players):
                assert replay.observation(s) == g.observation(s)
            assert replay.hand.hands == g.hand.hands
        g.apply(g.random_action(rng))
        steps += 1
    replay = Game.from_data(g.to_data())
    assert replay.levels == g.levels and replay.hand_no == g.hand_no
    for s in range(rules.players):
        assert replay.observation(s) == g.observation(s)


def test_replay_of_a_whole_game_reproduces_the_end():
    g = Game(seed=12)
    rng = random.Random(12)
    while not g.over:
        g.apply(g.random_action(rng))
    replay = Game.from_data(g.to_data())
    assert replay.over and replay.winner == g.winner and replay.levels == g.levels
    assert [replay.observation(s) for s in range(4)] == [g.observation(s) for s in range(4)]
    data = g.to_data()
    data["actions"].append(["draw", 0])
    with pytest.raises(IllegalAction, match="the game is over"):
        Game.from_data(data)


def played_data(seed: int = 4, hands: int = 1) -> dict:
    g = Game(seed=seed)
    rng = random.Random(seed)
    while g.hand_no < hands:
        g.apply(g.random_action(rng))
    g.apply(g.random_action(rng))
    return g.to_data()


def test_replay_of_a_tampered_draw_raises():
    data = played_data()
    seat = data["actions"][0][1]
    data["actions"][0] = ["draw", (seat + 1) % 4]
    with pytest.raises(IllegalAction, match="turn"):
        Game.from_data(data)


def test_replay_of_swapped_plays_raises():
    data = played_data()
    acts = data["actions"]
    i = next(k for k, a in enumerate(acts) if a[0] == "play")
    acts[i], acts[i + 1] = acts[i + 1], acts[i]
    with pytest.raises(IllegalAction, match="turn"):
        Game.from_data(data)


def test_replay_of_a_play_with_other_cards_raises():
    data = played_data()
    acts = data["actions"]
    i = next(k for k, a in enumerate(acts) if a[0] == "play")
    # The leader of the first trick leads the cards it does not hold: one of each face.
    g = Game(R, data["seed"])
    for a in acts[:i]:
        g.apply(action_from_data(a))
    seat = acts[i][1]
    missing = [f for f in range(54) if f not in g.hand.hands[seat]]
    acts[i] = ["play", seat, format_cards(missing[:1])]
    with pytest.raises(IllegalAction, match="you do not hold"):
        Game.from_data(data)


def test_replay_of_a_bury_of_cards_not_held_raises():
    data = played_data()
    acts = data["actions"]
    i = next(k for k, a in enumerate(acts) if a[0] == "bury")
    acts[i] = ["bury", acts[i][1], "RJ RJ RJ AS AS AS KH KH"]
    with pytest.raises(IllegalAction, match="you do not hold"):
        Game.from_data(data)


def test_replay_of_a_dropped_action_raises():
    data = played_data()
    acts = data["actions"]
    i = next(k for k, a in enumerate(acts) if a[0] == "bury")
    del acts[i]
    with pytest.raises(IllegalAction):
        Game.from_data(data)


def test_replay_of_malformed_data_raises():
    data = played_data()
    data["actions"][3] = ["fly", 0]
    with pytest.raises(ActionDataError):
        Game.from_data(data)


# --- legal_actions and random_action -------------------------------------------------------------

def faces_key(action) -> tuple:
    if isinstance(action, (Play, Bury)):
        return (type(action).__name__, action.seat, tuple(sorted(action.faces)))
    return (type(action).__name__, action)


@pytest.mark.parametrize("rules,seed", [
    (R, 31), (R, 32), (RA, 33), (Rules(must_play_tractor=True), 34),
    (Rules(players=6, decks=3), 35),
])
def test_every_offered_action_is_accepted_on_a_fresh_copy(rules, seed):
    g = Game(rules, seed=seed)
    rng = random.Random(seed)
    plays = 0
    checked = Counter()
    while g.hand_no == 0:
        h = g.hand
        seat = h.to_act()
        check = h.phase != "play" and h.phase != "deal" or (
            h.phase == "play" and plays in (0, 1, 3, 4 * 7 + 2, 4 * 12, 4 * 20 + 3))
        if check:
            fresh = Game.from_data(g.to_data())
            offered = list(islice(g.legal_actions(seat), 300))
            assert offered
            assert len({faces_key(a) for a in offered}) == len(offered)  # no repeats
            for a in offered:
                c = copy.deepcopy(fresh)
                c.apply(a)
                assert c.actions[-1] == a
            checked[h.phase] += 1
        if h.phase == "play":
            plays += 1
        g.apply(g.random_action(rng))
    assert checked["play"] >= 5 and checked["talon"] == 1


def contains(actions, target, limit: int = 400_000) -> bool:
    key = faces_key(target)
    return any(faces_key(a) == key for a in islice(actions, limit))


@pytest.mark.parametrize("rules,seed", [
    (R, 41), (RA, 42), (Rules(must_play_tractor=True), 43), (Rules(decks=3), 44),
])
def test_random_action_is_always_a_legal_action(rules, seed):
    g = Game(rules, seed=seed)
    rng = random.Random(seed)
    n = 0
    while g.hand_no < 2:
        a = g.random_action(rng)
        h = g.hand
        if h.phase == "talon":
            assert len(a.faces) == rules.talon_size
            assert not Counter(a.faces) - Counter(h.hands[a.seat])
        elif h.phase in ("deal", "declare"):
            assert contains(g.legal_actions(h.to_act()), a)
        else:
            assert contains(g.legal_actions(h.to_act()), a), (h.phase, a)
        g.apply(a)
        n += 1
    assert n > 300


def test_random_bids_stay_within_the_total_with_one_deck():
    rules = Rules(decks=1, declaration="auction")
    for seed in range(60):
        g = Game(rules, seed=seed)
        rng = random.Random(seed)
        while g.hand_no == 0:
            a = g.random_action(rng)
            if g.hand.phase == "bid":
                assert contains(g.legal_actions(a.seat), a), a
            g.apply(a)


@pytest.mark.parametrize("seed", [51, 52, 53])
def test_small_follows_are_accepted_exactly_when_offered(seed):
    """For follows of up to 3 cards, every choice of cards from the hand is accepted by apply
    exactly when legal_actions offers it."""
    g = Game(seed=seed)
    rng = random.Random(seed)
    positions = 0
    while g.hand_no == 0:
        h = g.hand
        if h.phase == "play" and h.current and h.lead_format.size <= 3 and positions < 12:
            seat = h.to_act()
            offered = {tuple(sorted(a.faces)) for a in g.legal_actions(seat)}
            hand = h.hands[seat]
            choices = {tuple(sorted(c)) for c in combinations(hand, h.lead_format.size)}
            for c in choices:
                copy_h = copy.deepcopy(h)
                try:
                    copy_h.apply(Play(seat, c))
                    ok = True
                except IllegalAction:
                    ok = False
                assert ok == (c in offered), (c, ok)
            assert offered <= choices
            positions += 1
        g.apply(g.random_action(rng))
    assert positions == 12


def one_suit_leads(hand: list[int], ladder) -> set[tuple[int, ...]]:
    """Every non-empty sub-multiset of the hand lying in one effective suit."""
    out: set[tuple[int, ...]] = set()
    by_suit: dict[int, list[int]] = {}
    for f in hand:
        by_suit.setdefault(ladder.esuit[f], []).append(f)
    for cards in by_suit.values():
        for k in range(1, len(cards) + 1):
            out |= {tuple(sorted(c)) for c in combinations(cards, k)}
    return out


@pytest.mark.parametrize("rules,seed", [(R, 61), (Rules(decks=3), 62),
                                        (Rules(rank_and_jokers_in_tractors=False), 63)])
def test_every_one_suit_lead_is_offered_once(rules, seed):
    """Late in a hand (at most 9 cards left) the leads offered are exactly the sets of cards of
    one effective suit: singles, pairs, tractors and throws."""
    g = Game(rules, seed=seed)
    rng = random.Random(seed)
    positions = 0
    while g.hand_no == 0:
        h = g.hand
        if h.phase == "play" and not h.current and len(h.hands[h.to_act()]) <= 9:
            seat = h.to_act()
            offered = [tuple(sorted(a.faces)) for a in g.legal_actions(seat)]
            assert len(offered) == len(set(offered))
            assert set(offered) == one_suit_leads(h.hands[seat], h.ladder)
            positions += 1
        g.apply(g.random_action(rng))
    assert positions >= 3


@pytest.mark.parametrize("seed", [3, 8])
def test_a_clone_plays_on_independently_of_its_original(seed):
    g = Game(seed=seed)
    rng = random.Random(seed)
    for _ in range(150):
        g.apply(g.random_action(rng))
    before = {s: g.observation(s) for s in range(4)}
    c = g.clone()
    assert all(c.observation(s) == before[s] for s in range(4))
    rng2 = random.Random(seed + 1)
    while c.hand_no == 0:
        c.apply(c.random_action(rng2))
    assert all(g.observation(s) == before[s] for s in range(4))
    assert Game.from_data(c.to_data()).observation(1) == c.observation(1)


def test_records_and_observations_survive_msgpack():
    msgpack = pytest.importorskip("msgpack")
    g = Game(Rules(declaration="auction"), seed=12)
    rng = random.Random(12)
    while g.hand_no < 2:
        g.apply(g.random_action(rng))
    for _ in range(40):
        g.apply(g.random_action(rng))
    record = msgpack.unpackb(msgpack.packb(g.to_data()), raw=False)
    assert record == g.to_data()
    replayed = Game.from_data(record)
    for seat in range(4):
        obs = msgpack.unpackb(msgpack.packb(g.observation(seat)), raw=False)
        assert obs == replayed.observation(seat)
