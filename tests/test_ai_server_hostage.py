"""An AI server is not held hostage (issue 28): eight addresses each start a real table with
three of its players and a stalling person, which took all 24 players until the stall
deadline, over and over, while a genuine host got none. Now a host with no players gets
the places of tables that have not moved on for two minutes; tables that play on keep
theirs; one address (however many lobbies it opens) holds at most 11; a host already
served never takes the last 5 places. In memory with the clock, and over loopback TCP
from distinct source addresses (127.0.0.N)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from twisted.test.iosim import FakeTransport, connect

from tractor.ai.hosting.children import PROGRESS_LINE, PROGRESS_SECONDS, AiChild
from tractor.ai.hosting.runner import AiPlayers, watch_progress
from tractor.net.lobby.ai_pool import CAPACITY, RECLAIM_AFTER, RELEASE_AFTER, AiPool
from tractor.net.lobby.ai_server import AiServer, FillClientLink
from tractor.net.lobby.errors import AiServerBusy, LobbyError, NoAiServer
from tractor.net.mesh.gate import source_of

ATTACKERS = [f"198.18.0.{11 + k}" for k in range(8)]
GENUINE = "198.18.0.50"


class FakeChild:
    """One spawned `tractor ai` process: the test says when its table starts and moves."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.alive = True
        self.ended: Deferred[Any] = Deferred()
        self.on_seated: Any = None
        self.on_progress: Any = None

    def seat(self) -> None:
        self.on_seated(self)

    def move(self) -> None:
        self.on_progress(self)

    def terminate(self) -> None:
        if self.alive:
            self.alive = False
            self.ended.callback(self)

    kill = terminate


