"""Hints with a reason (`tractor.ai.players.explain`, `advice`) and the deal's pace for a person
(`HumanPlayer.deal_pace`): every reason is checked against the rules core and the real
hands; the pace runs on a `Clock`, in memory."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace

import pytest
from local_client import LocalClient
from test_netclient import FakeNode

from tractor import Bid, Bury, Declare, Pass, Play, Rules, Show
from tractor.ai.hosting.hints import HINT_SECONDS, hint_strategy
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.players.explain import MAX_REASON, reason
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.ai.players.strategies import make_strategy
from tractor.cards import SUIT_SYMBOLS
from tractor.cli.main import _parser
from tractor.cli.seat.client import Hint
from tractor.cli.seat.human import HumanPlayer
from tractor.cli.seat.netclient import NetClient
from tractor.dealing import declared_trump
from tractor.follow import legal_follows
from tractor.formats import classify_faces
from tractor.game import Game
from tractor.hand import Hand
from tractor.net.deck.local import LocalDeal
from tractor.net.table.player import WAIT, SeatView
from tractor.net.table.session import GameSession
from tractor.phases import Decision, Phase
from tractor.rules import team_of
from tractor.scoring import points_of
from tractor.trick import failed_components, winner_of
from tractor.trump import TRUMP, Trump

# --- the reasons are true ---------------------------------------------------------------------


def _number(text: str, pattern: str) -> int | None:
    m = re.search(pattern, text)
    return int(m.group(1)) if m else None


def check_play_reason(hand: Hand, seat: int, faces: list[int], why: str) -> None:
    """Every claim of a play's reason, against the real hand (all hands visible)."""
    ladder = hand.ladder
    assert ladder is not None
    n = hand.players
    plays = [list(p) for p in hand.current]
    total = points_of([f for p in plays for f in p] + faces)
    if plays:
        lead = classify_faces(plays[0], ladder)
        before = winner_of(plays, ladder)
        ahead = (hand.leader + before) % n
        wins = winner_of([*plays, faces], ladder) == len(plays)
        follows = list(legal_follows(list(hand.hands[seat]), lead, ladder,
                                     hand.rules.must_play_tractor))
        if why.startswith("ruffs"):
            assert wins and lead.esuit != TRUMP
            assert all(ladder.esuit[f] == TRUMP for f in faces)
        if why.startswith(("beats", "wins the trick", "overtakes")):
            assert wins
        if why.startswith("wins the trick") or "takes the trick" in why:
            assert len(plays) == n - 1
        if why.startswith("overtakes partner"):
            assert team_of(ahead) == team_of(seat)
        if why.startswith("partner is winning"):
            assert not wins and team_of(ahead) == team_of(seat) and ahead != seat
        if why.startswith("cannot win"):
            assert not any(winner_of([*plays, list(f)], ladder) == len(plays) for f in follows)
            fewest = min(points_of(f) for f in follows)
            if "the fewest" in why:
                assert points_of(faces) == fewest
            cheaper = [list(f) for f in follows if points_of(f) < points_of(faces)]
            if "rather than" in why:  # every follow that gives fewer points spends it
                assert cheaper and points_of(faces) > fewest
            held = Counter(hand.hands[seat])

            def breaks(cards: list[int]) -> bool:
                return any(held[f] >= 2 and held[f] - k < 2 for f, k in Counter(cards).items())
            if "rather than spend a trump" in why:
                assert not any(ladder.esuit[f] == TRUMP for f in faces)
                assert all(any(ladder.esuit[f] == TRUMP for f in c) for c in cheaper)
            if "rather than break up a pair" in why:
                assert not breaks(faces) and all(breaks(c) for c in cheaper)
            if "rather than spend a higher card" in why:
                top = max(ladder.order[f] for f in faces)
                assert all(any(ladder.order[f] > top for f in c) for c in cheaper)
        if why.startswith("lets the trick go"):
            assert not wins
        if why.startswith("the only legal play"):
            assert len(follows) == 1
        if "the trick holds" in why:
            assert _number(why, r"the trick holds (\d+) points") == total
        if "no points in the trick" in why:
            assert total == 0
        for pat in (r"adds (\d+) points", r"gives (\d+) points"):
            if _number(why, pat) is not None:
                assert _number(why, pat) == points_of(faces)
        if "no points" in why and ("adds" in why or "gives" in why):
            assert points_of(faces) == 0
        return
    fmt = classify_faces(faces, ladder)
    others = [list(hand.hands[(seat + k) % n]) for k in range(1, n)]
    if why.startswith("throws"):
        assert fmt.kind == "throw"
        if "cannot fail" in why:
            assert not failed_components(fmt, others, ladder)
    if re.match(r"leads a \S+ tractor of (\d+) pairs", why):
        assert fmt.kind == "tractor" and fmt.length == _number(why, r"tractor of (\d+) pairs")
    if why.startswith("throws"):
        assert _number(why, r"throws (\d+) ") == len(faces)
    if why.startswith("leads the pair"):
        assert fmt.kind == "pair"
    if "nobody can beat it" in why or "no higher" in why:
        # No other hand (nor the talon) holds a higher card of the same shape in the suit.
        assert not failed_components(fmt, others, ladder)
        if "nobody can beat it" in why:
            assert fmt.esuit == TRUMP
    if "partner has no" in why:
        partner = (seat + 2) % n
        assert not any(ladder.esuit[f] == fmt.esuit for f in hand.hands[partner])


