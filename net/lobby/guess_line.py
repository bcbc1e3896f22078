"""Online guesses of a passphrase: few per hour whatever strangers do, and a person who
knows the passphrase gets a turn before anyone who keeps asking.

Every SPAKE2 run is one online guess (the host's first answer tells the guesser whether it
was right), so a table takes few of them: ``budget`` at once, then one each ``interval``
seconds (a token bucket; a run that proves the passphrase gives its token back), and
``limit`` a ``window`` from one address. With the defaults an attacker gets at most
20 + 3600 / 15 = 260 guesses in its first hour and 240 in every later one (before: 321,
then 312).

When the table has no turn free, a hello waits in the table's line on its open connection
(`Place`) instead of being refused: asking again does not help, and the turn goes to the
place whose networks, then whose address, had least lately (each turn counts 1, each time
anyone there asked 1/4, all halving every half hour), then the oldest. The networks are
an IPv4 address's /24, an IPv6 address's /48 and then its /64: addresses within them cost
an attacker nothing (one /64 holds 2**64), so a flood of never-used addresses from one
network ranks behind a person from any other (before, the network only broke exact ties,
and fresh addresses from one /64, 8 places waiting at a time, about 270 an hour, kept a
person out for hours). An address that floods the table with hellos so ranks behind a
person who asks once (or who mistyped the passphrase once or twice); one that has had
turns ranks behind one that has not. The line holds `LINE_SIZE` places (a better-ranked
newcomer pushes out the worst) and a place waits at most `HOLD` seconds.
What this cannot tell apart: an attacker holding places from many never-used networks
(a fresh /24 or /48 for each), or people on the attacker's own network: a fresh network
looks like a person, and goes first for one turn, once; about 8 of them waiting at a
time (270 an hour) keep a person out.
"""

from __future__ import annotations

import functools
import ipaddress
import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tractor.net.mesh.gate import Recent

if TYPE_CHECKING:  # Twisted only for the types: the rules here need no reactor
    from twisted.internet.interfaces import IDelayedCall, IReactorTime

TOKEN_HANDSHAKES = 20  #: seat-token handshakes a minute from one address
LINE_SIZE = 64  #: places waiting for a turn at one table
PLACES_PER_ADDRESS = 3  #: of them from one address (a few people behind one router)
HOLD = 120.0  #: seconds a place waits for its turn before it is refused
HALF_LIFE = 1800.0  #: how fast an address's past turns and asks are forgiven
MAX_STANDINGS = 4096  #: addresses (and prefixes) remembered; the least recent go first

#: What asking once counts for against a turn: a poller asking each second outranks in
#: seconds a person who asked thrice and mistyped twice.
ASK_WEIGHT = 0.25

Rank = tuple[float, ...]


@dataclass(eq=False)
class Attempt:
    """One online guess, from its start (see `AttemptLimiter`)."""

    source: str
    start: float
    ended: bool = False


def _nothing(*_: Any) -> None:
    return None


@dataclass(eq=False)
class Place:
    """One hello waiting for a turn. The host's connection sets ``go`` (called when the
    turn comes: start the key exchange now) and ``dismiss`` (called with the reason when
    a better-ranked newcomer takes the place)."""

    source: str
    since: float
    go: Callable[[], None] = _nothing
    dismiss: Callable[[str], None] = _nothing
    #: The standings keys of its networks, widest first (see `net_keys`).
    networks: tuple[str, ...] = ()


def net_keys(source: str) -> tuple[str, str]:
    """The standings keys of the networks ``source`` is in, widest first (apart from its
    own): an IPv4 address's /24 (twice, so every rank has the same shape), an IPv6
    address's /48 then /64."""
    return "net " + prefix_of(source, wide=True), "net " + prefix_of(source)


@functools.lru_cache(maxsize=MAX_STANDINGS)
def prefix_of(source: str, wide: bool = False) -> str:
    """The network an address is one of many in: its /24 (IPv4) or /64 (IPv6), or with
    ``wide`` the /48 an IPv6 /64 is one of (a site's: one tunnel or customer holds 65,536
    /64s); any other source (a seat code's wormhole) stands for itself. An IPv4 client
    of a dual-stack listener (``::ffff:a.b.c.d``) is counted by its IPv4 /24: as an IPv6
    address every IPv4 client would share ``::/64``."""
    try:
        ip = ipaddress.ip_address(source)
    except ValueError:
        return source
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    bits = 24 if ip.version == 4 else 48 if wide else 64
    return str(ipaddress.ip_network(f"{ip}/{bits}", strict=False))


