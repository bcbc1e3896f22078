"""The watching code of this session attacked again, in memory and on a `Clock`: as the
seat a watcher watches through (ballots: a flood over the hands, forged, other-table,
replayed, one seat's own pair), as a watcher or a stranger at a watch code (a seat's hello,
many connections on one code, guesses against the budget), at the welcome's no-watchers
field, and at the lobby's ``ready`` digests (stale, flooded, malformed)."""

from __future__ import annotations

import struct
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("wormhole")

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from fake_wormhole import RELAY, FakeMailbox  # noqa: E402
from test_lobby_settings import deliver, person, readiness, table  # noqa: E402
from test_watch_codes import Host  # noqa: E402
from twisted.internet.defer import ensureDeferred  # noqa: E402
from twisted.internet.endpoints import connectProtocol  # noqa: E402
from twisted.internet.protocol import Factory, Protocol  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402
from twisted.internet.testing import MemoryReactorClock, StringTransport  # noqa: E402

from tractor.net.codec import encode  # noqa: E402
from tractor.net.internet.dilation import dilate_only  # noqa: E402
from tractor.net.internet.lobby import open_code  # noqa: E402
from tractor.net.internet.rendezvous import WATCH_CODE  # noqa: E402
from tractor.net.internet.seat_code_limits import (  # noqa: E402
    DAY,
    FIRST_WAIT,
    REPLACED_PER_DAY,
    code_problem,
)
from tractor.net.internet.watch_codes import WATCH_HOLD, WatchCodes, WatchLink  # noqa: E402
from tractor.net.lobby.errors import BadLobbyMessage, WrongCode  # noqa: E402
from tractor.net.lobby.guest_state import GuestLobby  # noqa: E402
from tractor.net.lobby.host_state import MAX_SHOWN  # noqa: E402
from tractor.net.lobby.messages import NONCE_SIZE  # noqa: E402
from tractor.net.lobby.seating import TableBinding  # noqa: E402
from tractor.net.mesh.link import HELLO_TIMEOUT  # noqa: E402
from tractor.net.mesh.watchers import MAX_WATCHERS  # noqa: E402
from tractor.net.mesh.watching import WatchClient, WatchError, read_welcome  # noqa: E402
from tractor.net.referee import machine  # noqa: E402
from tractor.net.referee.ballots import BallotError, pack_ballot  # noqa: E402
from tractor.net.referee.machine import MAX_BALLOTS, Ballot, Item  # noqa: E402
from tractor.net.referee.onlooker import Onlooker  # noqa: E402
from tractor.rules import Rules  # noqa: E402

TABLE = b"t" * 32


def _keys(seats: int = 4) -> list[Ed25519PrivateKey]:
    return [Ed25519PrivateKey.from_private_bytes(bytes([s + 1]) * 32) for s in range(seats)]


def _onlooker(keys: list[Ed25519PrivateKey], table: bytes = TABLE) -> Onlooker:
    return Onlooker(table, [k.public_key() for k in keys])


def _vote(key: Ed25519PrivateKey, signer: int, item: Item, what: str = "play",
          table: bytes = TABLE) -> bytes:
    return pack_ballot(key, table, Ballot(item, signer, False, what))


def _pass(key: Ed25519PrivateKey, signer: int, item: Item, table: bytes = TABLE) -> bytes:
    return pack_ballot(key, table, Ballot(item, signer, True))


# --- B: ballots sent to a watcher -----------------------------------------------------------

def test_a_seat_flooding_its_watcher_with_its_own_ballots_hand_after_hand_is_forgotten() -> None:
    """The seat watched through signs ballots of its own (within the referee's bounds per
    hand) as the game goes on: the watcher holds those of the hands beside its replay's
    only, as the seats do (`forget_before`), not every hand's for the whole game (memory,
    and each ballot's settling goes over all held: time)."""
    keys = _keys()
    onlooker = _onlooker(keys)
    for hand in range(6):
        for m in range(6):
            assert onlooker.take(_vote(keys[0], 0, Item(hand, 1, m)), hand)
            assert onlooker.take(_pass(keys[0], 0, Item(hand, 2, m)), hand)
        held = {item.hand for item in onlooker.referee.ballots}
        assert held <= {hand - 1, hand}, (hand, held)
    assert onlooker.verdict is None


