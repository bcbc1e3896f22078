"""A watcher's replay (`net.table.spectator.Spectator`): fed a seat's signed transcript from
the middle of a game on, it ends with the seats' public state and results, never opens a
card before the table does, and refuses (naming the seat) a frame a seat would refuse."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from memnet import TABLE, MemNet, body_of, kind_of, resign

from tractor.net.table.spectator import Spectator, WatchRefused
from tractor.phases import Phase


def _public_state(hand: Any) -> tuple[Any, ...]:
    """What every seat and a watcher see alike of one hand."""
    p = hand.public
    return (p.phase, p.trump, p.starter, p.declarers, tuple(p.declarations), tuple(p.tricks),
            tuple(p.current), p.defender_points, tuple(p.sizes), p.drawn)


def _spectator(net: MemNet) -> Spectator:
    return Spectator(net.rules, TABLE, [k.public_key() for k in net.keys])


def _unique(frames: list[bytes]) -> list[bytes]:
    return list(dict.fromkeys(frames))


@pytest.fixture(scope="module")
def game() -> dict[str, Any]:
    """Two hands at four seats; a watcher arrives in the second hand's tricks (what seat 1
    held then) and is fed the rest of seat 1's transcript as the game goes on."""
    net = MemNet(seed=5, hands=2)
    watcher = _spectator(net)
    seen: dict[str, Any] = {}

    def mid_game() -> bool:
        hand = net.sessions[1].current
        if not (net.sessions[1].hand_no == 1 and hand.phase == Phase.PLAY
                and len(hand.public.tricks) >= 2):
            return False
        for frame in _unique(net.sessions[1].journal()):
            watcher.take(frame)
        deck = watcher.current.deck
        seen["cards"] = set(deck.cards)
        seen["opened"] = (set(deck.played) | {r.position for r in deck.reveals}
                          | set(deck.public))
        seen["buried"] = set(deck.buried)
        seen["dealt"] = deck.config.dealt
        seen["state"] = _public_state(watcher.current)
        seen["seat_state"] = _public_state(net.sessions[1].current)
        return True

    net.run(until=mid_game)
    net.run(begin=False)
    assert net.completed()
    for frame in _unique(net.sessions[1].journal()):
        watcher.take(frame)
    return {"net": net, "watcher": watcher, **seen}


def test_a_watcher_arriving_mid_game_ends_with_the_seats_public_state(game: dict[str, Any]
                                                                       ) -> None:
    net, watcher = game["net"], game["watcher"]
    assert game["state"] == game["seat_state"]  # caught up: the same hand, trick and points
    assert [r.to_data() for r in watcher.session.results] == net.results()[0]
    last = watcher.session.played[1]  # (the watcher, told of no last hand, deals again)
    assert last.deck.config.hand == 1
    for seat in range(4):
        assert _public_state(last) == _public_state(net.sessions[seat].current)
    assert watcher.session.levels == net.sessions[0].levels


def test_a_watcher_opens_no_card_before_the_table_does(game: dict[str, Any]) -> None:
    cards = game["cards"]
    assert cards, "the watcher saw the cards played so far"
    assert cards <= game["opened"]  # no hand, no burial: only what was played or shown
    assert game["buried"] and not cards & game["buried"]
    assert len(cards) < game["dealt"] // 2  # the seats' hands stay closed to it


def _first(net: MemNet, kind: str, seat: int) -> bytes:
    return next(f for f in _unique(net.sessions[seat].journal())
                if kind_of(f) == kind and msgpack.unpackb(f)[0][3] == seat)


def test_a_forged_frame_is_refused_and_names_its_seat(game: dict[str, Any]) -> None:
    net = game["net"]
    frame = _first(net, "shuffle", 2)
    header, body, signature = msgpack.unpackb(frame, raw=False)
    forged = msgpack.packb([header, {**body, "forged": 1}, signature], use_bin_type=True)
    watcher = _spectator(net)
    with pytest.raises(WatchRefused) as refused:
        watcher.take(forged)
    # Named, not blamed: anybody can write seat 2's number on a frame it did not sign.
    assert refused.value.seat is None and "seat 2" in str(refused.value)
    assert "signature" in str(refused.value)
    with pytest.raises(WatchRefused):  # nothing more is taken from that feed
        watcher.take(frame)


def test_two_signed_versions_of_one_message_are_refused_naming_their_signer(
        game: dict[str, Any]) -> None:
    net = game["net"]
    transcript = _unique(net.sessions[0].journal())
    frame = _first(net, "deal", 3)
    other = resign(frame, net.keys[3], {**body_of(frame), "positions": [], "keys": []})
    watcher = _spectator(net)
    with pytest.raises(WatchRefused) as refused:
        for f in transcript:
            watcher.take(other if f == frame else f)
        for f in transcript:
            watcher.take(f)
    assert refused.value.seat == 3


def test_a_watchers_log_tells_every_hand_and_trick_and_no_hand_of_its_own(
        game: dict[str, Any]) -> None:
    from tractor.cli.watch import WatchLog

    net = game["net"]
    watcher = _spectator(net)
    lines: list[str] = []
    log = WatchLog(watcher, ("ann", "bob", "cat", "dan"), lines.append)
    for frame in _unique(net.sessions[2].journal()):
        if watcher.take(frame):
            log.changed()
    text = "\n".join(lines)
    assert "hand 1 over: defenders took" in text and "hand 2 over: defenders took" in text
    assert text.count("4 of 4 peers verified the hand") == 2
    assert "── hand 2 ──" in text
    assert "you may declare" not in text
    status = [line for line in lines if line.startswith("after trick ")]
    assert len(status) > 10 and text.count("after trick 1: defenders hold 0 points") == 2
    for line in status:  # at the end of a trick every seat holds as many cards
        counts = {part.rsplit(" ", 1)[1] for part in line.split("cards left: ")[1].split(", ")}
        assert len(counts) == 1, line


def test_a_watchers_status_line_follows_its_own_trick_when_frames_come_in_batches(
        game: dict[str, Any]) -> None:
    # Moves that came at once (catching up, a quick lead) put "after trick N" under trick
    # N+1's plays ("trick 10 to Gus / Gus leads ♣7 / after trick 10 ...").
    from tractor.cli.watch import WatchLog

    net = game["net"]
    watcher = _spectator(net)
    lines: list[str] = []
    log = WatchLog(watcher, ("ann", "bob", "cat", "dan"), lines.append)
    for k, frame in enumerate(_unique(net.sessions[2].journal())):
        if watcher.take(frame) and k % 5 == 0:
            log.changed()
    log.changed()
    status = [k for k, line in enumerate(lines) if line.startswith("after trick ")]
    assert len(status) > 5
    for k in status:
        number = lines[k].split(":")[0].removeprefix("after trick ")
        assert lines[k - 1].startswith(f"trick {number} to "), lines[k - 2:k + 2]