class Standings:
    """Per key (an address or a prefix): turns taken and times asked, each halving every
    `HALF_LIFE` seconds; at most `MAX_STANDINGS` keys (the least recently touched are
    forgotten, which only ever helps the forgotten)."""

    def __init__(self, half_life: float = HALF_LIFE, size: int = MAX_STANDINGS) -> None:
        self.half_life = half_life
        self.size = size
        self._marks: OrderedDict[str, tuple[float, float, float]] = OrderedDict()
        #: `order` of the keys, until their marks change: under a flood every ask changes
        #: one /24's marks, and the line ranks all its places again (3 keys each).
        self._orders: dict[str, float] = {}

    def get(self, key: str, now: float) -> tuple[float, float]:
        """(turns, asks) of ``key`` now."""
        turns, asks, at = self._marks.get(key, (0.0, 0.0, now))
        fade = 0.5 ** (max(0.0, now - at) / self.half_life)
        return turns * fade, asks * fade

    def order(self, key: str) -> float:
        """How much ``key`` had lately (a turn counts 1, asking `ASK_WEIGHT`), as a number
        that compares between keys as the faded values do at any moment (all fade alike):
        the logarithm at a common origin of time. So a rank computed once stays right
        until its key changes."""
        known = self._orders.get(key)
        if known is not None:
            return known
        marks = self._marks.get(key)
        if marks is None:
            return -math.inf
        turns, asks, at = marks
        had = turns + ASK_WEIGHT * asks
        order = math.log(had) + at * math.log(2.0) / self.half_life if had > 0.0 else -math.inf
        self._orders[key] = order
        return order

    def add(self, key: str, now: float, turns: float = 0.0, asks: float = 0.0) -> None:
        old_turns, old_asks = self.get(key, now)
        self._marks[key] = (old_turns + turns, old_asks + asks, now)
        self._orders.pop(key, None)
        self._marks.move_to_end(key)
        while len(self._marks) > self.size:
            forgotten, _ = self._marks.popitem(last=False)
            self._orders.pop(forgotten, None)


class GuessLine:
    """The places waiting for a turn, best first by `rank`."""

    def __init__(self, size: int = LINE_SIZE, per_address: int = PLACES_PER_ADDRESS) -> None:
        self.size = size
        self.per_address = per_address
        self.places: list[Place] = []
        self.standings = Standings()

    def __len__(self) -> int:
        return len(self.places)

    def rank(self, place: Place) -> Rank:
        """Lower goes first: what its networks had lately (turns, and asking), widest
        first, then what the address had, then the oldest place."""
        order = self.standings.order  # each key's order is kept until its marks change
        return (*map(order, place.networks), order(place.source), place.since)

    def _mark(self, source: str, now: float, turns: float = 0.0, asks: float = 0.0) -> None:
        for key in dict.fromkeys((source, *net_keys(source))):  # an IPv4 /24 once
            self.standings.add(key, now, turns=turns, asks=asks)

    def asked(self, source: str, now: float) -> None:
        self._mark(source, now, asks=1.0)

    def served(self, source: str, now: float) -> None:
        self._mark(source, now, turns=1.0)

    def add(self, source: str, now: float) -> Place | str:
        """A new place for ``source`` (pushing out the worst one if the line is full and
        the newcomer ranks better), or why there is none."""
        if sum(p.source == source for p in self.places) >= self.per_address:
            return "this address already waits for turns at this table; wait for them"
        place = Place(source, now, networks=net_keys(source))
        if len(self.places) >= self.size:
            worst = max(self.places, key=self.rank)
            if self.rank(worst) <= self.rank(place):
                return "too many strangers wait to guess at this table: try again later"
            self.remove(worst)
            worst.dismiss("pushed out of the line by someone who has asked less often; "
                          "try again later")
        self.places.append(place)
        return place

    def best(self, eligible: Callable[[str], bool]) -> Place | None:
        ready = [p for p in self.places if eligible(p.source)]
        return min(ready, key=self.rank) if ready else None

    def remove(self, place: Place) -> None:
        if place in self.places:
            self.places.remove(place)


