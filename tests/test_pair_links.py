"""The mesh reaches the seats it does not dial over TCP through the pair links a layer above
gives it (`net.mesh.pair_links`; an internet table's wormholes), and imports nothing of the
internet layer itself."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

from test_wire_hostile import link_for, seated_game
from twisted.internet.testing import MemoryReactorClock

from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.pair_links import PairLinkHost
from tractor.net.mesh.wire import PeerNode

MESH = Path(__file__).resolve().parent.parent / "net" / "mesh"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
    return names


def test_the_mesh_imports_nothing_of_the_internet_layer_above_it():
    above = {f"{path.name}: {name}" for path in sorted(MESH.glob("*.py"))
             for name in imported_modules(path) if name.startswith("tractor.net.internet")}
    assert above == set()


class FakePairs:
    """Pair links that only say how they are doing."""

    def __init__(self, addresses: Mapping[int, str]) -> None:
        self.addresses = dict(addresses)
        self.started = self.stopped = False

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True

    def paths(self) -> dict[int, str | None]:
        return {seat: None for seat in self.addresses}

    def states(self) -> dict[int, str]:
        return {seat: "waiting for it at the mailbox" for seat in self.addresses}


class FakeMaker:
    """Takes the addresses that begin with "pair:"."""

    def __init__(self) -> None:
        self.opened: list[tuple[PairLinkHost, FakePairs]] = []

    def takes(self, address: str) -> bool:
        return address.startswith("pair:")

    def open(self, node: PairLinkHost, addresses: Mapping[int, str]) -> FakePairs:
        pairs = FakePairs(addresses)
        self.opened.append((node, pairs))
        return pairs


def test_a_node_reaches_the_seats_its_pair_links_take_through_them_and_dials_the_rest():
    d, sessions = seated_game()
    clock = MemoryReactorClock()
    maker = FakeMaker()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys],
                    pair_links=maker)
    node.dial({1: "tcp:127.0.0.1:4001", 2: "pair:two", 3: "pair:three"})
    [(host, pairs)] = maker.opened
    assert host is node and pairs.addresses == {2: "pair:two", 3: "pair:three"}
    assert pairs.started
    assert [(c[0], c[1]) for c in clock.tcpClients] == [("127.0.0.1", 4001)]  # seat 1 only
    clock.advance(10)
    assert node.unreachable() == {1: "no answer yet from its address",
                                  2: "waiting for it at the mailbox",
                                  3: "waiting for it at the mailbox"}
    node.stop()
    assert pairs.stopped


def test_a_seat_its_pair_link_lost_counts_as_down_at_once():
    d, sessions = seated_game()
    node = PeerNode(MemoryReactorClock(), sessions[0], [raw_public(k) for k in d.signing_keys],
                    pair_links=FakeMaker())
    link, _ = link_for(node, 2, d.signing_keys[2])
    assert 2 not in node.down_since
    node.seat_lost(2)
    assert 2 in node.down_since and 2 not in node.links
    node.seat_lost(2)  # (no link: nothing more)
    assert 2 in node.down_since