def test_lone_partial_forged_and_other_table_ballots_show_no_verdict() -> None:
    """The seat watched through (seat 0) shows its watcher ballots the seats never settled
    on: its own vote on an honest seat, two of the three votes a blame needs, a vote it
    signed as seat 2 with its own key, seat 2's real vote from another table: no verdict,
    and the forged and foreign ones end the watch without naming a seat."""
    keys = _keys()
    onlooker = _onlooker(keys)
    item = Item(0, 1, 3)
    assert onlooker.take(_vote(keys[0], 0, item), 0)
    assert onlooker.take(_vote(keys[3], 3, item), 0)  # (seat 3's real one: two of three)
    assert onlooker.verdict is None
    for frame, why in ((_vote(keys[0], 2, item), "signature"),
                       (_vote(keys[2], 2, item, table=b"o" * 32), "another table")):
        try:
            onlooker.take(frame, 0)
        except BallotError as exc:
            assert why in exc.reason
        else:
            raise AssertionError("a ballot not of this table's seat 2 was taken")
    assert onlooker.verdict is None
    # Ballots on a hand far from the replay's count for nothing, even a full set.
    far = Item(5, 1, 0)
    assert not any(onlooker.take(_vote(keys[s], s, far), 0) for s in (0, 2, 3))
    assert onlooker.verdict is None


def test_a_seat_can_make_its_watcher_blame_no_seat_but_itself() -> None:
    """Seat 0 signs a vote and a pass on one item (a vote on honest seat 1's move, then a
    pass): the evidence names seat 0, the only signer; never seat 1 it voted against."""
    keys = _keys()
    onlooker = _onlooker(keys)
    item = Item(0, 1, 2)
    onlooker.take(_vote(keys[0], 0, item), 0)
    onlooker.take(_pass(keys[0], 0, item), 0)
    assert onlooker.verdict is not None and getattr(onlooker.verdict, "seat", None) == 0


# --- A: watch codes ---------------------------------------------------------------------------

