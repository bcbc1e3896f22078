"""The hostile peer's attack on the table's guess line (issue 28): never-used addresses from
one network, each asking once.

The line ranked places by the address first and used the /24 or /64 only to break exact
ties (which never happen: each rank carries the moment of asking). So addresses that cost
an attacker nothing (one IPv6 /64 holds 2**64; fresh /64s inside the /48 a free tunnel
gives) each looked like a person who asked once, and the line was first come, first
served among them: 8 places kept waiting (about 270 fresh addresses an hour, the same
/64) and a person who asked later waited behind all of them, past `HOLD` (refused), and
then ranked behind the flood for half an hour for having asked before. Measured before
the fix: the person never in over 2 hours of retrying every 2 minutes; a full line
refused them at once. Now the networks rank first: the person is in within one turn."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_guess_line import Guesser
from twisted.internet.address import IPv6Address
from twisted.internet.task import Clock
from twisted.test.iosim import FakeTransport, IOPump, connect

from tractor import Rules
from tractor.net.lobby.guess_line import HOLD, AttemptLimiter, Place, prefix_of
from tractor.net.lobby.guest_protocol import LobbyGuest
from tractor.net.lobby.host_protocol import LobbyHost
from tractor.net.lobby.pake import GuestHandshake
from tractor.net.lobby.seating import Participant

Addresses = Callable[[int], str]
PASS = "plum tree"

ONE_64: Addresses = lambda n: f"2001:db8:1:2::{n:x}"  # noqa: E731
FRESH_64S_OF_ONE_48: Addresses = lambda n: f"2001:db8:1:{n:x}::1"  # noqa: E731
ONE_24: Addresses = lambda n: f"198.18.0.{n % 250 + 1}"  # noqa: E731
#: IPv4 clients of a dual-stack listener: as IPv6 they all shared ::/64.
ONE_24_DUAL_STACK: Addresses = lambda n: f"::ffff:198.18.0.{n % 250 + 1}"  # noqa: E731
FLOODS = {"one /64": (ONE_64, "2001:db8:9:9::1"),
          "fresh /64s of one /48": (FRESH_64S_OF_ONE_48, "2001:db8:9:9::1"),
          "one IPv4 /24": (ONE_24, "203.0.113.7"),
          "one IPv4 /24, dual stack": (ONE_24_DUAL_STACK, "::ffff:203.0.113.7")}


class FreshFlood:
    """Keeps ``waiting`` places in the line, each from a never-used address of the
    attacker's network; every turn it gets is a wrong guess; a place leaves after
    `HOLD` seconds as the host's timeout makes it."""

    def __init__(self, limiter: AttemptLimiter, addresses: Addresses, waiting: int) -> None:
        self.limiter = limiter
        self.addresses = addresses
        self.waiting = waiting
        self.places: dict[Place, float] = {}
        self.used = 0
        self.guesses = 0

    def guess(self, ip: str, now: float) -> None:
        self.limiter.fail(self.limiter.start(ip, now))
        self.guesses += 1

    def step(self, now: float) -> None:
        for place, since in list(self.places.items()):
            if now - since >= HOLD:
                self.limiter.leave(place)
                del self.places[place]
        while len(self.places) < self.waiting:
            self.used += 1
            ip = self.addresses(self.used)
            place = self.limiter.enter(ip, now)
            if isinstance(place, str):
                break
            if self.limiter.take(place, now):
                self.guess(ip, now)
            else:
                self.places[place] = now


def person_waits(addresses: Addresses, person: str, waiting: int, arrival: int) -> float:
    """Seconds from the person's one hello to its turn (HOLD + 1: never)."""
    limiter = AttemptLimiter()
    flood = FreshFlood(limiter, addresses, waiting)
    mine: Place | None = None
    for t in range(arrival + int(HOLD)):
        now = float(t)
        flood.step(now)
        if t == arrival:
            entered = limiter.enter(person, now)
            assert isinstance(entered, Place), entered  # never refused outright
            mine = entered
        while (place := limiter.due(now)) is not None:
            if place is mine:
                return now - arrival
            flood.places.pop(place, None)
            flood.guess(place.source, now)
    assert flood.guesses <= 20 + (arrival + HOLD) / 15.0  # the table's budget holds
    return HOLD + 1


@pytest.mark.parametrize("flood", sorted(FLOODS))
@pytest.mark.parametrize("waiting", [8, 64])
def test_fresh_addresses_of_one_network_do_not_keep_a_person_out(flood: str, waiting: int):
    addresses, person = FLOODS[flood]
    for arrival in (300, 611, 905):
        # Before: 106 s or more behind 7 waiting, timed out behind 8, refused by 64.
        assert person_waits(addresses, person, waiting, arrival) <= 15.0, (flood, arrival)


def test_a_dual_stack_ipv4_client_is_counted_by_its_24():
    assert prefix_of("::ffff:198.18.0.7") == "198.18.0.0/24"  # before: ::/64 for them all
    assert prefix_of("2001:db8:1:2::5", wide=True) == "2001:db8:1::/48"


def _dial6(host: LobbyHost, client: object, ip: str, port: int) -> IOPump:
    server = host.protocol()
    return connect(server, FakeTransport(server, False, peerAddress=IPv6Address(
        "TCP", ip, port)), client, FakeTransport(client, True))


def test_a_person_joins_within_30_s_while_one_64_sends_fresh_addresses():
    """The whole lobby on the clock: each second a never-used address of one /64 says
    hello with a wrong passphrase and keeps the place it is given."""
    clock = Clock()
    host = LobbyHost(clock, "t", Rules(), None, PASS, clock=clock)
    pumps: list[IOPump] = []
    arrival = 150
    person = LobbyGuest(clock, Participant("pat", bytes(range(32)), 4000), PASS, clock=clock)
    joined: list[float] = []
    for second in range(arrival + 60):
        clock.advance(1.0)
        ip = ONE_64(second + 1)
        pumps.append(_dial6(host, Guesser(GuestHandshake(f"guess {ip}").hello()), ip, 5000))
        if second == arrival:
            person.joined.addBoth(lambda r: joined.append(clock.seconds()) or r)
            pumps.append(_dial6(host, person.protocol(), "2001:db8:9:9::1", 4000))
        for pump in pumps:
            pump.flush()
        pumps = [p for p in pumps if not p.clientIO.disconnected]
        if joined:
            break
    assert joined and person.error is None, person.error
    assert joined[0] - (arrival + 1) <= 30.0  # before: refused after 120 s in the line
    assert host.limiter.wrong <= 20 + clock.seconds() / 15.0
    host.close()
