"""Property tests (hypothesis, derandomized): random seeds and random rule variants, whole hands
of random legal play, invariants checked at every step."""

from __future__ import annotations

import random
from collections import Counter, deque
from itertools import islice

import pytest
from helpers import all_cards
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tractor import Game, IllegalAction, Rules
from tractor.cards import FACE_POINTS, full_deck, parse_faces
from tractor.follow import follow_error, legal_follows, random_follow
from tractor.rules import team_of
from tractor.scoring import LEVELS, points_of, score_outcome, talon_multiplier

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

rules_st = st.builds(
    Rules,
    players=st.sampled_from([4, 6]),
    decks=st.sampled_from([2, 3]),
    declaration=st.sampled_from(["reveal", "auction"]),
    talon_multiplier=st.sampled_from(["seed", "power"]),
    win=st.sampled_from(["past_ace", "reach_ace"]),
    tractor_across_rank=st.booleans(),
    rank_and_jokers_in_tractors=st.booleans(),
    must_play_tractor=st.booleans(),
    throw_penalty=st.sampled_from([0, 10, 15]),
)
seeds = st.integers(min_value=0, max_value=10**9)


def states(rules: Rules, seed: int, hands: int = 1):
    """The game before every action of ``hands`` complete hands of random legal play, then at
    the end."""
    g = Game(rules, seed=seed)
    rng = random.Random(seed)
    while g.hand_no < hands and not g.over:
        yield g
        g.apply(g.random_action(rng))
    yield g


def finished(rules: Rules, seed: int) -> Game:
    return deque(states(rules, seed), maxlen=1)[0]


@pytest.mark.slow
@SETTINGS
@given(rules=rules_st, seed=seeds)
def test_cards_are_conserved_through_a_hand(rules, seed):
    deck = Counter(f for f in range(54) for _ in range(rules.decks))
    for g in states(rules, seed):
        h = g.hand if g.hand_no == 0 else g.hands_played[0]
        assert Counter(h.deck) == deck
        assert all_cards(h) == deck
        if h.phase in ("play", "done"):
            assert len(h.buried) == rules.talon_size
            if not h.current:
                assert len({len(x) for x in h.hands}) == 1
    h = g.hands_played[0]
    assert h.phase == "done" and all(x == [] for x in h.hands)
    for s in range(rules.players):
        played = sum(len(t.plays[(s - t.leader) % rules.players]) for t in h.tricks)
        assert played == rules.hand_size


@SETTINGS
@given(decks=st.integers(min_value=1, max_value=4))
def test_card_points_total_100_per_deck(decks):
    deck = [f for f in range(54) for _ in range(decks)]
    assert sum(FACE_POINTS[f] for f in deck) == 100 * decks == Rules(decks=decks).total_points
    assert sum(c.points for c in full_deck(decks)) == 100 * decks
    assert points_of(parse_faces("KS 10H 5D") * decks) == 25 * decks


@SETTINGS
@given(rules=rules_st, seed=seeds)
def test_points_of_a_hand_add_up_to_the_total(rules, seed):
    h = finished(rules, seed).hands_played[0]
    r = h.result
    total = rules.total_points
    assert sum(t.points for t in h.tricks) + points_of(h.buried) == total
    defenders = sum(t.points for t in h.tricks if team_of(t.winner) != h.declarers)
    declarers = sum(t.points for t in h.tricks if team_of(t.winner) == h.declarers)
    declarers += points_of(h.buried)
    assert r.defender_points - h.penalties - r.talon_bonus + declarers == total
    assert r.defender_points == defenders + h.penalties + r.talon_bonus
    signed = sum(t.penalty * (-1 if team_of(t.leader) != h.declarers else 1) for t in h.tricks)
    assert h.penalties == signed
    last = h.tricks[-1]
    if team_of(last.winner) != h.declarers:
        mult = talon_multiplier(len(last.plays[0]), rules.talon_multiplier)
        assert r.talon_bonus == points_of(h.buried) * mult
    else:
        assert r.talon_bonus == 0
    assert r.talon_points == points_of(h.buried)
    side, gain = score_outcome(r.defender_points, rules.decks, rules.level_step)
    keep = side == "declarers"
    assert r.levels_gained == gain
    assert r.next_declarers == r.gaining_team == (h.declarers if keep else 1 - h.declarers)
    assert r.next_starter == (h.starter + (2 if keep else 1)) % rules.players


