"""Seat codes cannot be guessed online: on a `Clock`, with an in-memory mailbox, a stranger
who tries every code the moment it opens for 24 (and 48) simulated hours spends no more
codes than the budget allows, the host is told of every spent code and when new ones are
paused, `codes` opens new ones, and the right code still seats a friend afterwards."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("wormhole")

from fake_wormhole import RELAY, FakeMailbox, Table  # noqa: E402
from twisted.internet.defer import ensureDeferred  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402

from tractor.net.internet.lobby import join_by_code, open_seat_code  # noqa: E402
from tractor.net.internet.seat_code_limits import (
    CODE_WORDS,
    DAY,
    REPLACED_PER_DAY,
    guess_chance,
    guesses_per_day,
)
from tractor.net.lobby.errors import WrongCode  # noqa: E402
from tractor.net.lobby.seating import Participant  # noqa: E402


def attack(table: Table, seconds: float) -> list[float]:
    """Try every code the moment it opens (within a second) for ``seconds``: when each
    wrong try was made."""
    times: list[float] = []
    end = table.clock.seconds() + seconds
    while table.clock.seconds() < end:
        times += table.guess_every_open_code()
        table.clock.advance(1)
    return times


def most_in_a_day(times: list[float]) -> int:
    return max(len([t for t in times if start <= t < start + DAY]) for start in times)


@pytest.mark.parametrize(("players", "host_plays"), [(4, True), (12, False)])
def test_a_day_of_guessing_is_bounded_told_and_the_right_code_still_works(players,
                                                                          host_plays):
    table = Table(players, host_plays)
    free = players - (1 if host_plays else 0)
    assert table.opened == 1 and len(table.codes.codes()) == free
    assert all(len(code.split("-")) == 1 + CODE_WORDS for code in table.codes.codes())
    times = attack(table, DAY - 60)  # the day from the first guess (then the budget is back)
    bound = guesses_per_day(free)
    assert len(times) == bound == free + REPLACED_PER_DAY, (len(times), table.lines)
    # Below one in a million a day, even at the largest table with every seat free.
    assert len(times) * guess_chance() < 1e-6
    assert guesses_per_day() * guess_chance() < 1e-6
    # The host heard of every spent code, and that new codes wait for them.
    spent = [line for line in table.lines if "was spent by a wrong guess" in line]
    assert len(spent) == len(times), table.lines
    paused = [line for line in spent if "new codes are paused; type `codes`" in line]
    assert len(paused) == free, table.lines  # every code after the budget: told, not replaced
    assert f"{REPLACED_PER_DAY + 1} wrong guesses at your seat codes" in paused[0]
    assert table.codes.codes() == []
    assert not [line for line in table.lines if line.startswith("codes: []")], \
        "'none open' flashed while codes were spent"

    # The host asks for new codes: one per free seat; a friend's right code seats them.
    said = table.codes.ask()
    assert said is not None and f"opening {free} new seat code(s)" in said
    table.clock.advance(1)
    fresh = table.codes.codes()
    assert len(fresh) == free, table.lines
    assert table.lines[-1] == f"codes: {fresh}"
    joined = ensureDeferred(join_by_code(table.clock, fresh[0], Participant(
        "Gus", bytes([9]) * 32, 4001), table.mailbox.url, RELAY,
        create=table.mailbox.create))
    for _ in range(5):
        table.clock.advance(0.5)
        table.mailbox.flush()
    guest, _w = joined.result
    assert [m.name for m in table.host.roster().seats if m is not None][-1] == "Gus"
    assert guest.roster() is not None and guest.roster().you is not None
    # The next wrong guess is told and not replaced: paused again.
    before = len(table.lines)
    assert len(table.guess_every_open_code()) == free - 1
    table.clock.advance(1)
    assert len(table.codes.codes()) == 0
    assert all("new codes are paused" in line for line in table.lines[before:]), \
        table.lines[before:]


@pytest.mark.slow
@pytest.mark.parametrize(("players", "host_plays"), [(4, True), (12, False)])
def test_two_days_of_guessing_stay_within_the_bound_in_every_24_hours(players, host_plays):
    table = Table(players, host_plays)
    free = players - (1 if host_plays else 0)
    times = attack(table, 2 * DAY)
    assert most_in_a_day(times) == guesses_per_day(free), most_in_a_day(times)
    assert most_in_a_day(times) * guess_chance() < 1e-6
    # A day after the first replacements the budget comes back: codes reopen by themselves.
    assert len(times) == guesses_per_day(free) + REPLACED_PER_DAY


def test_replacements_slow_down_before_they_pause():
    table = Table(4)
    waits = []
    for _ in range(REPLACED_PER_DAY):
        (code, *_rest) = table.codes.codes()
        start = table.clock.seconds()
        ensureDeferred(open_seat_code(table.clock, table.mailbox.wrong_code(code),
                                      table.mailbox.url, RELAY, wait=5,
                                      create=table.mailbox.create)).addErrback(lambda _f: None)
        table.clock.advance(0.5)
        assert code not in table.codes.codes()
        while len(table.codes.codes()) < 3:
            table.clock.advance(1)
        waits.append(round(table.clock.seconds() - start))
    # At once (the mailbox's own time), then 30 s, then 60 s after the one before.
    assert waits[0] <= 2 and waits[1] <= 2 and 30 <= waits[2] <= 32 and 60 <= waits[3] <= 62, \
        waits
    assert len([line for line in table.lines if "spent by a wrong guess" in line]) == 4
    assert any(re.search(r"its replacement opens in 2[89] s", line) for line in table.lines), \
        table.lines


def test_a_wrong_guess_shows_the_replacement_in_one_line_and_none_open_never_flashes():
    table = Table(4)
    table.host.request_fill(count=2)  # two seats asked of AI players: one free seat
    table.clock.advance(1)
    (code,) = table.codes.codes()
    assert table.lines[-1] == f"codes: {[code]}"
    before = len(table.lines)
    assert len(table.guess_every_open_code()) == 1
    table.clock.advance(1)
    (fresh,) = table.codes.codes()
    assert table.lines[before:] == [
        f"the code {code} was spent by a wrong guess (1 in the last 24 hours); "
        f"its replacement: {fresh}"], table.lines[before:]


def test_a_guesser_who_goes_silent_spends_the_code_and_the_host_is_told():
    table = Table(4)
    code = table.codes.codes()[0]
    table.mailbox.silent_guess(code.split("-")[0])
    table.clock.advance(59)
    assert code in table.codes.codes()  # a friend's program answers at once: not yet
    table.clock.advance(1)
    table.clock.advance(1)
    assert code not in table.codes.codes() and len(table.codes.codes()) == 3
    assert any(f"the code {code} was spent by a guess that never finished" in line
               for line in table.lines), table.lines


@pytest.mark.parametrize("typed", ["7-guitarist-revenge", "7-guitarist-revenge-bodygard",
                                   "7-revenge-guitarist-bodyguard", "guitarist-revenge-x"])
def test_a_code_that_cannot_be_one_is_refused_before_it_spends_the_hosts(typed):
    clock = Clock()
    mailbox = FakeMailbox(clock)
    d = ensureDeferred(open_seat_code(clock, typed, mailbox.url, RELAY,
                                      create=mailbox.create))
    errors: list[WrongCode] = []
    d.addErrback(lambda f: errors.append(f.trap(WrongCode) and f.value))
    assert errors and "check" in str(errors[0]) and "is not a seat code" in str(errors[0])
    assert mailbox.created == 0  # no wormhole opened: no host's code spent
    if typed.endswith("bodygard"):
        assert "did you mean 'bodyguard'?" in str(errors[0])


def test_a_joiner_is_told_of_a_wrong_code_and_of_a_mailbox_out_of_reach_and_nothing_stays_open():
    from wormhole.errors import ServerConnectionError

    from tractor.net.lobby.errors import LobbyClosed

    table = Table(4)
    made: list[Any] = []
    errors: list[Exception] = []

    def create(*args: Any, **kw: Any) -> Any:
        made.append(table.mailbox.create(*args, **kw))
        return made[-1]

    code = table.codes.codes()[0]
    typed = ensureDeferred(open_seat_code(table.clock, table.mailbox.wrong_code(code),
                                          table.mailbox.url, RELAY, create=create))
    typed.addErrback(lambda f: errors.append(f.value))
    table.clock.advance(1)
    assert isinstance(errors[0], WrongCode) and "is not the host's code" in str(errors[0])
    clock = Clock()
    far = FakeMailbox(clock, reachable=False)

    def out_of_reach(*args: Any, **kw: Any) -> Any:
        made.append(far.create(*args, **kw))  # the library's error once the mailbox refuses
        refused = ServerConnectionError(far.url, ConnectionRefusedError("Connection refused"))
        clock.callLater(0.1, made[-1]._fail_all, refused)
        return made[-1]

    reach = ensureDeferred(open_seat_code(clock, code, far.url, RELAY, create=out_of_reach))
    reach.addErrback(lambda f: errors.append(f.value))
    clock.advance(1)
    assert isinstance(errors[1], LobbyClosed), errors
    assert f"cannot reach the mailbox {far.url}: Connection refused" in str(errors[1])
    assert [w.closed for w in made] == [True, True]
