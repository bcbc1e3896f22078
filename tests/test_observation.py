"""The typed observation (`tractor.observation`): its plain data is the documented format and
reads back equal; and the rules core rebuilds a full hand from one seat's observation plus
the hidden cards (`PublicHand.from_observation`, `Hand.from_public`) that goes on exactly
as the original: the same legal actions, observations, tricks, penalties and result."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import fields, replace
from itertools import islice

import msgpack
import pytest

from tractor import Game, Hand, Rules
from tractor.observation import GameRecord, Observation, ObservationDataError
from tractor.phases import BID, CALL, DECLARE, DONE, NAME, PLAY, REDEAL, SHOW, TALON
from tractor.public import PublicHand

VARIANTS = [
    (Rules(), range(8)),
    (Rules(declaration="auction"), range(5)),
    (Rules(players=6, decks=3), range(3)),
    (Rules(must_play_tractor=True, tractor_across_rank=False,
           rank_and_jokers_in_tractors=False), range(3)),
    (Rules(throw_ruff="largest_component", throw_forced="first_claimant"), range(3)),
    (Rules(players=5, mode="friends"), range(8)),
    (Rules(players=7, decks=3, mode="friends", friend_join="no_double"), range(2)),
]
IDS = ["default", "auction", "6p3d", "tractor-options", "throw-options", "friends-5p",
       "friends-7p3d"]
#: Legal actions compared per seat and step (burials and throws can be very many).
LEGAL_PREFIX = 400
#: Random actions both hands play on from each moment checked.
GO_ON = 50


#: Phases with few moves, checked at more of them.
BRIEF = (DECLARE, BID, SHOW, NAME, TALON, CALL)


def random_moments(rules: Rules, seed: int, chance: float):
    """(hand, rng) at random moments of a game's first three hands (more often in the
    phases with few moves); later hands declare rarely (or never) in some games, so the
    talon is turned over."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    shy = rng.choice([0.0, 0.01, 0.3])
    while game.hand_no < 3 and not game.over:
        hand = game.hand
        if rng.random() < (0.3 if hand.phase in BRIEF else chance):
            yield hand, rng
        keen = 0.3 if game.hand_no == 0 else shy
        game.apply(hand.random_action(rng, declare_chance=keen))


def differences(a: Observation, b: Observation) -> dict:
    return {f.name: (getattr(a, f.name), getattr(b, f.name)) for f in fields(a)
            if getattr(a, f.name) != getattr(b, f.name)}


def same_now(original: Hand, rebuilt: Hand) -> None:
    """Every seat sees the same and may do the same."""
    for s in range(original.players):
        a, b = original.observe(s), rebuilt.observe(s)
        assert a == b, differences(a, b)
        assert list(islice(original.legal_actions(s), LEGAL_PREFIX)) == list(
            islice(rebuilt.legal_actions(s), LEGAL_PREFIX))
    assert original.to_act() == rebuilt.to_act()


def rebuilt_from(hand: Hand, seat: int, plain: bool) -> Hand:
    obs = hand.observe(seat)
    if plain:  # through the documented plain data, as stored or sent
        obs = Observation.from_data(json.loads(json.dumps(hand.observation(seat))))
    public = PublicHand.from_observation(hand.rules, obs)
    return Hand.from_public(public, hand.hands, hand.talon, hand.buried, hand.deck)


@pytest.mark.slow
@pytest.mark.parametrize("rules,seeds", VARIANTS, ids=IDS)
def test_a_hand_rebuilt_from_an_observation_goes_on_as_the_original(rules, seeds):
    seen: Counter[str] = Counter()
    for seed in seeds:
        for hand, rng in random_moments(rules, seed, 0.04):
            seat = rng.randrange(rules.players)
            rebuilt = rebuilt_from(hand, seat, plain=rng.random() < 0.3)
            original = hand.clone()
            seen[hand.phase] += 1
            seen["failed throw"] += bool(hand.current_attempt)
            seen["window passes"] += hand.phase == DECLARE and hand.window_passes > 0
            seen["talon turned"] += bool(hand.talon_revealed)
            same_now(original, rebuilt)
            # The same random actions on both: the same state after each of them.
            a, b = random.Random(seed), random.Random(seed)
            for _ in range(GO_ON):
                if original.phase in (DONE, REDEAL):
                    break
                original.apply(original.random_action(a))
                rebuilt.apply(rebuilt.random_action(b))
                same_now(original, rebuilt)
                assert original.tricks == rebuilt.tricks
                assert original.defender_points == rebuilt.defender_points
            if original.phase == DONE:
                assert original.result == rebuilt.result  # the buried points too
                seen["finished"] += 1
    need = ["deal", "talon", "play", "finished", "failed throw"]
    if rules.declaration == "auction":
        need += [BID, SHOW, NAME]
    else:
        need += [DECLARE, "window passes"]
    assert all(seen[k] for k in need), seen