@SETTINGS
@given(rules=rules_st, seed=seeds)
def test_every_trick_is_won_by_one_of_the_players(rules, seed):
    h = finished(rules, seed).hands_played[0]
    n = rules.players
    leader = h.starter
    for t in h.tricks:
        assert t.leader == leader
        assert 0 <= t.winner < n and len(t.plays) == n
        assert len({len(p) for p in t.plays}) == 1
        assert t.points == sum(points_of(p) for p in t.plays)
        if t.attempted is not None:
            assert len(t.attempted) > len(t.plays[0])
            assert not Counter(t.plays[0]) - Counter(t.attempted)
            assert t.penalty == rules.throw_penalty * (len(t.attempted) - len(t.plays[0]))
        else:
            assert t.penalty == 0
        leader = t.winner


@SETTINGS
@given(rules=rules_st, seed=seeds)
def test_a_legal_follow_always_exists(rules, seed):
    aux = random.Random(seed ^ 0x5EED)
    follows = 0
    for g in states(rules, seed):
        h = g.hand
        if g.hand_no or h.phase != "play" or not h.current:
            continue
        seat = h.to_act()
        hand, lead, ladder = h.hands[seat], h.lead_format, h.ladder
        must = rules.must_play_tractor
        play = random_follow(hand, lead, ladder, aux, must)
        assert follow_error(hand, lead, play, ladder, must) is None
        first = next(legal_follows(hand, lead, ladder, must))
        assert follow_error(hand, lead, first, ladder, must) is None
        follows += 1
    assert follows >= rules.players - 1


@SETTINGS
@given(rules=rules_st, seed=seeds, stop=st.integers(min_value=0, max_value=400))
def test_replay_reproduces_the_state(rules, seed, stop):
    g = deque(islice(states(rules, seed), stop + 1), maxlen=1)[0]
    replay = Game.from_data(g.to_data())
    assert replay.to_data() == g.to_data()
    assert replay.hand.hands == g.hand.hands and replay.hand.phase == g.hand.phase
    for s in range(rules.players):
        assert replay.observation(s) == g.observation(s)


@SETTINGS
@given(rules=rules_st, seed=seeds)
def test_only_the_seat_to_act_may_act(rules, seed):
    for g in states(rules, seed):
        h = g.hand
        act = g.to_act()
        for s in range(rules.players):
            if s == act:
                continue
            offered = list(islice(g.legal_actions(s), 20))
            if h.phase == "deal":
                assert all(a.kind == "declare" for a in offered)
            else:
                assert offered == []


@SETTINGS
@given(rules=rules_st, seed=seeds)
def test_observations_show_only_the_seats_own_cards(rules, seed):
    for g in states(rules, seed):
        h = g.hand if g.hand_no == 0 else g.hands_played[0]
        if h.phase in ("deal", "play") and len(h.log) % 11:
            continue
        for s in range(rules.players):
            obs = h.observation(s)
            assert sorted(parse_faces(obs["hand"])) == sorted(h.hands[s])
            assert obs["hand_sizes"] == [len(x) for x in h.hands]
            if s != h.starter:
                assert obs["talon"] is None
                if h.phase != "done":
                    assert obs["buried"] is None


@SETTINGS
@given(rules=rules_st, seed=seeds)
def test_levels_move_as_the_hand_results_say(rules, seed):
    g = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not g.over and g.hand_no < 4:
        before = list(g.levels)
        done = g.hand_no
        while g.hand_no == done:
            g.apply(g.random_action(rng))
        r = g.hands_played[-1].result
        index = LEVELS.index(before[r.gaining_team]) + r.levels_gained
        assert g.levels[r.gaining_team] == LEVELS[min(index, len(LEVELS) - 1)]
        assert g.levels[1 - r.gaining_team] == before[1 - r.gaining_team]
        ends = index > 12 if rules.win == "past_ace" else index >= 12
        assert g.over is ends
        if ends:
            assert g.winner == r.gaining_team
            with pytest.raises(IllegalAction, match="the game is over"):
                g.apply(g.random_action(rng))
        else:
            # The auction variant's next declarers are the next auction's to pick.
            assert g.declarers == (r.next_declarers if rules.declaration == "reveal" else None)
            if rules.declaration == "reveal":
                assert g.hand.starter == r.next_starter == g.hand.first
            assert g.hand.trump_rank() == g.levels[r.next_declarers] or (
                rules.declaration == "auction")
