"""A game that goes on after a seat is gone: a new table, an AI in the empty seat, a new hand.

When the table halts on a verdict with a guilty seat (`guilty`: it stayed unreachable past
the grace period, stayed connected but silent past a deadline, withheld keys, or signed
evidence against itself: two versions of a message, an invalid move, a false verdict),
every peer ends the verdict's hand, scored as lost by that seat's team once a team
declares (`GameSession.forfeit`: the same evidence, so the same score on every peer).
Then the host reopens its lobby on the same port with the game's carry (levels, declaring
team, starter, first drawer: the same on every peer, and part of the new table id), asks
for AI players for the gone seat and
the seats AI held, and the people still at the table rejoin it automatically in their own
seats (a guest accepts only a start that carries exactly the game it was playing).
Everyone takes the new seat with a fresh identity and deck, and the screen goes on with the
new table. The host's seat opens for watchers at the new table what it opened at the first
(`WatchHosting.moved`: the same refusal or passphrase, the new game port announced and told
in the log) and its journal keeps that for `tractor resume`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.task import deferLater
from twisted.python.failure import Failure

from tractor.ai.hosting.runner import be_patient
from tractor.cli.options import journal_path
from tractor.cli.screen.words import count
from tractor.cli.seat.human import HumanPlayer
from tractor.cli.seat.netclient import NetClient
from tractor.cli.watch_hosting import WatchHosting
from tractor.net.deck.errors import DeckError, TranscriptSplit, ViewMismatch
from tractor.net.journal.store import WENT_ON_KEY, Journal
from tractor.net.lobby.addresses import parse_endpoint
from tractor.net.lobby.errors import LobbyError
from tractor.net.lobby.guest_protocol import join_table
from tractor.net.lobby.host_protocol import host_table
from tractor.net.lobby.seating import Participant, Seating
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import PeerNode
from tractor.net.referee.refereeing import SeatGone
from tractor.net.referee.stall import Stalled
from tractor.net.table.errors import TableError
from tractor.net.table.seat import game_id, listen_node, take_seat

REJOIN_SECONDS = 120.0  #: how long a guest keeps knocking at the host's reopened lobby


def guilty(exc: BaseException) -> int | None:
    """The seat a verdict blames on signed evidence (or on every other seat's votes),
    None for a halt that blames nobody: this peer's own failure, or signs of a split
    transcript that do not show who equivocated.

    >>> guilty(Stalled(2, "play", 310.0)), guilty(RuntimeError("bug"))
    (2, None)
    """
    if isinstance(exc, ViewMismatch | TranscriptSplit):
        return None
    if isinstance(exc, SeatGone | Stalled | DeckError | TableError):
        seat = getattr(exc, "seat", None)
        return seat if type(seat) is int and seat >= 0 else None
    return None


class GoesOn:
    """Watches a person's table; after `SeatGone` it moves the game to a new table.

    ``host`` is None for a guest (who rejoins ``lobby_address``); for the host it is the
    lobby set-up: ``fill_local`` and ``passphrase``, and ``interface`` to listen on.
    ``marks``: what the seat's journal meta says of the game wherever it is played (a
    practice game's marks and level), kept at each new table too. ``hosting``: the host
    seat's watch hosting (a LAN table's), opened again at each new table.
    """

    def __init__(self, reactor: Any, args: argparse.Namespace, client: NetClient,
                 seating: Seating, lobby_address: str, interface: str, is_host: bool,
                 passphrase: str | None = None,
                 fill_local: Callable[[int, str, list[bytes]], None] | None = None,
                 before_fill: Callable[[], None] | None = None,
                 marks: dict[str, Any] | None = None,
                 hosting: WatchHosting | None = None) -> None:
        self.reactor = reactor
        self.args = args
        self.client = client
        self.seating = seating
        self.lobby_address = lobby_address
        self.interface = interface
        self.is_host = is_host
        self.passphrase = passphrase
        self.fill_local = fill_local
        self.before_fill = before_fill
        self.marks = dict(marks or {})
        self.hosting = hosting
        self.nodes: list[PeerNode] = []
        self.watch(client.node)

    def stop(self) -> None:
        """The person left: close every table this game was played at."""
        if self.hosting is not None:
            self.hosting.stop()
        for node in self.nodes:
            node.stop()

    def watch(self, node: PeerNode) -> None:
        self.nodes.append(node)
        node.done.addErrback(self._halted, node)

    def _halted(self, failure: Failure, node: PeerNode) -> None:
        """(The failure is consumed: the screen shows every halt as a banner.)"""
        gone = guilty(failure.value)
        if gone is None or node is not self.client.node:
            return  # any other halt stays on the screen with its verdict
        if gone == self.seating.seat:
            return  # the others go on without this peer
        assert node.session is not None
        session = node.session
        res = session.forfeit(gone, node.verdict_hand, getattr(failure.value, "moves", None))
        if res is not None:
            names = self.client.names
            if res.gaining:  # find-a-friend: every seat but the offender goes up
                who = "every other seat"
            else:
                who = "the team of " + " and ".join(
                    names[s] for s in range(len(names)) if s % 2 == res.gaining_team)
            self.client.note(f"seat {gone} ({names[gone]}) forfeits the hand: "
                             f"{who} gains {count(res.levels_gained, 'level')}")
            if session.over:
                self.client.note("game over: that was the last hand")
                return
        d = ensureDeferred(self._go_on(node, gone))
        d.addErrback(lambda f: self.client.note(
            f"the game could not go on at a new table: {f.getErrorMessage()}"))

    async def _go_on(self, old: PeerNode, gone: int) -> None:
        assert old.session is not None
        carry = old.session.carry()
        seat = self.seating.seat
        key = Ed25519PrivateKey.generate()
        node, port = await listen_node(self.reactor, self.interface, grace=old.grace)
        me = Participant(self.args.player, raw_public(key), port, wanted_seat=seat)
        if self.is_host:
            self.client.note(f"seat {gone} is gone: the table goes on with an AI in that "
                             "seat and a new hand")
            seating = await self._host(me, carry, gone)
        else:
            self.client.note(f"seat {gone} is gone: waiting for the host to go on with an "
                             "AI in that seat")
            seating = await self._rejoin(me, carry)
        hosting = self.hosting
        journal = Journal(journal_path())
        take_seat(node, seating, key, HumanPlayer(getattr(self.args, "deal_pace", 0.0)),
                  journal,
                  # A practice game stays one at its new table (`tractor resume` is
                  # patient with it, `tractor stats` knows its AI level); a host's seat
                  # opens for watchers there after `tractor resume` too.
                  meta={**self.marks, "carried": True,
                        "local_ai": self.fill_local is not None,
                        **({} if hosting is None else hosting.kept())})
        # `tractor history` says where the halted game went on.
        journal.add_meta(game_id(self.seating), {WENT_ON_KEY: game_id(seating)})
        if self.marks.get("practice"):  # nobody to keep waiting, as at the first table
            be_patient(node)
        old.stop()
        self.seating = seating
        self.client.rebind(node, list(seating.names))
        if hosting is not None:
            self.hosting = hosting.moved(self.reactor, node, seating, self.interface, port,
                                         self.client.note)
        self.watch(node)

    async def _host(self, me: Participant, carry: tuple[Any, ...], gone: int) -> Seating:
        ip, port = parse_endpoint(self.lobby_address)
        listen = f"tcp:{port}:interface={self.interface}"
        lobby = await host_table(self.reactor, self.seating.name, self.seating.rules, me,
                                 self.passphrase, listen=listen, fill_local=self.fill_local,
                                 announce=False, carry=carry)
        lobby.state.watchers = self.seating.watchers  # (the host's choice holds there too)
        try:
            lobby.ready(True)
            ai_seats = sorted({gone} | {s for s, k in enumerate(self.seating.kinds)
                                        if k == "ai" and s != self.seating.seat})
            if self.before_fill is not None:
                self.before_fill()
            await lobby.request_fill(seats=ai_seats)
            return await within(self.reactor, lobby.started, REJOIN_SECONDS,
                                 "the others did not come back to the table in time")
        finally:
            lobby.close()

    async def _rejoin(self, me: Participant, carry: tuple[Any, ...]) -> Seating:
        waited = 0.0
        while True:
            try:
                guest = await join_table(self.reactor, self.lobby_address, me,
                                         self.passphrase, expect_carry=carry)
                break
            except LobbyError:
                if waited >= REJOIN_SECONDS:
                    raise
            await deferLater(self.reactor, 2.0, lambda: None)
            waited += 2.0
        guest.ready(True)
        return await within(self.reactor, guest.started, REJOIN_SECONDS,
                             "the table did not start again in time")


async def within(reactor: Any, d: Deferred[Any], seconds: float, why: str) -> Any:
    """Await ``d``, or fail it with `TimeoutError` (``why``) after ``seconds``."""
    def give_up() -> None:
        if not d.called:
            d.errback(TimeoutError(why))

    timer = reactor.callLater(seconds, give_up)
    try:
        return await d
    finally:
        if timer.active():
            timer.cancel()