class _Seat:
    """What `WatchCodes` reads of the host's seat: its clock, a game going on, its
    watchers' limit, its connections (a budget runs over a day: no game is played)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.session = SimpleNamespace(over=False)
        self.watchers = SimpleNamespace(limit=MAX_WATCHERS, served={})
        self.connections: set[object] = set()


def test_guessing_every_watch_code_for_a_day_opens_no_more_than_the_budget() -> None:
    """A stranger guesses each watch code as it opens, the wrong words through
    `open_code` or a guess that never finishes (the host's key only), and again for a
    day: the codes opened are the first and `REPLACED_PER_DAY` replacements, the third
    and later only after their waits; a day after the first spent, replacements again."""
    clock = Clock()
    mailbox = FakeMailbox(clock, seed=5)
    opened: list[tuple[float, str]] = []
    lines: list[str] = []
    codes = WatchCodes(clock, _Seat(clock), mailbox.url, RELAY,
                       lambda code: opened.append((clock.seconds(), code)), lines.append,
                       create=mailbox.create)
    codes.start()
    refused: list[object] = []
    for step in range(int(DAY / 5)):
        for code in mailbox.open_codes():
            if step % 2:
                mailbox.silent_guess(code.split("-", 1)[0])
            else:
                ensureDeferred(open_code(clock, mailbox.wrong_code(code), mailbox.url, RELAY,
                                         create=mailbox.create, kind=WATCH_CODE)
                               ).addErrback(lambda f: refused.append(f.trap(WrongCode)))
        clock.advance(5)
    assert refused and codes.used == {}
    assert len(opened) == 1 + REPLACED_PER_DAY, (len(opened), lines[-1])
    times = [t for t, _ in opened[1:]]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert gaps[1] >= FIRST_WAIT and gaps[2] >= 2 * FIRST_WAIT, gaps
    assert "paused for up to a day" in lines[-1]
    for _ in range(int(FIRST_WAIT)):
        clock.advance(5)
    assert len(opened) == 2 + REPLACED_PER_DAY  # the day since the first is over
    codes.close()


def test_many_connections_on_one_watch_code_take_one_place_and_hellos_that_never_come_end(
        ) -> None:
    """A watcher with a code opens one subchannel that never says hello, then many more
    at once: the one that never speaks is closed at the handshake's deadline, every other
    is refused in the watchers' words while it is open, and the code, once nobody is on it
    for `WATCH_HOLD` s, closes (its place free: the next code opens)."""
    host = Host()
    host.advance(0.5)
    (code,) = host.opened()
    opened = ensureDeferred(open_code(host.clock, code, host.mailbox.url, RELAY,
                                      create=host.mailbox.create, kind=WATCH_CODE))
    host.advance(1)
    _wormhole, endpoint = opened.result
    node = host.net.nodes[0]
    mute = Protocol()
    connectProtocol(endpoint, mute)
    refused = []
    for _ in range(20):
        client = WatchClient(host.clock)
        client.ended.addErrback(lambda _f: None)
        connectProtocol(endpoint, client)
        refused.append(client)
    host.advance(0.5)
    assert all("serves one watcher" in str(c.failure) for c in refused)
    assert sum(isinstance(link, WatchLink) for link in node.connections) == 1
    assert len(host.opened()) == 2  # the next watcher's code
    host.advance(HELLO_TIMEOUT)
    assert not any(isinstance(link, WatchLink) for link in node.connections)
    assert mute.transport is not None and mute.transport.disconnected  # type: ignore[attr-defined]
    host.advance(WATCH_HOLD)
    assert host.codes.used == {}  # the code closed: its place is free
    host.codes.close()


@pytest.mark.parametrize("number", ["\N{SUPERSCRIPT TWO}", "\N{ARABIC-INDIC DIGIT THREE}"])
def test_a_code_whose_number_is_not_ascii_digits_is_refused_before_any_wormhole(
        number: str) -> None:
    """``str.isdigit`` takes a superscript or an Arabic-Indic digit: such a code went to
    the wormhole, which refused it as a mailbox out of reach (or waited at a nameplate no
    host has). Its form is refused first, with what a code is."""
    for code, watch in ((f"{number}-guitarist-revenge-bodyguard-tactics", True),
                        (f"{number}-guitarist-revenge-bodyguard", False)):
        problem = code_problem(code, watch=watch)
        assert problem is not None and "is a number and" in problem, problem
    clock = Clock()
    mailbox = FakeMailbox(clock)
    refused: list[Any] = []
    ensureDeferred(open_code(clock, f"{number}-guitarist-revenge-bodyguard-tactics",
                             mailbox.url, RELAY, create=mailbox.create, kind=WATCH_CODE)
                   ).addErrback(lambda f: refused.append(f.trap(WrongCode) and f.value))
    assert refused and "is not a watch code" in refused[0].why
    assert mailbox.created == 0


# --- C: the welcome's fifth field -------------------------------------------------------------

def _welcome(watchers: bool, said: list[Any] | None = None) -> dict[str, Any]:
    """A welcome of a table whose seats serve watchers (or not), its binding's fields as
    ``said`` when given (what a lying seat sends)."""
    rules = Rules(players=4)
    keys = [bytes([s + 1]) * 32 for s in range(4)]
    names = ["Ann", "Bo", "Cy", "Di"]
    binding = TableBinding("t", tuple(f"tcp:192.0.2.{s}:40123" for s in range(4)),
                           ("human",) * 4, bytes(NONCE_SIZE), watchers)
    return {"t": "welcome", "table": binding.table_id(rules, keys, names, None),
            "rules": rules.to_data(), "keys": keys, "names": names, "carry": None,
            "seating": binding.to_data() if said is None else said}


@pytest.mark.parametrize("watchers", [True, False])
def test_a_seat_that_lies_in_the_welcomes_no_watchers_field_is_refused(
        watchers: bool) -> None:
    """The fifth field (False: the seats serve no watcher, a passphrase table's host seat
    alone does) is part of the table id: a seat that drops it, adds it or says True is
    refused before the watch begins."""
    assert read_welcome(_welcome(watchers)).binding.watchers is watchers
    fields = _welcome(watchers)["seating"][:4]
    lies = [[*fields, False]] if watchers else [fields]
    for said in [*lies, [*fields, True], [*fields, False, False], [*fields, None]]:
        with pytest.raises(WatchError, match="table id"):
            read_welcome(_welcome(watchers, said))


def test_each_ballot_of_a_flood_is_settled_alone_not_with_every_ballot_held(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The seat watched through floods its watcher with its own ballots, all within the
    bounds: each one kept settled every item held again (a 12-seat table's flood of one
    hand window, 1,248 ballots, took 3.3 s of the watcher's time; the seats' referee is
    the same one). Now only the ballot's item is settled again: as many settlings as
    ballots, not their square."""
    calls = []
    real = machine.settle
    monkeypatch.setattr(machine, "settle", lambda *a: calls.append(1) or real(*a))
    keys = _keys()
    onlooker = _onlooker(keys)
    frames = [_vote(keys[0], 0, Item(0, 1, m)) for m in range(MAX_BALLOTS)]
    frames += [_pass(keys[0], 0, Item(0, s, m)) for s in (1, 2, 3) for m in range(40)]
    kept = sum(onlooker.take(frame, 0) for frame in frames)
    assert kept == MAX_BALLOTS + 3 * 40
    assert len(calls) <= kept, len(calls)


# --- D: the lobby's ready digests -------------------------------------------------------------

def test_a_flood_of_rosters_never_makes_a_stale_ready_count_nor_drops_the_standing_one(
        ) -> None:
    """A hostile guest joins and leaves seat 2 again and again (a roster each, more than
    the `MAX_SHOWN` the host keeps): guest 1's ``ready`` said before a swap stays refused
    however the flood ends, and one said to the settings that stand is taken (the last
    roster's digest is never evicted)."""
    state, guests = table(2, players=4)
    deliver(guests, state.receive(1, guests[1].ready_message(False), 0.5))
    stale = guests[1].ready_message(True)
    deliver(guests, state.swap(2, 3, 1.0))  # guest 2 to the empty seat 3: a change
    assert state.receive(1, stale, 1.5) == []
    for i in range(MAX_SHOWN + 5):
        conn = 100 + i
        state.connect(conn, f"198.18.0.9:{7000 + i}", "198.18.0.9", "192.0.2.1")
        hostile = GuestLobby(person(50 + i))
        state.receive(conn, hostile.join_message(), 2.0)
        if i < MAX_SHOWN + 4:
            state.receive(conn, GuestLobby.leave_message(), 2.0)
    assert state.receive(1, stale, 3.0) == [] and readiness(state)[1] is False
    deliver(guests, state.broadcast(3.0))
    state.receive(1, guests[1].ready_message(True), 3.0)
    assert readiness(state)[1] is True


ESCAPE = "\x1b]0;owned\x07\x1b[2J"


def test_words_of_a_hostile_seat_reach_a_watchers_terminal_only_printable() -> None:
    """Anybody at a watch code or a game port may answer a watcher with a refusal in its
    own words, or make up a whole table (its id binds what it says): a refusal's escapes
    are shown as "?", a table name or address with escapes is refused."""
    client = WatchClient(Clock())
    client.ended.addErrback(lambda _f: None)  # (read from ``failure``)
    client.makeConnection(StringTransport())
    data = encode({"t": "refused", "why": f"go away{ESCAPE}"})
    client.dataReceived(struct.pack("!I", len(data)) + data)
    assert isinstance(client.failure, WatchError)
    assert str(client.failure).isprintable() and "go away" in str(client.failure)
    fields = _welcome(True)["seating"]
    for said in ([ESCAPE, *fields[1:]], [fields[0], [ESCAPE, *fields[1][1:]], *fields[2:]]):
        with pytest.raises(WatchError, match="cannot be read"):
            read_welcome(_welcome(True, said))


@pytest.mark.parametrize("digest", [None, 16, True, b"x" * 15, b"x" * 17, [b"x" * 16],
                                    "x" * 16, {"d": b"x" * 16}])
@pytest.mark.parametrize("flag", [True, False])
def test_a_ready_digest_of_the_wrong_size_or_type_is_refused_changing_nothing(
        digest: Any, flag: bool) -> None:
    state, _guests = table(2, players=4)
    before = readiness(state)
    with pytest.raises(BadLobbyMessage, match="for"):
        state.receive(1, {"t": "ready", "ready": flag, "for": digest}, 1.0)
    assert readiness(state) == before


def test_subchannels_of_names_nobody_listens_on_are_refused_not_held() -> None:
    """A watcher with a code opens subchannels of made-up names (and would write on
    them): the library held each, and every byte on it, for ever; the host's code refuses
    them, and a watcher's wormhole (which listens on nothing) refuses the host's."""
    host = Host()
    host.advance(0.5)
    (code,) = host.opened()
    opened = ensureDeferred(open_code(host.clock, code, host.mailbox.url, RELAY,
                                      create=host.mailbox.create, kind=WATCH_CODE))
    host.advance(1)
    wormhole, _endpoint = opened.result
    refused: list[Any] = []
    for i in range(50):
        wormhole.dilation.connector_for(f"x{i}").connect(Factory.forProtocol(Protocol)
                                                         ).addErrback(refused.append)
    (used,) = host.codes.used.values()
    assert used.wormhole.dilation._manager._subprotocol_factories.held == []
    assert len(refused) == 50
    used.wormhole.dilation.connector_for("x").connect(Factory.forProtocol(Protocol)
                                                      ).addErrback(refused.append)
    assert wormhole.dilation._manager._subprotocol_factories.held == [] and len(refused) == 51
    host.codes.close()


def test_the_librarys_own_dilation_is_told_the_names_it_takes() -> None:
    """magic-wormhole 0.24 itself (no network: a memory reactor that never runs): told
    the expected names, it still held an open of another name; `dilate_only` makes it
    refuse one."""
    from wormhole import create
    from wormhole._dilation.subchannel import SubchannelAddress, UnexpectedSubprotocol

    reactor = MemoryReactorClock()
    told = create("tractor/test", "ws://127.0.0.1:9/v1", reactor, dilation=True).dilate(
        expected_subprotocols=["tractor-watch"])
    held = told._manager._subprotocol_factories
    held._got_open(object(), SubchannelAddress("made-up"))  # (held, as 0.24 does)
    assert list(held._pending_opens) == ["made-up"]
    dilated = dilate_only(create("tractor/test", "ws://127.0.0.1:9/v1", reactor,
                                 dilation=True), ["tractor-watch"])
    with pytest.raises(UnexpectedSubprotocol):
        dilated._manager._subprotocol_factories._got_open(object(),
                                                          SubchannelAddress("made-up"))
