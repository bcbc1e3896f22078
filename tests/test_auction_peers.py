"""The seed 001 auction variant between peers: the game on the real deck with AI players
(bids in turn from a dealer drawn by lot, the card-play through the deck, the starter
naming trump, the deal passing on each hand), a lying bidder blamed, and whole hands from
the command line (`tractor play` and `tractor host` with `--rules declaration=auction`)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from processes import Session

from tractor import Bid, Pass, Rules, Show
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.players.strategies import make_strategy
from tractor.net.deck.local import LocalDeal
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession, dealer_by_lot
from tractor.net.table.setup import HandSetup
from tractor.rules import team_of

#: The person's options a test that is not about them turns off: the deal's pace (10 s a
#: hand) and the hint's thinking (the quickest level).
FAST = ["--deal-pace", "0", "--hint-level", "easy"]
#: `tractor play` has take-backs: its AI seats would wait 1.5 s after each play of the person.
FAST_PLAY = [*FAST, "--takeback-wait", "0"]

AUCTION = Rules(declaration="auction")


def _sessions(hands: int, seed: int, players) -> list[GameSession]:
    d = LocalDeal(seats=4, seed=seed)
    keys = [k.public_key() for k in d.signing_keys]
    peers = [GameSession(AUCTION, b"auction-table-%d" % seed, s, d.signing_keys[s], keys,
                         bytes([seed, s]) * 16, players[s], max_hands=hands)
             for s in range(4)]
    d.peers = peers
    d.call_all("start")
    d.run()
    return peers


@pytest.mark.slow
def test_ai_peers_play_auction_hands_and_the_deal_passes_on():
    players = [StrategyPlayer(make_strategy("heuristic", seed=s), AUCTION, s) for s in range(4)]
    peers = _sessions(2, 5, players)
    first = peers[0]
    assert len(first.results) == 2 and all(p.results == first.results for p in peers)
    dealer = dealer_by_lot(first.table, 4)
    for k, hand in enumerate(first.played):
        public = hand.public
        assert hand.setup.first == (dealer + k) % 4  # by lot, then the next seat each hand
        assert public.bids and public.bids[0][0] == hand.setup.first or (
            not public.bids and hand.declarers == team_of(hand.setup.first))
        # The starter is the declarer who showed the highest card, and named the trump.
        assert team_of(public.starter) == public.declarers
        assert len(public.shown) == 4 and not hand.violations
        assert hand.deck.verdicts and all(
            v == {"violations": [], "transcript": hand.deck.transcript()}
            for v in hand.deck.verdicts.values())
    # Sensible bids: nobody outbids a partner's bid by a point, and not to the ceiling.
    for hand in first.played:
        assert hand.public.high_bid() < AUCTION.total_points


class _Liar(RandomPlayer):
    """Bids a number of points the auction does not allow."""

    def bid(self, view, options):
        return Bid(view.seat, 7)


def test_a_bid_the_rules_do_not_allow_is_blamed_on_its_seat():
    d = LocalDeal(seats=4, decks=2, hand_size=25, seed=2, first=1)
    setup = HandSetup(AUCTION, ("2", "2"), first=1)
    players = [RandomPlayer(s) for s in range(4)]
    players[1] = _Liar(1)
    tables = [TableHand(setup, d.peers[s], players[s]) for s in range(4)]
    d.peers = tables
    d.call_all("start")
    with pytest.raises(TableError) as info:
        d.run()
    assert info.value.seat == 1 and "multiple of 5" in str(info.value)


class _Muddled(RandomPlayer):
    """A player (a buggy strategy) that shows a card it does not hold, or bids a number
    no message can carry."""

    def __init__(self, seed: int, what: str) -> None:
        super().__init__(seed)
        self.what = what

    def bid(self, view, options):
        return Bid(view.seat, 2**70) if self.what == "bid" else Pass(view.seat)

    def show(self, view):
        held = set(view.hand)
        return Show(view.seat, (next(f for f in range(54) if f not in held),))


@pytest.mark.parametrize("what", ["bid", "show"])
def test_a_peers_own_player_gone_wrong_stops_it_with_a_reason_not_a_crash(what):
    # Before: StopIteration (a card not held) or msgpack's OverflowError out of receive().
    d = LocalDeal(seats=4, decks=2, hand_size=25, seed=3, first=0)
    setup = HandSetup(AUCTION, ("2", "2"), first=0)
    players = [_Muddled(s, what) for s in range(4)]
    tables = [TableHand(setup, d.peers[s], players[s]) for s in range(4)]
    d.peers = tables
    d.call_all("start")
    with pytest.raises(TableError) as info:
        d.run()
    assert "this peer's player" in str(info.value)


def _env(tmp_path) -> dict[str, str]:
    return {**os.environ, "TRACTOR_HOME": str(tmp_path), "NO_COLOR": "1"}


@pytest.mark.e2e
def test_a_whole_auction_hand_from_tractor_play(tmp_path):
    script = "hint\n\n" * 80 + "quit\n"
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "tractor.cli.main", "play", "--plain", *FAST_PLAY, "--rules",
         "declaration=auction", "--strategy", "heuristic", "--level", "easy"],
        input=script, capture_output=True, text=True, timeout=600, env=_env(tmp_path),
        cwd=tmp_path)
    out = proc.stdout
    assert "Traceback" not in out + proc.stderr, proc.stderr[-3000:]
    assert "Auction:" in out and "bid> " in out and "show> " in out, out[-3000:]
    assert "Hand 1 is over." in out, out[-3000:]
    assert "the auction picks the declarers" in out  # not "Next starter ... declares"
    assert "4 of 4 peers verified the hand: no rule broken" in out
    assert out.count("Refused") == 0


@pytest.mark.e2e
def test_a_whole_auction_hand_at_a_hosted_table(tmp_path):
    host = Session(["host", *FAST, "--name", "auction", "--ai", "3", "--plain", "--no-announce",
                    "--listen", "tcp:0:interface=127.0.0.1", "--rules", "declaration=auction",
                    "--strategy", "heuristic", "--level", "easy"], _env(tmp_path))
    try:
        assert host.until(lambda out: "lobby commands" in out, 60), host.out
        host.send("ready")
        host.answer_prompts(80, 120, stop=lambda out: "Hand 1 is over." in out)
        assert "Hand 1 is over." in host.out, host.out[-3000:]
        assert "4 of 4 peers verified the hand: no rule broken" in host.out
        assert "Auction:" in host.out and "Refused" not in host.out
        assert "Traceback" not in host.out
        host.send("quit")
        host.proc.wait(timeout=30)
    finally:
        if host.proc.poll() is None:
            host.proc.kill()


@pytest.mark.e2e
def test_a_whole_auction_hand_on_the_full_screen(tmp_path):
    pytest.importorskip("pyte")
    from pty_terminal import Terminal, play_full_screen_hand, quit_screen

    term = Terminal([sys.executable, "-P", "-m", "tractor.cli.main", "play", *FAST_PLAY, "--rules",
                     "declaration=auction", "--strategy", "heuristic", "--level", "easy",
                     "--seed", "2"], _env(tmp_path), cwd=str(tmp_path))
    try:
        assert term.wait_for("Tractor · hand 1", 120), term.text()
        assert term.wait_until(lambda text: "Auction:" in text, 60), term.text()
        play_full_screen_hand(term, 400)
        screen = term.text()
        assert "Hand 1 is over." in screen and "verified the hand" in screen, screen
        assert "Traceback" not in screen
        assert quit_screen(term, 5.0) is not None, term.text()
    finally:
        term.close()


def test_the_log_tells_the_auction_bid_by_bid_the_cards_shown_and_the_starter():
    # The log of an auction table was empty until the burial: no bids, passes, shown
    # cards, starter or trump.
    from tractor.cli.seat.hand_log import table_events

    players = [StrategyPlayer(make_strategy("heuristic", seed=s), AUCTION, s) for s in range(4)]
    hand = _sessions(1, 7, players)[0].played[0]
    public = hand.public
    lines = [e.line for e in table_events(hand, lambda s: f"seat {s}")]
    said = [line for line in lines if " bids " in line or line.endswith(" passes")]
    assert len(said) == len(public.bids) + len(public.out_of_auction) > 0
    assert [line for line in said if " bids " in line] == [
        f"seat {s} bids {p}" for s, p in public.bids]
    seats = [int(line.split()[1]) for line in said]
    assert seats[0] == hand.setup.first  # in turn from the first bidder
    shows = [line for line in lines if " shows " in line]
    assert len(shows) == 4 and [int(s.split()[1]) for s in shows] == [s for s, _ in public.shown]
    starts = [line for line in lines if " starts " in line]
    assert len(starts) == 1 and starts[0].startswith(f"seat {public.starter} starts")
    burial = next(i for i, line in enumerate(lines) if " buries " in line)
    assert lines.index(starts[0]) < burial < next(
        i for i, line in enumerate(lines) if line.startswith(("seat", "trick")) and (
            " leads " in line or " throws " in line))