class AttemptLimiter:
    """Online guesses of a passphrase, bounded per address and per table (see the
    module's docstring). ``wrong`` counts the failed attempts, which the host is shown.

        >>> limiter = AttemptLimiter(limit=5, budget=2, interval=4.0)
        >>> for ip in ("10.0.0.1", "10.0.0.2"):
        ...     limiter.fail(limiter.start(ip, 0.0))
        >>> limiter.allowed("10.0.0.3", 1.0), limiter.allowed("10.0.0.3", 4.0)
        (False, True)
        >>> limiter.wrong, limiter.last_wrong
        (2, '10.0.0.2')
    """

    def __init__(self, limit: int = 5, window: float = 60.0, budget: int = 20,
                 interval: float = 15.0, what: str = "wrong guesses at this table",
                 hold: float = HOLD, line: GuessLine | None = None) -> None:
        self.what = what  #: what a refusal says there were too many of
        self.limit = limit
        self.window = window
        self.budget = budget
        self.interval = interval
        self.hold = hold  #: seconds a place in the line waits at most
        self.line = line or GuessLine()
        self._tokens = float(budget)
        self._filled_at: float | None = None
        self._attempts: list[Attempt] = []  #: in the last ``window``, not refunded
        self._handshakes = Recent(60.0)  #: seat-token handshakes per address
        self.wrong = 0
        self.last_wrong = ""  #: the source of the last failed attempt

    # --- the table's turns (a token bucket) ---------------------------------------------

    def _refill(self, now: float) -> float:
        if self._filled_at is not None and now > self._filled_at:
            self._tokens = min(float(self.budget),
                               self._tokens + (now - self._filled_at) / self.interval)
        if self._filled_at is None or now > self._filled_at:
            self._filled_at = now
        return self._tokens

    def wait(self, now: float) -> float:
        """Seconds until the table takes another guess (0: now)."""
        return max(0.0, (1.0 - self._refill(now)) * self.interval)

    # --- one address ----------------------------------------------------------------------

    def _mine(self, ip: str, now: float) -> list[Attempt]:
        self._attempts = [a for a in self._attempts if a.start > now - self.window]
        return [a for a in self._attempts if a.source == ip]

    def _address_ok(self, ip: str, now: float) -> bool:
        return len(self._mine(ip, now)) < self.limit

    def _address_free_in(self, ip: str, now: float) -> float:
        mine = self._mine(ip, now)
        if len(mine) < self.limit:
            return 0.0
        return mine[len(mine) - self.limit].start + self.window - now

    def token_ok(self, ip: str, now: float) -> bool:
        """Seat-token handshakes are not guesses (32 random bytes), but each costs a key
        exchange: `TOKEN_HANDSHAKES` a minute per address (a machine starts 11 AI players
        at most)."""
        return self._handshakes.hit(ip, now) <= TOKEN_HANDSHAKES

    # --- asking without a line (the AI server) ---------------------------------------------

    def allowed(self, ip: str, now: float) -> bool:
        return not self.why_not(ip, now)

    def why_not(self, ip: str, now: float) -> str:
        """Why ``ip`` may not try now, in the words a refusal gives ("" if it may): the
        address's own limit, or no turn free (or the line waits for it)."""
        if not self._address_ok(ip, now):
            return "too many attempts from this address; wait a minute"
        if self._refill(now) >= 1.0 and not self.line:
            return ""
        wait = max(1, math.ceil(self.wait(now)))
        return f"too many {self.what}: try again in {wait} s"

    # --- waiting in the line (the table) ---------------------------------------------------

    def enter(self, ip: str, now: float) -> Place | str:
        """A hello from ``ip`` asks for a turn: its place in the line, or why it has none
        (its address's own limit, or the line full of better-ranked places)."""
        self.line.asked(ip, now)
        if not self._address_ok(ip, now):
            return "too many attempts from this address; wait a minute"
        return self.line.add(ip, now)

    def take(self, place: Place, now: float) -> bool:
        """Whether it is ``place``'s turn now (it then leaves the line): a turn is free and
        no better-ranked place is waiting."""
        if self._refill(now) >= 1.0 and self.line.best(
                lambda ip: self._address_ok(ip, now)) is place:
            self.line.remove(place)
            return True
        return False

    def due(self, now: float) -> Place | None:
        """The next place whose turn it is now (it leaves the line), if any."""
        if self._refill(now) < 1.0:
            return None
        place = self.line.best(lambda ip: self._address_ok(ip, now))
        if place is not None:
            self.line.remove(place)
        return place

    def next_due(self, now: float) -> float | None:
        """Seconds until a waiting place may have its turn (None: the line is empty)."""
        if not self.line:
            return None
        soonest = min(self._address_free_in(p.source, now) for p in self.line.places)
        return max(self.wait(now), soonest)

    def leave(self, place: Place) -> None:
        self.line.remove(place)

    # --- the attempts ----------------------------------------------------------------------

    def start(self, ip: str, now: float) -> Attempt:
        """Count one attempt (it takes a turn); returns it for `succeed` or `fail`."""
        self._refill(now)
        self._tokens -= 1.0
        self.line.served(ip, now)
        attempt = Attempt(ip, now)
        self._attempts.append(attempt)
        return attempt

    def succeed(self, attempt: Attempt) -> None:
        """The attempt proved the secret: its turn is given back."""
        if attempt.ended:
            return
        attempt.ended = True
        self._attempts = [a for a in self._attempts if a is not attempt]
        self._tokens = min(float(self.budget), self._tokens + 1.0)

    def fail(self, attempt: Attempt) -> None:
        """The attempt ended without proving the secret (refused, or abandoned after the
        host's answer): one more wrong guess for the host to see."""
        if attempt.ended:
            return
        attempt.ended = True
        self.wrong += 1
        self.last_wrong = attempt.source


class TurnKeeper:
    """Gives the line its turns on ``clock``: calls each place's ``go`` as its turn comes
    (`poke` after anything that may change who is next)."""

    def __init__(self, limiter: AttemptLimiter, clock: IReactorTime) -> None:
        self.limiter = limiter
        self.clock = clock
        self._call: IDelayedCall | None = None

    def poke(self) -> None:
        now = self.clock.seconds()
        while (place := self.limiter.due(now)) is not None:
            place.go()
        self.stop()
        delay = self.limiter.next_due(now)
        if delay is not None:
            self._call = self.clock.callLater(max(delay, 0.001), self.poke)

    def stop(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