def check_reason(client: LocalClient, action, why: str) -> None:
    assert why and len(why) <= MAX_REASON and not why.endswith("…"), why  # never cut
    hand = client.game.hand
    seat = client.seat
    if isinstance(action, Play):
        check_play_reason(hand, seat, list(action.faces), why)
    elif isinstance(action, Bury):
        points = _number(why, r"buries (\d+) points")
        assert points == points_of(action.faces) or (
            "no points" in why and points_of(action.faces) == 0)
        if "keeps every trump" in why:
            assert not any(hand.ladder.esuit[f] == TRUMP for f in action.faces)
    elif isinstance(action, Declare):
        count = _number(why, r": (\d+) of your")
        trump = declared_trump(action.faces, hand.trump_rank())  # the rules core's
        assert count == sum(trump.ladder().esuit[f] == TRUMP for f in hand.hands[seat])
    elif isinstance(action, Pass) and client.decision() == Decision.DECLARE:
        assert why.startswith(("pass", "wait")), why
        if "dealt" in why:
            assert _number(why, r"only (\d+) of") == len(hand.hands[seat])


def play_out(seed: int, check, pick) -> None:
    """A hand at a LocalClient; ``pick(client, hand)`` chooses the person's move and
    ``check(client, action)`` is called before each is made."""
    client = LocalClient(seed=seed, others=HeuristicStrategy(seed).act,
                         hinter=HeuristicStrategy(seed + 50).act)
    for _ in range(400):
        if client.summary() is not None:
            return
        kind = client.decision()
        assert kind is not None
        action = pick(client, client.game.hand)
        check(client, action)
        if kind == Decision.DECLARE and not isinstance(action, Declare):
            action = Pass(client.seat)
        assert client.submit(action) is None, action
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("seed", range(6))
def test_every_hint_reason_is_true(seed):
    kinds = []

    def check(client, action):
        hint = client.advice()
        assert isinstance(hint, Hint) and hint.action == action
        check_reason(client, action, hint.reason)
        kinds.append(hint.reason.split(":")[0].split()[0])

    play_out(seed, check, lambda client, hand: client.hint())
    assert "leads" in kinds, kinds


@pytest.mark.parametrize("seed", range(10, 16))
def test_reasons_for_random_legal_plays_are_true(seed):
    """Not only the AI's moves: any legal move's reason is true (more kinds of claim)."""
    rng = random.Random(seed)

    def pick(client, hand):
        if client.decision() in (Decision.PLAY, Decision.BURY):
            return hand.random_action(rng)
        return client.hint()

    def check(client, action):
        check_reason(client, action, reason(client.observation(), action, client.rules))

    play_out(seed, check, pick)


