"""From a lobby's `Seating` to a running peer: identity, session, journal, mesh.

Every participant (a person's client, an AI peer) goes the same way: make an identity
key, listen for the game mesh (`listen_node`), take a seat in a lobby with that port,
then `take_seat` builds the `GameSession`, records the game in the journal (so a crash
can be resumed), dials the other seats and sends the first frames.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from twisted.internet.address import IPv4Address, IPv6Address

from tractor.net.internet.mesh import Wormholes
from tractor.net.journal.store import Journal
from tractor.net.lobby.seating import Seating, TableBinding
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import GRACE, PeerNode
from tractor.net.table.journaled import game_start, open_session
from tractor.net.table.player import Player
from tractor.net.table.session import GameSession


def game_id(seating: Seating) -> str:
    """The name this seat's game goes by in journals and `tractor history`: the table (the
    same on every peer) and the seat, so several seats of one game can share a journal."""
    return f"{seating.table.hex()[:12]}-{seating.seat}"


async def listen_node(reactor: Any, interface: str = "127.0.0.1", port: int = 0,
                      grace: float = GRACE) -> tuple[PeerNode, int]:
    """A game node listening before it is seated (a lobby needs its port)."""
    node = PeerNode(reactor, listen=f"tcp:{port}:interface={interface}", grace=grace,
                    pair_links=Wormholes())
    return node, await node.start()


def take_seat(node: PeerNode, seating: Seating, key: Ed25519PrivateKey, player: Player,
              journal: Journal | None = None, master_seed: bytes | None = None,
              max_hands: int | None = None,
              meta: dict[str, Any] | None = None) -> GameSession:
    """Seat ``node`` at the table the lobby formed and start playing."""
    if seating.keys[seating.seat] != raw_public(key):
        raise ValueError("the seating gives this seat another key")
    master = master_seed or os.urandom(32)
    session = GameSession(seating.rules, seating.table, seating.seat, key,
                          [Ed25519PublicKey.from_public_bytes(k) for k in seating.keys],
                          master, player, max_hands=max_hands,
                          carry=seating.carry)
    game = game_id(seating)
    if journal is not None:
        journal.add_game(game, game_start(session, key, master))
        journal.set_meta(game, {
            "names": list(seating.names), "kinds": list(seating.kinds),
            "addresses": {str(s): a for s, a in seating.addresses.items()},
            "listen": node.listen_description if node.port is None
            else _listen_again(node), "table_name": seating.name,
            "carry": list(seating.carry) if seating.carry is not None else None,
            "watchers": seating.watchers, "nonce": seating.nonce.hex(),
            "grace": node.grace,  # (a resumed seat waits as long as the first run did)
            # Each seat's AI level as the start said it (None: a person, or not said).
            "ai_levels": [seating.level_of(s) for s in range(len(seating.keys))],
            **(meta or {})})
    node.attach(session, seating.keys, journal, game)
    node.watchers.names, node.watchers.carry = seating.names, seating.carry  # (their welcome)
    node.watchers.open = seating.watchers
    node.watchers.binding = seating.binding()
    node.dial({s: a for s, a in seating.addresses.items() if s != seating.seat})
    node.begin()
    return session


def _listen_again(node: PeerNode) -> str:
    """The endpoint to listen on after a restart: the same interface and port, so the
    other seats' reconnection attempts find this peer again."""
    assert node.port is not None
    host = node.port.getHost()
    assert isinstance(host, IPv4Address | IPv6Address)  # a game node listens on TCP
    return f"tcp:{host.port}:interface={host.host}"


async def resume_seat(reactor: Any, journal: Journal, game: str, player: Player,
                      grace: float | None = None,
                      progress: Callable[[int, int], None] | None = None
                      ) -> tuple[PeerNode, GameSession]:
    """Rebuild this peer's seat of ``game`` after a crash: the session replayed from the
    journal (``progress(done, total)`` told as it goes), the node listening again where it
    did (so the others' reconnection attempts find it), dialing the others and sending
    what it owes. ``grace``: None waits for a lost seat as long as the game's first run
    did (`GRACE` for a journal that does not say). Raises `CannotListenError` when that
    endpoint is still taken."""
    meta = journal.meta(game)
    if grace is None:
        grace = kept_grace(meta)
    session, frames = open_session(journal, game, player, progress=progress)
    node = PeerNode(reactor, listen=meta.get("listen", "tcp:0:interface=127.0.0.1"),
                    grace=grace, pair_links=Wormholes())
    await node.start()
    node.attach(session, [k.public_bytes_raw() for k in session.public_keys], journal, game)
    # (A journal from before watchers has no "watchers": its table took them.)
    node.watchers.open = meta.get("watchers", True) is not False
    node.watchers.names = tuple(str(n) for n in meta.get("names", ()))
    carry = meta.get("carry")
    node.watchers.carry = tuple(carry) if isinstance(carry, list) else None
    node.watchers.binding = journaled_binding(meta, session.rules.players)
    node.dial({int(s): a for s, a in meta.get("addresses", {}).items()
               if int(s) != session.seat})
    node.begin(frames)
    return node, session


def kept_grace(meta: dict[str, Any]) -> float:
    """The grace period a game's first run waited for a lost seat, from its journal's
    ``meta`` (`GRACE` where it does not say, or says nonsense).

    >>> kept_grace({"grace": 15.0}), kept_grace({}), kept_grace({"grace": "x"})
    (15.0, 120.0, 120.0)
    """
    kept = meta.get("grace")
    if isinstance(kept, int | float) and not isinstance(kept, bool) and 0 < kept < 1e6:
        return float(kept)  # (the bound `tractor --grace` takes)
    return GRACE


def journaled_seating(session: GameSession, meta: dict[str, Any]) -> Seating:
    """The seating a journaled game began from, as far as its session and its meta keep
    it (what a resumed seat needs to go on at a new table, or to host watchers); a part
    the meta does not hold (an older tractor's journal) is left empty."""
    carry = meta.get("carry")
    try:
        nonce = bytes.fromhex(str(meta.get("nonce", "")))
    except ValueError:
        nonce = b""
    return Seating(session.table, str(meta.get("table_name", "")), session.rules,
                   session.seat, tuple(k.public_bytes_raw() for k in session.public_keys),
                   {int(s): str(a) for s, a in meta.get("addresses", {}).items()},
                   tuple(str(n) for n in meta.get("names", ())),
                   tuple(str(k) for k in meta.get("kinds", ())),
                   tuple(carry) if isinstance(carry, list) else None,
                   meta.get("watchers", True) is not False, nonce,
                   tuple(None if lv is None else str(lv) for lv in meta.get("ai_levels", ())))


def journaled_binding(meta: dict[str, Any], players: int) -> TableBinding | None:
    """The table id's parts a watcher needs, from a journal's meta (None: a game begun by
    an older tractor, which did not keep the nonce: its watchers go to another seat)."""
    try:
        addresses = meta["addresses"]
        return TableBinding(str(meta["table_name"]),
                            tuple(str(addresses[str(s)]) for s in range(players)),
                            tuple(str(k) for k in meta["kinds"]), bytes.fromhex(meta["nonce"]),
                            meta.get("watchers", True) is not False)
    except (KeyError, TypeError, ValueError):
        return None
