"""The tracker and summary panels (`cli.screen.tracker_view`, `cli.screen.summary_view`) on real
games: what they say is checked against the omniscient hand, never against themselves."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from local_client import LocalClient

from tractor import Game, Pass, Rules
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.ai.players.worlds import Knowledge
from tractor.cards import FACE_POINTS, format_cards, parse_faces
from tractor.cli.screen.summary_view import strip_lines, summary_lines
from tractor.cli.screen.tracker_view import tracker_lines
from tractor.formats import classify_faces
from tractor.phases import Decision
from tractor.trump import TRUMP

CARD = re.compile(r"(RJ|BJ|[♠♥♦♣](?:10|[2-9JQKA]))(?:×(\d+))?")
SUIT_OF = {"♠": 0, "♥": 1, "♦": 2, "♣": 3}


def client(seed: int, seat: int = 0) -> tuple[LocalClient, HeuristicStrategy]:
    ai = HeuristicStrategy(seed=seed)
    return LocalClient(seed=seed, seat=seat, others=ai.act), ai


def step(c: LocalClient, ai: HeuristicStrategy) -> None:
    """The person's move: pass on declarations, else what the heuristic player does (not
    the client's hint: these tests do not depend on how hints are chosen)."""
    if c.summary() is not None:
        c.next_hand()
        return
    action = Pass(c.seat) if c.decision() == Decision.DECLARE else ai.act(c.game.hand, c.seat)
    assert c.submit(action) is None


def counted_part(lines: list[str]) -> list[str]:
    """The tracker's lines down to the points still out (the starter's burial follows)."""
    end = next(i for i, line in enumerate(lines) if line.startswith("Points still out: "))
    return lines[:end + 1]


def sections(lines: list[str]) -> dict[object, dict[str, list[str]]]:
    """The tracker's rows by effective suit (TRUMP or 0..3): their card lines and their
    fact lines (indented two spaces; cards continue at four)."""
    out: dict[object, dict[str, list[str]]] = {}
    key: object = None
    for line in counted_part(lines)[1:-1]:
        if not line.startswith(" "):
            key = TRUMP if line.startswith(("Jokers:", "Trumps:")) else SUIT_OF[line[0]]
        kind = "facts" if line.startswith("  ") and not line.startswith("    ") else "cards"
        out.setdefault(key, {"cards": [], "facts": []})[kind].append(line)
    return out


def listed(lines: list[str]) -> Counter:
    """The cards the tracker lists as out, with their copies."""
    got: Counter = Counter()
    for rows in sections(lines).values():
        for line in rows["cards"]:
            for card, copies in CARD.findall(line):
                got[parse_faces(card)[0]] += int(copies or 1)
    return got


def listed_cards(text: str) -> Counter:
    return Counter(parse_faces(card)[0] for card, _copies in CARD.findall(text))


def points_of_text(faces) -> str:
    points = sum(FACE_POINTS[f] for f in faces)
    return f"{points} points" if points else "no points"


def facts_text(lines: list[str], esuit: int) -> str:
    return " ".join(sections(lines)[esuit]["facts"])


# --- the tracker ------------------------------------------------------------------------------


def test_out_cards_are_exactly_the_other_hands_and_the_unseen_burial() -> None:
    checked = 0
    for seed in (1, 2):
        for seat in (0, 1):
            c, ai = client(seed, seat)
            while c.summary() is None:
                hand, obs = c.game.hand, c.observation()
                if hand.phase == "play":
                    expected: Counter = Counter()
                    for s in range(4):
                        if s != seat:
                            expected.update(hand.hands[s])
                    if seat != hand.starter:
                        expected.update(hand.buried)
                    for width in (None, 100, 80, 30):
                        lines = tracker_lines(obs, c.names, width)
                        assert listed(lines) == expected, (width, lines)
                        if width is not None:
                            assert all(len(line) <= width for line in lines), lines
                        assert not any("…" in line for line in lines)
                    points = sum(FACE_POINTS[f] * m for f, m in expected.items())
                    assert counted_part(lines)[-1] == f"Points still out: {points}"
                    burial = " ".join(lines[len(counted_part(lines)):])
                    if seat == hand.starter:  # its own burial, said after the count
                        assert listed_cards(burial) == Counter(hand.buried), burial
                        assert f"({points_of_text(hand.buried)})" in burial
                    else:
                        assert not burial
                    checked += 1
                step(c, ai)
    assert checked > 50