def test_the_reasons_name_what_a_card_player_looks_for():
    """Over several hands the main kinds of reason all come up."""
    seen: set[str] = set()
    spared: set[str] = set()  # what a costlier follow keeps ("rather than ...")
    for seed in range(20, 32):
        rng = random.Random(seed)

        def check(client, action):
            why = reason(client.observation(), action, client.rules)
            seen.add(why.split(":")[0])
            if " rather than " in why:
                spared.add(why.split(" rather than ")[1])

        def pick(client, hand, rng=rng):
            return hand.random_action(rng) if client.decision() == Decision.PLAY else client.hint()

        play_out(seed, check, pick)
    for kind in ("ruffs", "partner is winning", "cannot win"):
        assert kind in seen, sorted(seen)
    assert any(k.startswith("leads the top") for k in seen), sorted(seen)
    assert spared, "no follow said what it spared"


def test_a_declaration_hint_is_an_option_offered_with_its_reason():
    offered = []
    for seed in range(8):
        client = LocalClient(seed=seed, hinter=hint_strategy("easy", seed).act)
        while client.decision() == Decision.DECLARE and client.observation().phase == "deal":
            hint = client.advice()
            assert hint is not None
            if isinstance(hint.action, Declare):
                assert tuple(hint.action.faces) in client.declaration_options()
                assert hint.reason.startswith("declare ")
                offered.append(hint)
            else:
                assert isinstance(hint.action, Pass)
                assert hint.reason.startswith(("pass", "wait")), hint.reason
            check_reason(client, hint.action, hint.reason)
            client.submit(Pass(0))
    assert offered  # some seat was told to declare, with how many trumps it would make


def test_the_hint_is_the_search_players_choice_within_its_budget():
    strategy = hint_strategy("hard", 1)
    assert strategy.name == "search" and strategy.max_seconds <= HINT_SECONDS
    assert hint_strategy("easy", 1).max_seconds < HINT_SECONDS  # its own, shorter budget


# --- the options ------------------------------------------------------------------------------


def test_the_hint_level_and_the_deal_pace_are_options_of_a_persons_commands():
    for command in ("play", "host", "join", "resume"):
        args = _parser().parse_args([command])
        assert args.hint_level == "normal" and args.deal_pace == 0.4
    args = _parser().parse_args(["play", "--hint-level", "easy", "--deal-pace", "0"])
    assert (args.hint_level, args.deal_pace) == ("easy", 0.0)
    for bad in (["play", "--hint-level", "genius"], ["join", "--deal-pace", "-1"]):
        with pytest.raises(SystemExit):
            _parser().parse_args(bad)
    for command in ("ai", "ai-server"):  # AI seats are never paced
        assert not hasattr(_parser().parse_args([command]), "deal_pace")


# --- the deal's pace --------------------------------------------------------------------------


class PacedTable:
    """A person (seat 0) and three heuristic AI peers, frames in memory, on a Clock."""

    def __init__(self, pace: float, seed: int = 4, hands: int = 1) -> None:
        rules = Rules()
        self.deal = LocalDeal(seats=4, seed=seed)
        self.person = HumanPlayer(deal_pace=pace)
        players = [self.person] + [
            StrategyPlayer(make_strategy("heuristic", seed=s), rules, s) for s in (1, 2, 3)]
        self.sessions = [
            GameSession(rules, self.deal.config.table, s, self.deal.signing_keys[s],
                        self.deal.config.public_keys, bytes([seed, s]) * 16, players[s],
                        max_hands=hands) for s in range(4)]
        self.node = FakeNode(self.deal, self.sessions[0])
        self.clock = self.node.clock
        self.client = NetClient(self.node, ["You", "East", "North", "West"])
        self.deal.peers = self.sessions
        self.deal.call_all("start")
        self.run()

    def run(self) -> None:
        self.deal.run()
        if self.node.on_change:
            self.node.on_change()

    def dealt(self) -> int:
        return len(self.client.observation().hand)

    def through_the_deal(self, step: float) -> list[tuple[float, int, bool]]:
        """Let every declaration offer go by, advance the clock by ``step`` while the deal
        is held: (clock time, cards the person holds, whether the person passed) after
        each step, until the deal is over."""
        seen = []
        while self.client.observation().phase == "deal":
            decided = self.client.decision() == Decision.DECLARE
            if decided:
                assert self.client.submit(Pass(0)) is None
            else:
                assert self.person.holding is not None, "the deal stopped unheld"
                # Only the person's window is missing: the AI seats answered at once.
                assert self.sessions[1].current.waiting_on() == {0: "declaration window"}
                self.clock.advance(step)
            self.run()
            seen.append((self.clock.seconds(), self.dealt(), decided))
        return seen

    def offered(self) -> tuple[int, ...] | None:
        """The first declaration offered to the person now, if any."""
        options = self.client.declaration_options()
        return options[0] if options else None


