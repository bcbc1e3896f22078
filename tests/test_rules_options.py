"""The two throw options (seeds/README.md, "Throws"): ``throw_ruff``, who wins a throw that
several void seats ruff, and ``throw_forced``, which component a failed throw is forced to.

Every case is one where the two values give different answers. Each is checked on the rules
core's functions, on a scripted `Hand`, and between peers: `TableHand` over the
committed-shuffle deck in memory, the deck stacked by fixing every peer's secret
permutation (the proofs still hold: a permutation is just a secret), so that chosen seats
hold chosen cards. Also: the options are refused with a reason, listed, and default to the
rules as they were.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from helpers import F, T, build_deck

from tractor import Bury, Draw, Hand, Pass, Play, Rules, Trump, resolve_throw, trick_winner
from tractor.cards import format_cards, to_faces
from tractor.cli.options import parse_rules
from tractor.cli.rules_text import RULES_SUMMARY
from tractor.formats import THROW, classify_faces, covers_layout
from tractor.net.deck.local import LocalDeal
from tractor.net.deck.own_secrets import OwnSecrets
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.net.table.player import RandomPlayer
from tractor.net.table.setup import HandSetup
from tractor.rules import (
    FRIEND_CARDS,
    FRIEND_JOIN,
    MODES,
    THROW_FORCED,
    THROW_RUFFS,
    RulesError,
    team_of,
)
from tractor.trick import beaten_by_claims, beaten_components, beats_component, winner_of

T2H = Trump("2", "H")
LARGEST = Rules(throw_ruff="largest_component")
FIRST = Rules(throw_forced="first_claimant")


# --- the options themselves ---------------------------------------------------------------------

def test_defaults_are_the_rules_as_they_were():
    assert (Rules().throw_ruff, Rules().throw_forced) == ("highest_pair", "lowest")
    assert THROW_RUFFS[0] == Rules().throw_ruff and THROW_FORCED[0] == Rules().throw_forced
    # Rules written before the options existed (a journal, a peer's data) read as the defaults.
    old = {k: v for k, v in Rules().to_data().items() if not k.startswith("throw_") or
           k == "throw_penalty"}
    assert Rules.from_data(old) == Rules()
    assert Rules.from_data(LARGEST.to_data()) == LARGEST


@pytest.mark.parametrize(("data", "reason"), [
    ({"throw_ruff": "biggest"}, "throw_ruff must be highest_pair or largest_component.*"
                                "not 'biggest'"),
    ({"throw_forced": "thrower"}, "throw_forced must be lowest or first_claimant.*"
                                  "not 'thrower'"),
    ({"throw_ruff": 1}, "option throw_ruff must be str, not 1"),
    ({"throw_forced": None}, "option throw_forced must be str, not None"),
])
def test_bad_values_are_refused_with_the_reason(data, reason):
    with pytest.raises(RulesError, match=reason):
        Rules.from_data({**Rules().to_data(), **data})
    with pytest.raises(RulesError, match=reason):
        Rules(**data)


def test_a_refused_value_is_quoted_as_it_was_typed():
    """Every option's refusal quotes the value in the person's own case (must_defend's
    said 'BANANA' for banana, start_level's quoted nothing)."""
    for name in Rules.option_names():
        with pytest.raises(RulesError) as refused:
            parse_rules(f"{name}=Banana")
        assert "'Banana'" in str(refused.value), str(refused.value)
    with pytest.raises(RulesError, match="not 'x'$"):
        parse_rules("must_defend=5/x")


def test_the_command_line_reads_them_and_lists_them():
    assert parse_rules("throw_ruff=largest_component,throw_forced=first_claimant") == Rules(
        throw_ruff="largest_component", throw_forced="first_claimant")
    with pytest.raises(RulesError, match="throw_forced must be lowest or first_claimant"):
        parse_rules("throw_forced=last")
    with pytest.raises(RulesError, match=r"options: .*throw_ruff, throw_forced"):
        parse_rules("throw=largest_component")
    # `tractor rules` names every option with its values.
    for name in Rules.option_names():
        assert f"{name}=" in RULES_SUMMARY
    for value in THROW_RUFFS + THROW_FORCED + MODES + FRIEND_CARDS + FRIEND_JOIN:
        assert value in RULES_SUMMARY


@pytest.mark.e2e
def test_a_bad_value_on_the_command_line_gets_the_rules_core_reason(tmp_path):
    proc = subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", "play", "--rules",
                           "throw_ruff=biggest"], capture_output=True, text=True, timeout=60,
                          env={"TRACTOR_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.startswith("tractor: throw_ruff must be highest_pair or "
                                  "largest_component"), proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    out = subprocess.run([sys.executable, "-P", "-m", "tractor.cli.main", "rules"],
                         capture_output=True, text=True, timeout=60,
                         env={"TRACTOR_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert "throw_ruff" in out.stdout and "first_claimant" in out.stdout


# --- throw_ruff on the trick functions ------------------------------------------------------------

@pytest.mark.parametrize(("plays", "highest_pair", "largest"), [
    # ♠AA-KK tractor + ♠99. Seat 1's BJ pair is the highest paired trump; seat 2's tractor
    # ♥10-♥9 is above seat 1's ♥4-♥3.
    (["AS AS KS KS 9S 9S", "3H 3H 4H 4H BJ BJ", "9H 9H 10H 10H 5H 5H"], 1, 2),
    # The same against the tractor + two singles: a pair may cover two singles.
    (["AS AS KS KS QS JS", "3H 3H 4H 4H BJ BJ", "9H 9H 10H 10H 5H 6H"], 1, 2),
    # Equal largest components (tractors topped by off-suit rank pairs, four decks): the
    # first played wins.
    (["AS AS KS KS 9S 9S", "AH AH 2S 2S 3H 3H", "AH AH 2C 2C RJ RJ"], 2, 1),
    # A longer trump tractor holds the lead's tractor and pair: its best part is ♥7-♥6.
    (["AS AS KS KS 9S 9S", "5H 5H 6H 6H 7H 7H", "3H 3H 4H 4H RJ RJ"], 2, 1),
    # The throw's largest part is a pair or a single: both rules agree.
    (["AS AS QS QS", "3H 3H BJ BJ", "9H 9H 10H 10H"], 1, 1),
    (["AS KS QS", "3H 4H RJ", "AH 2H 2S"], 1, 1),
])
def test_who_wins_a_throw_several_seats_ruff(plays, highest_pair, largest):
    assert trick_winner(plays, T2H) == highest_pair
    assert trick_winner(plays, T2H, rules=Rules(throw_ruff="highest_pair")) == highest_pair
    assert trick_winner(plays, T2H, rules=LARGEST) == largest
    faces = [to_faces(p) for p in plays]
    assert winner_of(faces, T2H.ladder(), throw_ruff="largest_component") == largest
    assert winner_of(faces, T2H.ladder()) == highest_pair


def test_the_rules_agree_unless_the_throw_holds_a_tractor():
    """Random plain throws without a tractor, random trump ruffs of their layout: the
    largest component is then the highest pair (or single), so the winners are the same."""
    rng = random.Random(11)
    ladder = T2H.ladder()
    spades = [f for f in ladder.faces_of[0] for _ in range(2)]
    trumps = list(ladder.faces_of[4])
    checked = 0
    while checked < 300:
        lead = rng.sample(spades, rng.randint(2, 7))
        fmt = classify_faces(lead, ladder)
        if fmt.kind != THROW or fmt.tractor_lengths:
            continue
        ruffs = []
        for _ in range(3):
            paired = rng.sample(trumps, fmt.pairs)
            ruffs.append([f for f in paired for _ in range(2)]
                         + rng.sample(trumps, len(lead) - 2 * fmt.pairs))
            assert covers_layout(ruffs[-1], fmt, ladder)
        plays = [lead, *ruffs]
        assert winner_of(plays, ladder) == winner_of(plays, ladder,
                                                       throw_ruff="largest_component")
        checked += 1


# --- throw_forced on the throw functions ---------------------------------------------------------

@pytest.mark.parametrize(("lead", "others", "lowest", "first"), [
    # Seat 1 beats the pair ♠JJ with ♠QQ, seat 2 the single ♠K with ♠A.
    ("KS JS JS", ["QS QS", "AS"], "KS", "JS JS"),
    # Seat 1 can beat nothing: seat 2 is the first claimant.
    ("KS JS JS", ["3D", "QS QS", "AS"], "KS", "JS JS"),
    # The single's beater plays first: both rules force the single.
    ("KS JS JS", ["AS", "QS QS"], "KS", "KS"),
    # The first claimant beats the pair and the tractor: the smaller one of those.
    ("KS JS JS 7S 7S 6S 6S", ["QS QS 10S 10S 9S 9S", "AS"], "KS", "JS JS"),
    # Equal components (off-suit rank cards) go by suit order ♠ ♥ ♦ ♣ in both rules.
    ("2C 2S", ["2H"], "2S", "2S"),
    ("2C 2D", ["3D", "BJ"], "2D", "2D"),
    ("2C 2C 2S 2S", ["2H 2H"], "2S 2S", "2S 2S"),
])
def test_which_component_a_failed_throw_is_forced_to(lead, others, lowest, first):
    assert format_cards(resolve_throw(lead, others, T2H)) == lowest
    backwards = " ".join(reversed(lead.split()))  # the order the cards are given in
    assert format_cards(resolve_throw(backwards, others, T2H)) == lowest
    assert format_cards(resolve_throw(backwards, others, T2H, rules=FIRST)) == first
    assert format_cards(resolve_throw(lead, others, T2H, rules=FIRST)) == first


def test_claims_and_hands_give_the_same_candidates():
    """The table's claims (a seat per component it shows it can beat) and the core's hands
    choose through the same rule: random spade throws against random hands."""
    rng = random.Random(5)
    ladder = T2H.ladder()
    deck = [f for f in range(54) for _ in range(2)]
    differ = 0
    for _ in range(300):
        rng.shuffle(deck)
        thrower, players = rng.randrange(4), 4
        spades = [f for f in deck[:30] if ladder.esuit[f] == 0]
        lead = classify_faces(spades[:rng.randint(2, 6)], ladder) if len(spades) > 1 else None
        if lead is None or lead.kind != THROW:
            continue
        order = [(thrower + k) % players for k in range(1, players)]
        hands = {s: deck[30 + 8 * i: 38 + 8 * i] for i, s in enumerate(order)}
        claims = {s: [i for i, c in enumerate(lead.components)
                      if beats_component(c, [f for f in hands[s] if ladder.esuit[f] == 0],
                                         ladder)] for s in order}
        for rule in THROW_FORCED:
            from_hands = beaten_components(lead, [hands[s] for s in order], ladder,
                                           throw_forced=rule)
            assert beaten_by_claims(claims, thrower, players, throw_forced=rule) == from_hands
            differ += rule == "first_claimant" and from_hands != beaten_components(
                lead, [hands[s] for s in order], ladder)
    assert differ > 10  # the two rules do not always pick from the same components


# --- a scripted hand on the rules core -----------------------------------------------------------

SMALL = Rules(talon_cards=84)  # 4 hands of 6 cards: one or two tricks say it all
# Starter 0 throws ♠AA-KK + ♠99; seats 1 and 2 are void in spades and ruff (trump ♥2).
RUFF_HANDS = {0: "AS AS KS KS 9S 9S", 1: "3H 3H 4H 4H BJ BJ", 2: "9H 9H 10H 10H 5H 5H",
              3: "3C 4C 6C 7C 8C 9C"}
RUFF_TRICK = ("AS AS KS KS 9S 9S", "3H 3H 4H 4H BJ BJ", "9H 9H 10H 10H 5H 5H",
              "3C 4C 6C 7C 8C 9C")
# Starter 0 throws ♠K + ♠JJ; seat 1 holds ♠QQ (beats the pair), seat 2 ♠A (the single).
FORCED_HANDS = {0: "KS JS JS 3C 4C 6C", 1: "QS QS 3D 4D 6D 7D", 2: "AS 8D 9D 7C 8C 9C",
                3: "3S 5S 6S 10D JD QD"}


def core_hand(rules: Rules, hands: dict[int, str]) -> Hand:
    """A later hand started by seat 0, nobody declaring: the talon turned over shows ♥2 first,
    so trump is ♥2; the starter buries the talon back."""
    deck = build_deck(rules, hands, "2H", first=0)
    h = Hand(rules, deck, ["2", "2"], first=0, starter=0, declarers=team_of(0))
    while h.phase in ("deal", "declare"):
        seat = h.to_act()
        h.apply(Draw(seat) if h.phase == "deal" else Pass(seat))
    h.apply(Bury(0, tuple(h.talon)))
    assert h.phase == "play" and h.trump == T2H
    return h


@pytest.mark.parametrize(("rule", "winner"), [("highest_pair", 1), ("largest_component", 2)])
def test_hand_ruff_winner_follows_the_option(rule, winner):
    h = core_hand(Rules(talon_cards=84, throw_ruff=rule), RUFF_HANDS)
    for i, cards in enumerate(RUFF_TRICK):
        h.apply(Play.of(i, cards))
    assert h.tricks[0].winner == winner and h.tricks[0].attempted is None
    assert h.phase == "done" and h.result is not None


@pytest.mark.parametrize(("rule", "forced", "back"), [
    ("lowest", "KS", "JS JS 3C 4C 6C"),
    ("first_claimant", "JS JS", "KS 3C 4C 6C"),
])
def test_hand_forced_component_follows_the_option(rule, forced, back):
    h = core_hand(Rules(talon_cards=84, throw_forced=rule), FORCED_HANDS)
    h.apply(Play.of(0, "KS JS JS"))
    assert h.current == [T(forced)] and h.current_attempt == T("KS JS JS")
    assert h.observation(1)["current"] == [forced]
    assert sorted(h.hands[0]) == sorted(F(back))
    withdrawn = 3 - len(T(forced))
    assert h.penalties == 10 * withdrawn  # a declarer's failed throw pays the defenders


# --- between peers, on a stacked deck ------------------------------------------------------------

class Scripted(RandomPlayer):
    """Never declares; buries all but its scripted cards; plays its script, then at random."""

    def __init__(self, seed: int, keep: str = "", plays: tuple[str, ...] = ()) -> None:
        super().__init__(seed)
        self.keep = F(keep)
        self.plays = [F(p) for p in plays]

    def declare(self, view, options):
        return Pass(view.seat)

    def bury(self, view, count):
        rest = list(view.hand)
        for f in self.keep:
            rest.remove(f)
        assert len(rest) == count
        return Bury(view.seat, tuple(rest))

    def play(self, view):
        return Play(view.seat, tuple(self.plays.pop(0))) if self.plays else super().play(view)


@pytest.fixture
def stacked(monkeypatch):
    """Deal ``hands`` (talon starting with ♥2) to a table of peers: seat 0's secret
    permutation puts the cards in place, the other seats' are the identity."""
    def deal(rules: Rules, hands: dict[int, str], scripts: dict[int, tuple[str, ...]],
             classes: dict[int, type[TableHand]] | None = None) -> list[TableHand]:
        faces = build_deck(rules, hands, "2H", first=0)
        free = {f: [f, f + 54] for f in range(54)}
        perm = [free[f].pop(0) for f in faces]
        size = len(perm)
        monkeypatch.setattr(OwnSecrets, "permutation",
                            lambda self, shuffles: perm if self.me == 0 else list(range(size)))
        setup = HandSetup(rules, ("2", "2"), first=0, starter=0, declarers=0)
        d = LocalDeal(seats=4, decks=2, hand_size=rules.hand_size, seed=3, first=0)
        players = [Scripted(s, hands[s] if s == 0 else "", scripts.get(s, ()))
                   for s in range(4)]
        tables = [(classes or {}).get(s, TableHand)(setup, d.peers[s], players[s])
                  for s in range(4)]
        d.peers = tables
        d.call_all("start")
        d.run()
        assert [c % 54 for c in tables[0].deck.deck_order()] == faces
        assert [t.phase for t in tables] == ["done"] * 4
        assert all(t.violations == [] for t in tables)
        assert all(t.result == tables[0].result for t in tables)
        return tables
    return deal


def core_replay(table: TableHand) -> Hand:
    """The rules core on the same deal and decisions (a throw as attempted)."""
    order = [c % 54 for c in table.deck.deck_order()]
    setup = table.setup
    h = Hand.dealt(setup.rules, order, setup.levels, setup.first, table.trump, table.starter,
                   table.declarers)
    h.apply(Bury(table.starter, tuple(order[p] for p in table.deck.buried)))
    for rec in table.records:
        h.apply(Play(rec.seat, tuple(c % 54 for c in rec.attempted or rec.cards)))
    return h


@pytest.mark.parametrize(("rule", "winner"), [("highest_pair", 1), ("largest_component", 2)])
def test_peers_ruff_winner_follows_the_option(stacked, rule, winner):
    rules = Rules(talon_cards=84, throw_ruff=rule)
    tables = stacked(rules, RUFF_HANDS, {s: (RUFF_TRICK[s],) for s in range(4)})
    for t in tables:
        assert [sorted(p) for p in t.tricks[0].plays] == [sorted(F(p)) for p in RUFF_TRICK]
        assert t.tricks[0].winner == winner
    h = core_replay(tables[0])
    assert h.tricks[0].winner == winner
    assert h.result.defender_points == tables[0].result.defender_points


@pytest.mark.parametrize(("rule", "forced", "claimants"), [("lowest", "KS", [1, 2]),
                                                         ("first_claimant", "JS JS", [1])])
def test_peers_forced_component_follows_the_option(stacked, rule, forced, claimants):
    rules = Rules(talon_cards=84, throw_forced=rule)
    tables = stacked(rules, FORCED_HANDS, {0: ("KS JS JS",)})
    withdrawn = 3 - len(T(forced))
    for t in tables:
        first = t.tricks[0]
        assert sorted(first.attempted) == sorted(F("KS JS JS"))
        assert sorted(first.plays[0]) == sorted(F(forced))
        # Seat 1 shows its pair; with "lowest" seat 2 shows its single (a lower part), with
        # "first_claimant" it is not asked: nobody shows more than the forced lead needs.
        assert sorted(first.claims) == claimants
        assert all(len(c) == 1 for c in first.claims.values())
        assert t.penalties == 10 * withdrawn
    h = core_replay(tables[0])
    assert [tuple(p) for p in h.tricks[0].plays] == [tuple(p) for p in tables[0].tricks[0].plays]
    assert h.penalties == tables[0].penalties
    assert h.result.defender_points == tables[0].result.defender_points


POINTLESS_HANDS = {0: "KS 10S 10S 3C 4C 6C", 1: "JS JS 3D 4D 6D 7D", 2: "QS QS 8D 9D 7C 8C",
                   3: "3S 5S 6S 10D JD QD"}


@pytest.mark.slow
def test_a_claim_that_cannot_change_the_forced_lead_is_refused_at_once(stacked):
    # Against ♠K ♠10♠10, seat 1 shows ♠J♠J (the pair is forced); seat 2's ♠Q♠Q beats the
    # pair too but changes nothing: showing it would only expose its cards, so the table
    # refuses it. Honest, seat 2 says nothing (and is asked: seat 3 might beat the ♠K).
    from test_claims import PointlessClaimer

    rules = Rules(talon_cards=84)
    with pytest.raises(TableError) as caught:
        stacked(rules, POINTLESS_HANDS, {0: ("KS 10S 10S",)}, {2: PointlessClaimer})
    assert caught.value.seat == 2 and "does not change the forced lead" in str(caught.value)
    tables = stacked(rules, POINTLESS_HANDS, {0: ("KS 10S 10S",)})
    first = tables[0].tricks[0]
    assert first.answers == [(1, 0), (2, None), (3, None)] and list(first.claims) == [1]


def test_the_rules_summary_fits_80_columns():
    # A person's terminal is 80 columns: a longer line breaks mid-word there.
    long = [line for line in RULES_SUMMARY.splitlines() if len(line) > 80]
    assert long == []


def test_every_options_refusal_of_a_short_word_fits_80_columns():
    """`tractor play --rules NAME=banana` prints "tractor: " and the refusal: one line at 80
    columns for each option (a long value typed makes it longer, as typed)."""
    for name in Rules.option_names():
        for value in ("Banana", "99", "-1"):
            try:
                parse_rules(f"{name}={value}")
            except RulesError as exc:
                assert len(f"tractor: {exc}") <= 80, exc