def test_a_seat_that_shows_out_is_named_void_in_that_suit() -> None:
    c, ai = client(5)
    named = 0
    while c.summary() is None:
        obs = c.observation()
        if c.game.hand.phase == "play" and obs.tricks:
            ladder = c.game.hand.ladder
            lines = tracker_lines(obs, c.names, 80)
            first: dict[tuple[int, int], int] = {}
            for i, t in enumerate(obs.tricks, 1):
                lead = classify_faces(list(t.plays[0]), ladder)
                for k, play in enumerate(t.plays[1:], 1):
                    s = (t.leader + k) % 4
                    if any(ladder.esuit[f] != lead.esuit for f in play):
                        first.setdefault((s, lead.esuit), i)
            out = listed(lines)
            for (s, esuit), i in first.items():
                if s == c.seat or not obs.hand_sizes[s]:
                    continue
                if any(ladder.esuit[f] == esuit for f in out):
                    assert f"{c.names[s]} void since trick {i}" in facts_text(lines, esuit)
                    named += 1
        step(c, ai)
    assert named > 10


def test_a_declared_pair_is_held_until_played() -> None:
    """Find a hand where another seat declares a pair; the tracker says it holds the pair,
    then one card, then nothing, as it plays them."""
    for seed in range(40):
        c, ai = client(seed)
        while c.game.hand.phase in ("deal", "declare"):
            step(c, ai)
        hand = c.game.hand
        pairs = [(s, f) for s, f in hand.declarations if len(f) == 2 and s != c.seat]
        if pairs:
            break
    else:
        raise AssertionError("no seat declared a pair in 40 seeds")
    seat, faces = pairs[0]
    name = c.names[seat]
    seen = Counter()
    while c.summary() is None:
        obs = c.observation()
        if c.game.hand.phase == "play":
            plays = [((t.leader + k) % 4, p) for t in obs.tricks for k, p in enumerate(t.plays)]
            plays += [((obs.leader + k) % 4, p) for k, p in enumerate(obs.current)]
            played = sum(p.count(faces[0]) for s, p in plays if s == seat)
            left = 2 - played
            facts = facts_text(tracker_lines(obs, c.names, 80), TRUMP)
            label = " ".join([tracker_card(faces[0])] * left)
            if left and obs.hand_sizes[seat]:
                assert f"{name} holds {label} (declared" in facts, facts
                if left == 1:
                    assert f"{name} holds {label} {tracker_card(faces[0])}" not in facts
            else:
                assert f"{name} holds {tracker_card(faces[0])}" not in facts
            seen[left] += 1
        step(c, ai)
    assert seen[2] and seen[0]


def tracker_card(face: int) -> str:
    return format_cards([face], symbols=True)