def test_the_persons_cards_come_one_a_pace():
    table = PacedTable(pace=0.4)
    assert table.dealt() == 1 and table.person.holding is not None
    assert table.client.decision() is None  # held for the pace: nothing to decide
    table.clock.advance(0.39)
    table.run()
    assert table.dealt() == 1
    seen = table.through_the_deal(0.01)
    came: dict[int, float] = {}
    for now, cards, _decided in seen:
        came.setdefault(cards, now)
    gaps = [came[c + 1] - came[c] for c in range(2, 25)]
    # Letting an offer go by does not hurry the deal: every card came a pace after the last.
    assert all(0.4 - 1e-6 <= g <= 0.41 + 1e-6 for g in gaps), gaps
    assert 0.4 * 24 - 1e-6 <= table.clock.seconds() <= 0.4 * 25 + 0.5
    assert table.person.holding is None


def test_the_pace_counts_from_the_last_card_not_from_when_the_peers_answered():
    # Six seats dealt at about 0.9 s a card with a pace of 0.4: the pace was added to the
    # time the peers took between two windows. It is the time between two windows.
    table = PacedTable(pace=0.4)
    table.clock.advance(0.4)  # the first window is passed; the peers are slow
    table.clock.advance(0.3)
    table.run()  # their frames arrive: the next window, 0.3 s into the pace
    assert table.dealt() == 2 and table.person.holding is not None
    table.clock.advance(0.09)
    table.run()
    assert table.dealt() == 2
    table.clock.advance(0.011)
    table.run()
    assert table.dealt() == 3
    table.clock.advance(0.9)  # slower than the pace: the next card comes at once
    table.run()
    assert table.dealt() == 4


def test_the_deal_does_not_stop_for_an_offer_and_the_final_window_asks():
    # A person who does nothing: the deal runs at the pace past every offer; the
    # declarations stay on offer meanwhile, and the last window waits for the person.
    table = PacedTable(pace=0.4)
    offers = 0
    while table.client.observation().phase == "deal":
        offers += table.client.decision() == Decision.DECLARE
        assert table.person.holding is not None  # never waiting for the person
        table.clock.advance(0.4)
        table.run()
    assert offers > 0 and table.clock.seconds() <= 0.4 * 25 + 1e-6
    assert all(seat != 0 for seat, _ in table.client.observation().declarations)
    if table.client.decision() == Decision.DECLARE:  # the last chance is the person's to take
        assert table.sessions[1].current.waiting_on() == {0: "declaration window"}
        assert table.person.holding is None


def test_a_declaration_chosen_between_two_windows_goes_out_in_the_next():
    table = PacedTable(pace=0.4)
    while table.offered() is None:
        table.clock.advance(0.4)
        table.run()
    choice = table.offered()
    dealt = table.dealt()
    table.clock.advance(0.4)  # the window is passed; the next card is on its way
    assert table.sessions[0].current.waiting is None
    assert table.client.submit(Declare(0, choice)) is None
    assert table.person.chosen == choice and table.client.decision() is None
    table.run()  # the next card, and its window held for the pace: the choice waits
    assert table.dealt() == dealt + 1 and table.person.holding is not None
    table.clock.advance(0.4)  # the window is answered with it
    table.run()
    declared = table.client.observation().declarations
    assert declared and declared[-1] == (0, choice), declared
    assert table.person.chosen is None and table.dealt() == dealt + 2