def test_talon_turned_over_and_finished_hands_rebuild() -> None:
    """A later hand nobody declares (the talon turned over), at the talon exchange and
    once over, from every seat."""
    rules = Rules()
    checked = 0
    for seed in range(30):
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        while game.hand_no < 2:
            keen = 0.3 if game.hand_no == 0 else 0.0
            hand = game.hand
            if hand.phase in (TALON, PLAY) and hand.talon_revealed and not hand.tricks \
                    and not hand.current:
                for seat in range(4):
                    rebuilt = rebuilt_from(hand, seat, plain=True)
                    same_now(hand, rebuilt)
                checked += 1
            game.apply(hand.random_action(rng, declare_chance=keen))
        done = game.hands_played[1]
        for seat in range(4):
            rebuilt = rebuilt_from(done, seat, plain=seat % 2 == 0)
            assert rebuilt.result == done.result and rebuilt.observe(seat) == done.observe(seat)
    assert checked >= 10


@pytest.mark.parametrize("rules,seeds", VARIANTS[:3] + VARIANTS[5:], ids=IDS[:3] + IDS[5:])
def test_plain_data_is_the_observation_and_reads_back(rules, seeds) -> None:
    for seed in seeds:
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        while game.hand_no < 2 and not game.over:
            if rng.random() < 0.1:
                for seat in range(rules.players):
                    obs = game.observe(seat)
                    data = game.observation(seat)
                    assert obs.to_data() == data
                    assert game.hand.observation(seat) == replace(obs, game=None).to_data()
                    assert Observation.from_data(data) == obs
                    for codec in (json, None):
                        wire = (json.loads(json.dumps(data)) if codec else
                                msgpack.unpackb(msgpack.packb(data), raw=False))
                        assert Observation.from_data(wire) == obs
            game.apply(game.random_action(rng))


def test_typed_fields_are_values_not_text() -> None:
    game = Game(seed=4)
    rng = random.Random(4)
    while len(game.hand.tricks) < 3 or not game.hand.current:
        game.apply(game.random_action(rng))
    hand = game.hand
    obs = game.observe(0)
    assert obs.phase is PLAY and obs.trump == hand.trump
    assert sorted(obs.hand) == sorted(hand.hands[0]) and all(type(f) is int for f in obs.hand)
    assert obs.tricks == tuple(hand.tricks) and obs.current == tuple(hand.current)
    assert obs.hand_sizes == tuple(len(h) for h in hand.hands)
    assert obs.game == GameRecord(game.rules, 0, tuple(game.levels), None, ())
    with pytest.raises(AttributeError):
        obs.seat = 1  # type: ignore[misc]


def test_the_buried_points_stay_hidden_unless_the_talon_is_turned() -> None:
    game = Game(seed=2)
    rng = random.Random(2)
    while game.hand_no == 0:
        game.apply(game.random_action(rng))
    done = game.hands_played[0]
    assert done.result is not None and done.result.talon_points > 0
    for seat in range(4):
        shown = done.observe(seat).result
        assert shown is not None
        expected = done.result.talon_points if done.result.talon_turned else 0
        assert shown.talon_points == expected
        assert replace(shown, talon_points=done.result.talon_points) == done.result


def test_malformed_plain_data_is_refused_with_a_reason() -> None:
    data = Game(seed=1).observation(0)
    for bad in ([], {}, {**data, "hand": "AS XX"}, {**data, "phase": "nap"},
                {**data, "shown": [[0, "AS AS"]]}, {k: v for k, v in data.items()
                                                    if k != "tricks"}):
        with pytest.raises(ObservationDataError):
            Observation.from_data(bad)


def test_an_observation_in_a_phase_only_the_peers_table_has_is_refused() -> None:
    """The table's own steps around a hand (its set-up and audit) are phases too, but no
    hand of the rules core is in one, so no observation can say it is."""
    data = Game(seed=1).observation(0)
    for phase in ("setup", "audit"):
        with pytest.raises(ObservationDataError, match=f"in the {phase} phase"):
            Observation.from_data({**data, "phase": phase})


def test_a_judged_throw_not_yet_played_is_not_rebuilt() -> None:
    """The peers' table judges a throw from the claims before the thrower plays what stands:
    that lead is not in any observation, so rebuilding there is refused."""
    game = Game(seed=4)
    rng = random.Random(4)
    while game.hand.phase != PLAY:
        game.apply(game.random_action(rng))
    obs = replace(game.observe(game.to_act()), current_attempt=(0, 0, 1))
    with pytest.raises(ValueError, match="not public"):
        PublicHand.from_observation(game.rules, obs)


def test_the_table_turning_the_talon_over_rebuilds() -> None:
    """Between peers the talon is turned over card by card (nobody acts meanwhile): a public
    state rebuilt from an observation taken then goes on turning it."""
    rules = Rules()
    deck = [f for f in range(54) for _ in range(2)]
    random.Random(6).shuffle(deck)
    talon = [f for f in deck[100:] if f >= 52 or f % 13 != 0] + [0]  # no 2 until the last
    table = PublicHand(rules, ["2", "2"], first=1, starter=1, declarers=1)
    for _ in range(100):
        table.record_draw()
    for k in range(4):
        table.record_pass((1 + k) % 4)
    turned = 0
    for face in talon:
        obs = table.observe_seat(2, ())
        assert obs.phase == DECLARE and obs.to_act is None
        rebuilt = PublicHand.from_observation(rules, obs)
        for p in (table, rebuilt):
            p.record_talon_card(face)
        assert rebuilt.observe_seat(2, ()) == table.observe_seat(2, ())
        turned += 1
        if table.phase != DECLARE:
            break
    assert table.phase == TALON and table.trump is not None and turned >= 2