def test_public_facts_hold_for_the_real_hands() -> None:
    """Every fact the tracker may show is true of the real deal (random play throws a lot:
    ceilings from throws that stood show up), and a seat's own facts never name its cards
    it did not reveal."""
    kinds: Counter = Counter()
    for seed in range(6):
        game = Game(Rules(), seed)
        rng = random.Random(seed)
        while game.hand_no == 0:
            hand = game.hand
            for seat in range(4):
                facts = Knowledge.from_observation(game.rules, game.observe(seat)).public_facts()
                ladder = hand.ladder
                for s, f in enumerate(facts):
                    cards = Counter(hand.hands[s])
                    if f.held_or_buried:
                        cards.update(hand.buried)
                    assert not Counter(f.held) - cards
                    kinds["held"] += bool(f.held)
                    # A failed throw's cards taken back are in the hand, not buried.
                    assert not Counter(f.taken_back) - Counter(hand.hands[s])
                    assert not Counter(f.taken_back) - Counter(f.held)
                    kinds["taken back"] += bool(f.taken_back)
                    if ladder is None:
                        assert not (f.voids or f.no_pair or f.nothing_above)
                        continue
                    order = ladder.order
                    for esuit in f.voids:
                        assert not any(ladder.esuit[x] == esuit for x in hand.hands[s])
                        kinds["void"] += 1
                    for esuit, top in f.no_pair.items():
                        assert not any(m >= 2 and ladder.esuit[x] == esuit and (
                            top is None or order[x] > order[top])
                        for x, m in Counter(hand.hands[s]).items())
                        kinds["no pair"] += 1
                    for esuit, top in f.nothing_above.items():
                        assert not any(ladder.esuit[x] == esuit and order[x] > order[top]
                                       for x in hand.hands[s])
                        kinds["ceiling"] += 1
            game.apply(game.random_action(rng))
    assert all(kinds[k] for k in ("held", "void", "no pair", "ceiling", "taken back")), kinds


def test_tracker_in_every_phase_and_variant() -> None:
    """Dealing, declaring, the auction, the exchange, play and the finished hand; six
    players with three decks: the facts are built (no fallback) and the lines fit."""
    for rules in (Rules(), Rules(declaration="auction"), Rules(players=6, decks=3)):
        game = Game(rules, 3)
        rng = random.Random(3)
        phases = set()
        while game.hand_no == 0:
            for seat in (0, 1):
                obs = game.observe(seat)
                phases.add(str(obs.phase))
                assert len(Knowledge.from_observation(rules, obs).public_facts()) == \
                    rules.players
                assert all(len(line) <= 80 for line in tracker_lines(obs, None, 80))
            game.apply(game.random_action(rng))
        done = game.hands_played[-1].observe(1)
        assert str(done.phase) == "done"
        assert Knowledge.from_observation(rules, done).public_facts()
        assert counted_part(tracker_lines(done, None, 80))[-1].startswith("Points still out: ")
        assert {"deal", "play"} <= phases


# --- the summary ------------------------------------------------------------------------------


TRICK = re.compile(r"trick (\d+) \(([^)]*)\) ((?:(?:RJ|BJ|[♠♥♦♣](?:10|[2-9JQKA])) ?)+)")


def test_summary_lists_the_defenders_point_tricks_and_the_strip() -> None:
    c, ai = client(7)
    hands = 0
    while hands < 3 and not c.game.over:
        summary = c.summary()
        if summary is None:
            step(c, ai)
            continue
        hands += 1
        obs = c.observation()
        res = summary["result"]
        lines = summary_lines(summary, obs, c.names, 80)
        assert all(len(line) <= 80 for line in lines) and len(lines) <= 16, lines
        text = " ".join(lines)
        defenders = 1 - obs.declarers
        want = {i: t for i, t in enumerate(obs.tricks, 1)
                if t.winner % 2 == defenders and t.points}
        got = {int(m[1]): m for m in TRICK.finditer(text)}
        assert set(got) == set(want)
        for i, m in got.items():
            assert m[2] == c.names[want[i].winner]
            assert sum(FACE_POINTS[f] for f in parse_faces(m[3])) == want[i].points
        penalties = sum(-t.penalty if t.leader % 2 == defenders else t.penalty
                        for t in obs.tricks)
        assert sum(t.points for t in want.values()) + penalties + res["talon_bonus"] == \
            res["defender_points"]
        if res["talon_turned"]:
            assert f"= bonus {res['talon_bonus']}." in text
        # The strip: one line per hand so far, the last one this hand's.
        strip = summary["strip"]
        assert [e["hand"] for e in strip] == list(range(1, hands + 1))
        assert strip[-1]["levels"] == summary["levels"]
        assert strip[-1]["defender_points"] == res["defender_points"]
        assert strip[-1]["starter"] == obs.starter
        rows = [line for line in lines if re.match(r"\s+\d+\. ", line)]
        assert len(rows) == hands
        assert rows[-1].endswith(f"{summary['levels'][0]}/{summary['levels'][1]}")
        assert lines[0] == f"Hand {hands} is over."
        c.next_hand()
    assert hands == 3