def test_a_declaration_in_the_held_window_goes_out_at_once():
    table = PacedTable(pace=0.4)
    while table.offered() is None:
        table.clock.advance(0.4)
        table.run()
    choice = table.offered()
    assert table.sessions[0].current.waiting == "declare"  # the held window
    assert table.client.submit(Declare(0, (52, 52, 52))) == (
        "that declaration is not open to you now")
    assert table.client.submit(Declare(0, choice)) is None
    assert table.person.holding is None and not table.clock.getDelayedCalls()
    table.run()
    assert table.client.observation().declarations[-1] == (0, choice)


def test_pace_zero_deals_without_the_clock_and_stops_only_at_the_last_chance():
    # --deal-pace 0 (--plain's scripts, a quick game): the deal stopped at every new
    # offer. It runs through as fast as the peers go; the final window asks the person.
    for seed in (4, 5, 6):
        table = PacedTable(pace=0.0, seed=seed)
        obs = table.client.observation()
        assert obs.phase != "deal" and len(obs.hand) == 25
        assert table.clock.seconds() == 0 and not table.clock.getDelayedCalls()
        assert table.person.holding is None
        if table.client.decision() == Decision.DECLARE:
            assert table.sessions[1].current.waiting_on() == {0: "declaration window"}
            assert table.client.declaration_options()
            assert table.client.submit(Pass(0)) is None
            table.run()
        assert table.client.observation().phase not in ("deal", "declare")


def test_pace_zero_an_offer_while_the_cards_come_does_not_stop_the_deal():
    person = HumanPlayer(deal_pace=0.0)
    person.on_hold = lambda: None  # a `DealPace` governs the deal (never called at pace 0)
    dealing = replace(Game(seed=1).observe(0), phase=Phase.DEAL, cards_dealt=12)
    view = SeatView(0, [], None, None, None, "2", dealing)
    assert person.declare(view, [(0,)]) == Pass(0)
    last = replace(dealing, phase=Phase.DECLARE, cards_dealt=100)  # the last chance asks
    assert person.declare(SeatView(0, [], None, None, None, "2", last), [(0,)]) is WAIT


def test_new_declarations_are_told_once_in_the_log():
    table = PacedTable(pace=0.4)
    table.through_the_deal(0.4)
    told = [e for e in table.client.events() if e.startswith("you may declare")]
    assert told and all(e.endswith(" now") for e in told)
    assert len(told) == len(set(told))


def test_a_hint_during_the_deal_is_a_declaration_offered_or_a_pass():
    table = PacedTable(pace=0.4)
    table.client.hinter = StrategyPlayer(hint_strategy("easy", 3), Rules(), 3).action
    asked = 0
    while table.client.observation().phase == "deal":
        if table.client.decision() is None:  # no offer now: the next card
            table.clock.advance(0.4)
            table.run()
            continue
        hint = table.client.advice()
        assert hint is not None
        asked += 1
        if isinstance(hint.action, Declare):
            assert tuple(hint.action.faces) in table.client.declaration_options()
        else:
            assert isinstance(hint.action, Pass)
        assert len(hint.reason) <= MAX_REASON
        assert table.client.submit(Pass(0)) is None
        table.run()
    assert asked