class Served:
    """An AI server wired as `run_ai_server` wires it, its players in memory."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.started: list[tuple[str, FakeChild]] = []
        self.players = AiPlayers(self.clock, self.spawn_one)
        self.server = AiServer(self.clock, self.players.spawn, clock=self.clock,
                               admit=self.players.admit)

    def spawn_one(self, lobby: str, token: bytes, table: str, name: str) -> FakeChild:
        child = FakeChild(name)
        self.started.append((lobby, child))
        return child

    def ask(self, ip: str, count: int = 3, port: int = 4000) -> int | LobbyError:
        """A host at ``ip`` asks for ``count`` players over in-memory transports: the
        number started, or the error the host is given."""
        tokens = [bytes([len(self.started) % 256, k]) * 16 for k in range(count)]
        client = FillClientLink(self.clock, count, port, tokens, "friday")
        proto = self.server.protocol()
        here, there = IPv4Address("TCP", ip, 6000), IPv4Address("TCP", "198.18.0.2", 7000)
        pump = connect(proto, FakeTransport(proto, True, there, here), client,
                       FakeTransport(client, False, here, there), greet=False,
                       clock=self.clock)
        for _ in range(10):
            pump.pump()
        got: list[Any] = []
        client.result.addBoth(got.append)
        return got[0] if isinstance(got[0], int) else got[0].value

    def of(self, ip: str) -> list[FakeChild]:
        return [c for lobby, c in self.started if lobby.startswith(f"tcp:{ip}:")]

    def live(self) -> int:
        return sum(c.alive for _, c in self.started)

    def wait(self, seconds: float, playing: tuple[FakeChild, ...] | list[FakeChild] = ()) -> None:
        """Let ``seconds`` pass; the tables of ``playing`` move on every 10 s."""
        for _ in range(int(seconds // 10)):
            self.clock.advance(10)
            for child in playing:
                if child.alive:
                    child.move()


def test_stalling_tables_from_eight_addresses_do_not_keep_a_new_host_out():
    ai = Served()
    for ip in ATTACKERS:  # real tables: their lobbies start at once, then the person stalls
        assert ai.ask(ip) == 3
        for child in ai.of(ip):
            child.seat()
    assert ai.live() == CAPACITY
    refused = ai.ask(GENUINE)  # the stall has only begun: the host is told why, typed
    assert isinstance(refused, AiServerBusy) and isinstance(refused, NoAiServer)
    assert refused.why == ("refused: this AI server is busy: 24 of 24 players are at other "
                           "tables; try again in 2 minutes")
    ai.wait(RECLAIM_AFTER)
    assert ai.ask(GENUINE) == 3  # before: refused until the stall deadline, over and over
    mine = ai.of(GENUINE)
    assert all(c.alive for c in mine) and ai.live() == CAPACITY
    assert [c.alive for c in ai.of(ATTACKERS[0])] == [False] * 3  # one stalled table, whole
    # The stopped address asks again at once: it may take a stalled table's places (its
    # own side's), never the new host's.
    assert ai.ask(ATTACKERS[0]) == 3
    assert all(c.alive for c in mine)
    assert sum(not c.alive for ip in ATTACKERS[1:] for c in ai.of(ip)) == 3
    # The host's table starts and plays on; the stalled tables lose their players at the
    # stall deadline whoever waits, the host's keep theirs.
    for child in mine:
        child.seat()
    ai.wait(RELEASE_AFTER + 20, playing=mine)
    assert all(c.alive for c in mine)
    assert ai.live() == 3 and len(ai.players.pool) == 3


def test_a_new_host_gets_nothing_from_tables_that_play_on():
    ai = Served()
    for ip in ATTACKERS:
        assert ai.ask(ip) == 3
        for child in ai.of(ip):
            child.seat()
    playing = [c for _, c in ai.started]
    ai.wait(3 * RECLAIM_AFTER, playing=playing)
    refused = ai.ask(GENUINE)
    assert isinstance(refused, AiServerBusy) and "24 of 24" in refused.why
    assert all(c.alive for c in playing)  # a genuine game is never cut short


def test_many_lobbies_from_one_address_are_one_host():
    ai = Served()
    for port in (4000, 4001, 4002):
        assert ai.ask(ATTACKERS[0], port=port) == 3
    refused = ai.ask(ATTACKERS[0], port=4003)
    assert isinstance(refused, AiServerBusy)
    assert "at most 11 players for one address, and 9 are at your tables" in refused.why
    assert ai.ask(ATTACKERS[0], count=2, port=4003) == 2
    # Every genuine table from another machine is still served.
    for k in range(3):
        assert ai.ask(f"198.18.0.{60 + k}", count=3) == 3
    assert ai.live() == 20


def test_a_host_already_served_does_not_take_the_last_places():
    ai = Served()
    for k in range(3):
        assert ai.ask(f"198.18.0.{60 + k}", count=6) == 6  # 18 of 24
    refused = ai.ask("198.18.0.60", count=2)
    assert isinstance(refused, AiServerBusy)
    assert "the last 5 places are kept for hosts it does not serve yet" in refused.why
    assert ai.ask("198.18.0.60", count=1) == 1  # 5 left: the reserve
    assert ai.ask(GENUINE, count=5) == 5  # a host not served yet takes it
    assert ai.live() == CAPACITY


def test_ipv6_addresses_of_one_network_are_one_source():
    pool = AiPool()
    assert source_of("2001:db8::1") == source_of("2001:db8::ffff:1") == "2001:db8::/64"
    assert source_of("::ffff:198.18.0.7") == "198.18.0.7"
    for k in range(11):
        pool.add(k, f"tcp:2001\\:db8\\:\\:{k + 1:x}:4000", 0.0)
    with pytest.raises(AiServerBusy, match="at most 11 players for one address"):
        pool.admit("tcp:2001\\:db8\\:\\:99:4000", 1, 0.0)
    assert pool.admit("tcp:2001\\:db8\\:1\\:\\:1:4000", 3, 0.0) == []  # another network


# --- how the server learns that a table moves on --------------------------------------------


class FakeNode:
    def __init__(self) -> None:
        self.marker: object = None

    def progress_marker(self) -> object:
        return self.marker


def test_an_ai_player_says_when_its_table_moves_on_at_most_every_ten_seconds():
    clock, node, told = Clock(), FakeNode(), []
    loop = watch_progress(clock, node, lambda: told.append(clock.seconds()))
    clock.advance(PROGRESS_SECONDS)
    assert told == []  # it has not moved yet
    for step in range(10):  # a move every 2 s, for 20 s
        node.marker = ("play", step)
        clock.advance(2)
    clock.advance(5 * PROGRESS_SECONDS)  # then it stalls
    assert told == [20.0, 30.0]
    loop.stop()


def test_the_server_hears_a_childs_progress_line_and_does_not_log_it():
    child = AiChild("AI 3", None)
    heard: list[AiChild] = []
    child.on_progress = heard.append
    child.childDataReceived(1, (PROGRESS_LINE + "\n").encode())
    child.childDataReceived(1, ("x" + PROGRESS_LINE + "\n").encode())  # not the line itself
    assert heard == [child] and child.last_line == "x" + PROGRESS_LINE


# --- over loopback TCP ------------------------------------------------------------------------


def tcp_child() -> None:
    """The attack on real sockets: nine host lobbies on 127.0.0.11-18 and 127.0.0.50, each
    asking `run_ai_server` (its players in memory, on a clock) from its own address."""
    from twisted.internet import task
    from twisted.internet.defer import ensureDeferred

    from tractor import Rules
    from tractor.ai.hosting.runner import run_ai_server
    from tractor.net.lobby.host_protocol import host_table

    async def main(reactor: Any) -> None:
        ai = Served()
        server = await run_ai_server(reactor, "tcp:0:interface=127.0.0.1", "random", "easy",
                                     announce=False, players=ai.players)
        port = server.address.rsplit(":", 1)[1]
        out: dict[str, Any] = {"dialed": []}

        async def fill(ip: str) -> int | str:
            host = await host_table(reactor, "friday", Rules(), None,
                                    listen=f"tcp:0:interface={ip}", announce=False)
            try:
                return await host.request_fill(ai_server=f"tcp:127.0.0.1:{port}:"
                                               f"bindAddress={ip}", local=False, count=3)
            except LobbyError as exc:
                return f"{type(exc).__name__}: {exc.why}"
            finally:
                host.close()

        attackers = [f"127.0.0.{11 + k}" for k in range(8)]
        out["attackers"] = [await fill(ip) for ip in attackers]
        for _, child in ai.started:
            child.seat()
        out["early"] = await fill("127.0.0.50")
        ai.wait(RECLAIM_AFTER)
        out["later"] = await fill("127.0.0.50")
        out["dialed"] = sorted({lobby.rsplit(":", 1)[0] for lobby, _ in ai.started})
        out["live"] = ai.live()
        server.close()
        ai.players.close()
        print(json.dumps(out), flush=True)

    task.react(lambda r: ensureDeferred(main(r)))


@pytest.mark.e2e
def test_the_attack_over_loopback_tcp_from_nine_addresses():
    proc = subprocess.run([sys.executable, __file__], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["attackers"] == [3] * 8
    assert out["early"] == ("AiServerBusy: refused: this AI server is busy: 24 of 24 players "
                            "are at other tables; try again in 2 minutes")
    assert out["later"] == 3
    assert out["live"] == CAPACITY
    # Each player dials back the address its request came from, and no other.
    assert out["dialed"] == sorted(f"tcp:127.0.0.{n}" for n in [*range(11, 19), 50])


if __name__ == "__main__":
    tcp_child()
