"""Settings in the lobby (issue 32): the host shows and changes the rules and the seating
before the start, every change un-readies every person, a guest sees the rules and seats and
may ask for a free seat (bounded), the start binds the rules as they stand, and a table
heard on the LAN lists its main rules. State machines in memory, the commands of the
``lobby>`` prompt on them, and the discovery round trip."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tractor.cli.lobby_prompt import _LobbyCommands, roster_lines, roster_update
from tractor.cli.lobby_settings import roster_news, seat_number, table_line
from tractor.net.lobby.discovery import pack_announcement, parse_announcement
from tractor.net.lobby.errors import BadLobbyMessage
from tractor.net.lobby.guest_state import GuestLobby
from tractor.net.lobby.host_state import MOVE_LIMIT, MOVE_WINDOW, HostLobby
from tractor.net.lobby.seating import Participant, Roster, Seating, seating_id
from tractor.net.lobby.table_settings import (
    SettingRefused,
    resized,
    rules_lines,
    rules_summary,
    swapped,
)
from tractor.rules import Rules, RulesError

NAME = "Friday"


def person(i: int, kind: str = "human") -> Participant:
    return Participant(f"player {i}", bytes([i + 1]) * 32, 41000 + i, kind)


def table(guests_count: int = 2, players: int = 4, kinds: tuple[str, ...] = ()
          ) -> tuple[HostLobby, dict[int, GuestLobby]]:
    """A host at seat 0 and ``guests_count`` guests (conn i at seat i), each ready; the
    host is ready when the table is not full (else it would start)."""
    state = HostLobby(NAME, Rules(players=players), person(0), nonce=b"n" * 16)
    guests: dict[int, GuestLobby] = {}
    for i in range(1, guests_count + 1):
        kind = kinds[i - 1] if i - 1 < len(kinds) else "human"
        state.connect(i, f"192.0.2.20:{5000 + i}", "192.0.2.20", "192.0.2.1")
        guests[i] = GuestLobby(person(i, kind))
        deliver(guests, state.receive(i, guests[i].join_message(), 0.0))
        deliver(guests, state.receive(i, guests[i].ready_message(True), 0.0))
    if guests_count < players - 1:
        deliver(guests, state.host_ready(True, 0.0))
    return state, guests


def deliver(guests: dict[int, GuestLobby], sends: list[tuple[int, dict[str, Any]]]
            ) -> list[Any]:
    return [guests[c].receive(copy.deepcopy(m)) for c, m in sends if c in guests]


def names(state: HostLobby) -> list[str | None]:
    return [None if m is None else m.participant.name for m in state.seats]


def readiness(state: HostLobby) -> list[bool | None]:
    return [None if m is None else m.ready for m in state.seats]


# --- the rules -------------------------------------------------------------------------------


def test_a_rules_change_reaches_every_guest_and_un_readies_every_person_not_the_ai():
    state, guests = table(3, kinds=("human", "human", "ai"))
    assert readiness(state) == [False, True, True, True]
    deliver(guests, state.receive(1, guests[1].ready_message(False), 0.5))
    sends = state.change_rules({"throw_penalty": 0, "decks": 3}, 1.0)
    deliver(guests, sends)
    assert state.rules == Rules(throw_penalty=0, decks=3)
    assert readiness(state) == [False, False, False, True]  # the AI plays any rules
    assert sorted(c for c, _ in sends) == [1, 2, 3]
    for guest in guests.values():
        assert guest.roster is not None and guest.roster.rules == state.rules
        assert not guest.roster.all_ready
    # The same rules again change nothing (nobody is un-readied for nothing).
    assert state.change_rules({"decks": 3}, 2.0) == []


@pytest.mark.parametrize("changes, sentence", [
    ({"players": 5}, "players must be an even number"),
    ({"mode": "friends", "declaration": "auction"}, "find-a-friend declares trump"),
    ({"throw_penalty": -1}, "throw penalty cannot be negative"),
    ({"no_such_option": 1}, "unknown rules option(s): no_such_option"),
])
def test_a_rules_change_the_core_refuses_is_refused_with_its_sentence_and_changes_nothing(
        changes, sentence):
    state, guests = table(2)
    before = (state.rules, names(state), readiness(state))
    with pytest.raises(RulesError, match=sentence.replace("(", r"\(").replace(")", r"\)")):
        state.change_rules(changes, 1.0)
    assert (state.rules, names(state), readiness(state)) == before


def test_more_players_add_empty_seats_and_fewer_keep_everyone_seated_in_order():
    state, guests = table(2, players=6)
    deliver(guests, state.swap(2, 5, 0.0))  # player 2 to the last seat
    assert names(state) == ["player 0", "player 1", None, None, None, "player 2"]
    deliver(guests, state.change_rules({"players": 4}, 1.0))
    assert names(state) == ["player 0", "player 1", "player 2", None]
    assert guests[2].roster is not None and guests[2].roster.you == 2
    assert state.conns[2].seat == 2
    deliver(guests, state.change_rules({"players": 5, "mode": "friends"}, 2.0))
    assert names(state) == ["player 0", "player 1", "player 2", None, None]
    assert all(len(g.roster.seats) == 5 for g in guests.values() if g.roster)


def test_a_smaller_table_than_the_people_seated_is_refused_saying_why():
    state, guests = table(4, players=6)
    with pytest.raises(SettingRefused, match="5 seats are taken, more than a table of 4"):
        state.change_rules({"players": 4}, 1.0)
    assert state.rules.players == 6 and len(state.seats) == 6
    # AI players asked for hold promised seat numbers: no resize until they sit.
    state.issue_tokens(1.0, count=1)
    with pytest.raises(SettingRefused, match="AI player"):
        state.change_rules({"players": 8}, 1.0)


def test_pure_seat_moves_never_change_their_argument():
    seats = ["a", None, "b", None]
    assert resized(seats, 2, ()) == ["a", "b"] and seats == ["a", None, "b", None]
    assert resized(seats, 6, ()) == ["a", None, "b", None, None, None]
    assert swapped(seats, 0, 3, ()) == [None, None, "b", "a"]
    for bad in ((0, 4), (1, 1)):
        with pytest.raises(SettingRefused):
            swapped(seats, *bad, ())
    with pytest.raises(SettingRefused, match="kept for an AI"):
        swapped(seats, 0, 1, {1})


# --- the seating -----------------------------------------------------------------------------


def test_the_host_sits_and_swaps_and_every_guest_sees_its_new_seat():
    state, guests = table(2, players=4)
    deliver(guests, state.host_sit(3, 1.0))
    assert names(state) == [None, "player 1", "player 2", "player 0"]
    assert readiness(state) == [None, False, False, False]
    with pytest.raises(SettingRefused, match="seat 1 is taken: `swap 3 1`"):
        state.host_sit(1, 2.0)
    deliver(guests, state.swap(1, 2, 2.0))
    assert names(state) == [None, "player 2", "player 1", "player 0"]
    assert guests[1].roster is not None and guests[1].roster.you == 2
    assert guests[2].roster is not None and guests[2].roster.you == 1
    assert state.conns[1].seat == 2 and state.conns[2].seat == 1
    # A guest's own messages still act on its new seat.
    deliver(guests, state.receive(1, guests[1].ready_message(True), 3.0))
    assert readiness(state)[2] is True


def test_the_start_binds_the_rules_and_seats_as_they_stand():
    state, guests = table(3, players=4)
    deliver(guests, state.change_rules({"throw_penalty": 0}, 1.0))
    deliver(guests, state.swap(0, 2, 1.0))
    for conn in (1, 2):
        deliver(guests, state.receive(conn, guests[conn].ready_message(True), 2.0))
    assert state.seating is None  # the host and conn 3 are not ready again yet
    deliver(guests, state.receive(3, guests[3].ready_message(True), 2.0))
    sends = state.host_ready(True, 2.0)
    deliver(guests, sends)
    assert state.seating is not None and state.seating.rules == Rules(throw_penalty=0)
    assert state.seating.seat == 2
    assert {c: g.seating.seat for c, g in guests.items() if isinstance(g.seating, Seating)} \
        == {1: 1, 2: 0, 3: 3}
    seating = state.seating
    assert seating.table == seating_id(NAME, Rules(throw_penalty=0), seating.keys,
                                       seating.addresses, seating.names, seating.kinds,
                                       b"n" * 16)


def test_a_game_going_on_keeps_its_rules_and_seats():
    carry = ("5", "3", 1, 3, 3)
    state = HostLobby(NAME, Rules(), person(0), nonce=b"n" * 16, carry=carry)
    for change in (lambda: state.change_rules({"decks": 3}, 0.0),
                   lambda: state.host_sit(2, 0.0), lambda: state.swap(0, 1, 0.0)):
        with pytest.raises(SettingRefused, match="game already under way"):
            change()


# --- a guest asking for a seat ---------------------------------------------------------------


def test_a_guest_moves_to_a_free_seat_and_a_taken_one_changes_nothing():
    state, guests = table(2, players=6)
    deliver(guests, state.receive(1, GuestLobby.sit_message(4), 1.0))
    assert names(state) == ["player 0", None, "player 2", None, "player 1", None]
    assert guests[1].roster is not None and guests[1].roster.you == 4
    assert readiness(state) == [False, None, False, None, False, None]
    for seat in (0, 2, 4, 11):  # taken, taken, its own, beyond this table
        assert state.receive(1, GuestLobby.sit_message(seat), 2.0) == []
    state.issue_tokens(2.0, count=1)  # the last seat waits for an AI
    assert state.receive(1, GuestLobby.sit_message(5), 2.0) == []
    assert names(state)[4] == "player 1"


def test_a_guest_flooding_seat_requests_is_bounded_and_the_lobby_still_starts():
    state, guests = table(1, players=4)
    moves = 0
    for i in range(100):
        if state.receive(1, GuestLobby.sit_message(2 + i % 2), i * 0.01):
            moves += 1
    assert moves == MOVE_LIMIT
    # The host goes on: the others fill the table and it starts.
    for conn in (2, 3):
        state.connect(conn, f"192.0.2.21:{conn}", "192.0.2.21", "192.0.2.1")
        guests[conn] = GuestLobby(person(conn))
        deliver(guests, state.receive(conn, guests[conn].join_message(), 2.0))
    for conn in (1, 2, 3):
        deliver(guests, state.receive(conn, guests[conn].ready_message(True), 2.0))
    assert state.receive(1, GuestLobby.sit_message(0), 3.0) == []  # no free seat anyway
    deliver(guests, state.host_ready(True, 3.0))
    assert state.seating is not None
    # After the window, a guest may move again (at a table that has not started).
    fresh, _ = table(1, players=4)
    for i in range(MOVE_LIMIT):
        fresh.receive(1, GuestLobby.sit_message(2 + i % 2), 0.0)
    assert fresh.receive(1, GuestLobby.sit_message(1 if fresh.conns[1].seat != 1 else 2),
                         MOVE_WINDOW + 1) != []


@pytest.mark.parametrize("msg", [
    {"t": "sit"}, {"t": "sit", "seat": "2"}, {"t": "sit", "seat": -1},
    {"t": "sit", "seat": 12}, {"t": "sit", "seat": 2, "x": 1}, {"t": "sit", "seat": True},
])
def test_a_malformed_seat_request_is_refused_before_anything_changes(msg):
    state, guests = table(1, players=4)
    before = (names(state), readiness(state))
    with pytest.raises(BadLobbyMessage):
        state.receive(1, msg, 1.0)
    assert (names(state), readiness(state)) == before


# --- what people see -------------------------------------------------------------------------


def test_a_guest_sees_the_rules_before_ready_and_each_change_in_a_sentence():
    state, guests = table(1, players=4)
    first = guests[1].roster
    assert first is not None
    assert "rules: players=4  decks=2  mode=teams  declaration=reveal" in roster_lines(first)
    deliver(guests, state.change_rules({"throw_penalty": 0}, 1.0))
    second = guests[1].roster
    assert second is not None
    assert "  also: throw_penalty=0" in roster_lines(second)
    assert roster_news(first, second, False) == [
        "the host changed the rules: throw_penalty=0; every person says `ready` again"]
    deliver(guests, state.swap(0, 1, 2.0))
    assert roster_news(second, guests[1].roster, False) == [
        "the seats changed; every person says `ready` again"]
    assert roster_news(None, second, False) == []


def test_a_new_table_size_shows_its_rules_whole_and_its_new_seats():
    """After ``rules players=6`` the "also:" line (unchanged) was left out."""
    state, guests = table(1, players=4)
    deliver(guests, state.change_rules({"throw_penalty": 0}, 1.0))
    before = state.roster(1.0)
    deliver(guests, state.change_rules({"players": 6}, 2.0))
    after = state.roster(2.0)
    update = roster_update(roster_lines(before), before, after, True)
    assert update[0].startswith("you changed the rules: players=6")
    assert update[1:4] == [
        "table 'Friday': 6 seats, 2 decks",
        "rules: players=6  decks=2  mode=teams  declaration=reveal",
        "  also: throw_penalty=0"]
    assert update[4:] == ["  seat 4: empty", "  seat 5: empty"]


def test_the_host_reads_each_change_as_a_sentence_then_the_lines_it_speaks_of():
    """The news came after the lines it explained ("also: throw_penalty=0" first), and a
    guest who joined was a bare seat line."""
    state, guests = table(1, players=4)
    before = state.roster(0.0)
    deliver(guests, state.change_rules({"throw_penalty": 0}, 1.0))
    after = state.roster(1.0)
    update = roster_update(roster_lines(before), before, after, True)
    # The rules read whole: the "also:" line came alone, as if the main rules had gone.
    assert update == [
        "you changed the rules: throw_penalty=0; every person says `ready` again",
        "table 'Friday': 4 seats, 2 decks",
        "rules: players=4  decks=2  mode=teams  declaration=reveal",
        "  also: throw_penalty=0",
        *[line for line in roster_lines(after) if line.startswith("  seat")
          and line not in roster_lines(before)]]
    state.connect(2, "192.0.2.20:5002", "192.0.2.20", "192.0.2.1")
    guests[2] = GuestLobby(person(2))
    deliver(guests, state.receive(2, guests[2].join_message(), 2.0))
    joined = state.roster(2.0)
    fingerprint = joined.seats[2].fingerprint if joined.seats[2] else ""
    assert roster_update(roster_lines(after), after, joined, True) == [
        "player 2 joined (seat 2)", f"  seat 2: player 2 (human, key {fingerprint})"]
    deliver(guests, state.drop(1, 3.0))
    assert roster_update(roster_lines(joined), joined, state.roster(3.0), True) == [
        "player 1 left (seat 1)", "  seat 1: empty"]


class _Read:
    on_terminal = True

    def __init__(self) -> None:
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)


class _Host:
    """The `LobbyHost` face the prompt uses, on a real `HostLobby` (no sockets)."""

    def __init__(self, state: HostLobby, guests: dict[int, GuestLobby]) -> None:
        self.state, self.guests = state, guests

    def roster(self) -> Roster:
        return self.state.roster(0.0)

    def change_rules(self, changes: dict[str, Any]) -> None:
        deliver(self.guests, self.state.change_rules(changes, 0.0))

    def sit(self, seat: int) -> None:
        deliver(self.guests, self.state.host_sit(seat, 0.0))

    def swap(self, a: int, b: int) -> None:
        deliver(self.guests, self.state.swap(a, b, 0.0))


def test_the_hosts_lobby_commands_as_typed():
    state, guests = table(2, players=4)
    read = _Read()
    commands = _LobbyCommands(_Host(state, guests), True, read, None)  # type: ignore[arg-type]
    assert "rules (the table's rules; rules NAME=VALUE ... changes them)" in commands.help_text
    commands.take("rules")
    assert read.said[-2:] == rules_lines(Rules())
    commands.take("rules throw_penalty=0 start_level=A")  # values keep their case
    assert state.rules == Rules(throw_penalty=0, start_level="A")
    commands.take("rules players=5")
    assert read.said[-1].startswith("not changed: players must be an even number")
    commands.take("rules penalty")
    assert read.said[-1].startswith("not changed: write rules options as name=value")
    commands.take("swap player 1")
    assert read.said[-1] == ("not changed: nobody named 'player' sits at this table: give a "
                             "seat number or a seated name")
    commands.take("swap player 1 Bob")
    assert read.said[-1] == ("not changed: 'player 1 Bob' does not name two seats: give two "
                             "seat numbers (or the names seated there)")
    commands.take("swap 0 9")
    assert read.said[-1] == "not changed: there is no seat 9: the seats are 0 to 3"
    commands.take("swap player 0 PLAYER 2")  # names of two words, any case
    assert names(state) == ["player 2", "player 1", "player 0", None]
    commands.take("sit 3")
    assert names(state) == ["player 2", "player 1", None, "player 0"]
    commands.take("sit 1")
    assert read.said[-1] == "not changed: seat 1 is taken: `swap 3 1` exchanges the two seats"
    commands.take("sit 9")
    assert read.said[-1] == "not changed: there is no seat 9: the seats are 0 to 3"
    assert state.rules == Rules(throw_penalty=0, start_level="A")


def test_seats_are_named_by_number_or_by_whoever_sits_there():
    roster = Roster(NAME, Rules(), (None, None, None, None))
    state, _ = table(2, players=4)
    roster = state.roster(0.0)
    assert seat_number(roster, "2") == 2 and seat_number(roster, "Player 1") == 1
    with pytest.raises(Exception, match="nobody named 'Bob'"):
        seat_number(roster, "Bob")


class _Guest:
    def __init__(self, roster: Roster) -> None:
        self._roster = roster
        self.asked: list[int] = []

    def roster(self) -> Roster:
        return self._roster

    def sit(self, seat: int) -> None:
        self.asked.append(seat)


def test_a_guest_shows_the_rules_asks_for_free_seats_only_and_cannot_change_rules():
    state, guests = table(1, players=4)
    state.issue_tokens(0.0, count=1)  # seat 3 waits for an AI
    deliver(guests, state.broadcast(0.0))
    assert guests[1].roster is not None
    guest, read = _Guest(guests[1].roster), _Read()
    commands = _LobbyCommands(guest, False, read, None)  # type: ignore[arg-type]
    commands.take("rules")
    assert read.said[-2:] == rules_lines(Rules())
    commands.take("rules decks=3")
    assert read.said[-1].startswith("only the host changes the rules")
    for seat, answer in (("0", "seat 0 is taken"), ("3", "seat 3 is taken"),
                         ("1", "you sit at seat 1 already")):
        commands.take(f"sit {seat}")
        assert read.said[-1].startswith(answer)
    commands.take("sit 2")
    commands.take("swap 1 2")  # before: "'swap 1 2' is not a lobby command"
    assert guest.asked == [2]
    assert read.said[-1].startswith("only the host swaps seats (`sit SEAT` asks for a free")
    commands.take("fill")
    assert read.said[-1].startswith("only the host fills the empty seats with AI players")


# --- discovery -------------------------------------------------------------------------------


def test_an_announcement_carries_the_main_rules_and_join_lists_them():
    rules = Rules(players=5, mode="friends", throw_penalty=0)
    assert rules_summary(rules) == "2 decks  find-a-friend  1 house rule"
    assert rules_summary(Rules(decks=3, declaration="auction")) == \
        "3 decks  fixed teams  auction declaration"
    data = pack_announcement("table", "Ann's table", "tcp:0.0.0.0:40123", 5, 4,
                             rules_summary(rules), False, "abcd")
    ann = parse_announcement(data, "192.0.2.5", 0.0)
    assert table_line(ann) == ("Ann's table: 5 seats  1 free  tcp:192.0.2.5:40123\n"
                               "     2 decks  find-a-friend  1 house rule")  # (84 on one)
    # The longest summary fits the announcement's bound.
    widest = Rules(players=12, decks=6, declaration="auction", throw_penalty=0,
                   must_play_tractor=True, start_level="A", win="reach_ace",
                   tractor_across_rank=False, rank_and_jokers_in_tractors=False)
    pack_announcement("table", "x", "tcp:0.0.0.0:1", 12, 0, rules_summary(widest))
    # A long name and the widest summary: the summary on a line of its own, the name cut
    # (what is still longer than the terminal folds between words where it is printed).
    long = parse_announcement(pack_announcement(
        "table", "N" * 48, "tcp:0.0.0.0:40123", 12, 0, rules_summary(widest), True, "ab"),
        "192.0.2.5", 0.0)
    lines = table_line(long).split("\n")
    assert lines[0] == "N" * 27 + "...: 12 seats  12 free  (passphrase)  tcp:192.0.2.5:40123"
    assert lines[1] == "     " + rules_summary(widest)
    # An announcement of an older version (its own summary, a passphrase) still reads.
    old = parse_announcement(pack_announcement(
        "table", "Bo", "tcp:0.0.0.0:40124", 4, 1, "4 players, 2 decks, reveal", True, "ef"),
        "192.0.2.6", 0.0)
    assert table_line(old) == ("Bo: 4 seats  3 free  (passphrase)  tcp:192.0.2.6:40124\n"
                               "     4 players, 2 decks, reveal")


# --- an internet table -----------------------------------------------------------------------


def test_an_internet_table_takes_the_same_commands_and_its_seat_codes_follow_the_size():
    pytest.importorskip("wormhole")
    from fake_wormhole import Table

    table = Table(4)
    assert len(table.codes.codes()) == 3
    table.host.change_rules({"players": 6})
    for _ in range(20):  # the codes are looked at once a second
        table.clock.advance(0.1)
    assert len(table.codes.codes()) == 5 and table.host.roster().rules.players == 6
    table.host.sit(5)
    table.host.swap(5, 2)
    assert table.host.roster().you == 2
    table.host.change_rules({"players": 4, "throw_penalty": 0})
    for _ in range(20):
        table.clock.advance(0.1)
    assert len(table.codes.codes()) == 3
    assert table.host.roster().you == 2 and table.host.roster().rules.throw_penalty == 0
    # A LAN table's announcement says the rules as they stand: it reads the roster.
    table.host.announced_address = "tcp:127.0.0.1:40000"
    assert "1 house rule" in parse_announcement(table.host.announcement(), "127.0.0.1",
                                                0.0).rules


def test_a_start_message_with_every_rules_option_set_is_read_by_guests_and_ai_seats():
    # Three house rules away from their defaults made a rules map of 17 keys, and every
    # guest and AI seat refused the start ("17 keys in a map (at most 16)").
    from tractor.net.codec import encode
    from tractor.net.lobby.messages import unpack

    rules = Rules(players=6, decks=3, mode="friends", friends=1, friend_cards="trump_too",
                  friend_join="no_double", smaller_side_bonus=False,
                  throw_penalty_per="attempt", must_defend="5/10/K", joker_declare="decks",
                  reinforce_own=False, hide_played=True, show_talon=True, kitty_theft=True,
                  takebacks=True)
    data = rules.to_data()
    assert set(data) == set(Rules.option_names())  # every option away from its default
    message = unpack(encode({"t": "start", "name": "house", "rules": data}), "the host")
    assert Rules.from_data(message["rules"]) == rules