def test_trump_counts_follow_the_rules_core_for_jokers_and_no_suit():
    # A joker declaration (and naming no suit) makes jokers the only trumps: the rank
    # cards are not counted (they were, once: "6 of your 8 cards would be trumps").
    from dataclasses import replace

    from tractor.actions import NameTrump

    obs = LocalClient(seed=2).observation()
    held = (53, 53, 0, 13, 26, 39, 5, 6)  # RJ RJ, the four 2s, ♠7 ♠8
    obs = replace(obs, hand=held, phase="deal")
    assert reason(obs, Declare(0, (53, 53))).startswith("declare RJ RJ: 2 of your 8")
    assert reason(obs, Declare(0, (13,))).startswith("declare ♥2: 6 of your 8")  # jokers and the 2s
    assert "2 of your cards are trumps" in reason(obs, NameTrump(0, None))


@pytest.mark.slow
def test_the_next_deal_waits_while_the_person_reads_the_summary():
    # It went on behind the summary: back from it, the person found the trump declared
    # and had never been offered their own declaration.
    table = PacedTable(pace=0.0, hands=2)
    client = table.client
    client.hinter = StrategyPlayer(make_strategy("heuristic", seed=9), Rules(), 9).action
    for _ in range(2000):
        if client.summary() is not None:
            break
        advice = client.advice() if client.decision() is not None else None
        if advice is not None:
            assert client.submit(advice.action) is None
        table.clock.advance(1)
        table.run()
    assert client.summary() is not None and not client.summary()["game_over"]
    for _ in range(20):  # however long the person reads
        table.clock.advance(5)
        table.run()
    nxt = table.sessions[1].current
    assert nxt is not table.sessions[1].played[0]
    assert nxt.waiting_on().get(0) == "declaration window", nxt.waiting_on()
    held = len(nxt.observation().hand)
    assert held <= 1
    client.next_hand()  # back from the summary: the deal goes on
    table.run()
    while client.decision() == Decision.DECLARE:  # offers are the person's to take or let pass
        assert client.submit(Pass(0)) is None
        table.run()
    assert len(table.sessions[1].current.observation().hand) > held


@pytest.mark.parametrize("seed", range(4))
def test_auction_hints_say_what_a_bid_does_and_why_a_card_is_shown(seed):
    # "bids 5 points" and "shows ♠2 for the starter" (a defender, whose card does not
    # count) told a new player nothing true.
    rules = Rules(declaration="auction")
    seen = set()

    def check(hand, seat, action):
        why = reason(hand.observe(seat), action, rules)
        assert len(why) <= MAX_REASON and not why.endswith("…"), why
        mine = hand.hands[seat]
        if isinstance(action, Bid):
            seen.add("bid")
            # The bid is no target (seeds/README.md): it only picks the declaring team.
            m = re.match(r"if it stands, your team declares; best trump (\S): (\d+) of (\d+)$",
                         why)
            assert m, why
            assert int(m[3]) == len(mine)
            level = hand.levels[team_of(seat)]
            counts = {SUIT_SYMBOLS[s]: sum(Trump(level, s).ladder().esuit[f] == TRUMP
                                           for f in mine) for s in "SHDC"}
            assert int(m[2]) == counts[m[1]] == max(counts.values())
        if isinstance(action, Show):
            defender = team_of(seat) != hand.declarers
            seen.add("show " + ("defender" if defender else "declarer"))
            assert why.startswith("a defender's card does not count" if defender
                                  else "the declarers' highest card makes the starter")
            height = [100 + f if f >= 52 else f % 13 for f in mine]
            shown = 100 + action.faces[0] if action.faces[0] >= 52 else action.faces[0] % 13
            if why.endswith("your highest"):
                assert shown == max(height)
            if why.endswith("your lowest"):
                assert shown == min(height)
            if why.endswith("a middle card"):
                assert min(height) < shown < max(height)

    for s in range(seed * 3, seed * 3 + 3):
        game = Game(rules, s)
        players = [HeuristicStrategy(s * 10 + k) for k in range(4)]
        hand = game.hand
        while hand.phase not in ("talon", "play"):
            seat = hand.to_act()
            action = players[seat].act(hand, seat)
            if hand.phase in ("bid", "show"):
                check(hand, seat, action)
            game.apply(action)
            hand = game.hand
    assert seen == {"bid", "show defender", "show declarer"}, seen