def test_a_long_strip_keeps_its_last_hands_and_the_levels_before() -> None:
    names = ["You", "AI 1", "AI 2", "AI 3"]
    strip = [{"hand": k, "starter": k % 4, "declarers": k % 2, "declared_by": None,
              "trump": ["2", "S"] if k % 3 else None, "defender_points": 10 * k,
              "gaining_team": k % 2, "levels_gained": 1, "levels": [str(2 + k // 2),
                                                                    str(2 + (k + 1) // 2)]}
             for k in range(1, 31)]
    lines = strip_lines(strip, names, 80, rows=3)
    assert len(lines) == 5 and all(len(line) <= 80 for line in lines)
    assert lines[1].startswith("  hands ") and " … " in lines[1]
    assert lines[1].endswith("15/16")  # hand 27's levels, the last before the rows
    assert [line.split(".")[0].strip() for line in lines[2:]] == ["28", "29", "30"]
    assert "trump unknown" in lines[4] and "♠2" in lines[2]  # hand 30's was never known
    assert strip_lines(strip[:2], names, 80, rows=3)[1].startswith("  1. AI 1 (team 1)")


@pytest.mark.slow
def test_a_network_seat_records_the_strip_of_its_table() -> None:
    from test_netclient import Table

    t = Table(seed=5, hands=2)
    c = t.client
    t.deal.call_all("start")
    t.run()
    strips = []
    while len(strips) < 2:
        if c.summary() is not None:
            strips.append(c.summary()["strip"])
            assert strips[-1][-1]["levels"] == c.summary()["levels"]
            c.next_hand()
        elif c.decision() is None:
            t.run()
        else:
            assert c.submit(c.hint() if c.decision() != Decision.DECLARE else Pass(0)) is None
            t.run()
    assert [[e["hand"] for e in s] for s in strips] == [[1], [1, 2]]
    assert strips[1][0] == strips[0][0]
    first = t.sessions[0].played[0].observation()
    assert strips[0][0]["starter"] == first.starter
    assert strips[0][0]["trump"] == first.trump.to_data()


def _to_summary(t, c) -> dict:
    """Play the person's seat of ``t`` through client ``c`` until a hand's summary."""
    for _ in range(3000):
        if c.summary() is not None:
            return c.summary()
        if c.decision() is None:
            t.run()
        else:
            assert c.submit(c.hint() if c.decision() != Decision.DECLARE else Pass(0)) is None
            t.run()
    raise AssertionError("no summary")


@pytest.mark.slow
def test_the_strip_goes_on_at_the_table_that_replaced_a_seat() -> None:
    # A seat gone past the grace period: the game goes on at a new table, and the strip
    # started again from its first hand.
    from test_netclient import Table

    first = Table(seed=5)
    c = first.client
    first.deal.call_all("start")
    first.run()
    before = _to_summary(first, c)["strip"]
    assert [e["hand"] for e in before] == [1]
    second = Table(seed=6)
    c.rebind(second.node, ["You", "East", "North", "West"])
    c.next_hand()
    second.deal.call_all("start")
    second.run()
    strip = _to_summary(second, c)["strip"]
    assert [e["hand"] for e in strip] == [1, 2] and strip[0] == before[0]
    assert strip[1]["levels"] == c.summary()["levels"]
