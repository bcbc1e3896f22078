"""What a seat's journal keeps so that its game goes on at a new table after `tractor
resume` as it would have in the first run (`cli.seat.goes_on.GoesOn`).

A seat gone for good moves a LAN game to a new table: the host reopens its lobby on the
same port with the game's carry and asks this machine for AI players, a guest rejoins the
host's lobby, a practice game asks its own AI seats again. The first run knows how (the
lobby's address, where it listened, the passphrase, how its AI players are started); a
resumed seat knows only its journal. So the first run keeps a `GoingOn` in the game's meta
(`GOING_ON_KEY`), with the lobby's passphrase among the secrets the journal forgets once
the game is over (`LOBBY_PASSPHRASE_KEY`), and `resumed_goes_on` builds the same `GoesOn`
from it. A game journaled without it (an internet table's: a seat gone for good stops
it; a game begun by an older tractor) gets none: its verdict stays on the screen.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tractor.ai.hosting.children import AiChild
from tractor.ai.hosting.runner import spawn_ai_process
from tractor.cli.seat.goes_on import GoesOn
from tractor.cli.seat.netclient import NetClient
from tractor.cli.watch_hosting import WatchHosting
from tractor.net.journal.store import TABLE_PASSPHRASE_KEY
from tractor.net.lobby.host_protocol import FillLocal
from tractor.net.table.seat import journaled_seating
from tractor.net.table.session import GameSession

from .ai_children import report_deaths, retire

#: The journal's meta key of a seat's `GoingOn`.
GOING_ON_KEY = "going_on"
#: The lobby's passphrase (a host's to reopen it, a guest's to rejoin it): a secret the
#: journal keeps only while the game may be resumed.
LOBBY_PASSPHRASE_KEY = TABLE_PASSPHRASE_KEY  #: (the one key of the table passphrase)
#: A practice game's marks (`tractor play`) that its new tables' journals keep too.
PRACTICE_MARKS = ("practice", "strategy", "level")


@dataclass(frozen=True)
class LocalAi:
    """How this command starts AI players for its table, one process per seat: a
    practice game's (``practice``: patient, each seat's seed from ``seed``, named by the
    fill) or a LAN host's (named in the order they were started)."""

    strategy: str
    level: str
    takeback_wait: float
    interface: str  #: where they listen for the other seats
    seed: int | None = None
    practice: bool = False

    def to_data(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "level": self.level,
                "takeback_wait": self.takeback_wait, "interface": self.interface,
                "seed": self.seed, "practice": self.practice}

    @classmethod
    def from_data(cls, data: Any) -> LocalAi:
        """Raises `ValueError` for anything but what `to_data` writes."""
        if not isinstance(data, dict):
            raise ValueError("not a record of local AI players")
        seed, wait = data.get("seed"), data.get("takeback_wait")
        fields = (data.get("strategy"), data.get("level"), data.get("interface"))
        if (not all(isinstance(f, str) for f in fields)
                or not isinstance(wait, int | float) or isinstance(wait, bool)
                or not (seed is None or type(seed) is int)):
            raise ValueError("a damaged record of local AI players")
        return cls(str(fields[0]), str(fields[1]), float(wait), str(fields[2]), seed,
                   data.get("practice") is True)

    def filler(self, reactor: Any, children: list[AiChild], home: Path, grace: float,
               started: int = 0, after: Callable[[], None] | None = None) -> FillLocal:
        """The lobby's ``fill_local``: one AI process per seat token, added to
        ``children``; a host's are numbered on from ``started`` (``after``: called once
        they are started)."""
        spawned = [started]

        def fill_local(count: int, address: str, tokens: list[bytes]) -> None:
            # One process per AI seat: the shuffle proofs of all seats run on every core.
            for k, token in enumerate(tokens):
                spawned[0] += 1
                number = k + 1 if self.practice else spawned[0]
                seed = None if self.seed is None else self.seed + 1000 * k
                children.append(spawn_ai_process(
                    reactor, address, [token], self.strategy, self.level, seed,
                    log_file=str(home / "ai.log"), journal_dir=str(home / "ai"),
                    name=f"AI {number}", grace=grace, interface=self.interface,
                    # Only the person is at a practice table: a break never ends the game.
                    patient=self.practice, takeback_wait=self.takeback_wait))
            if after is not None:
                after()

        return fill_local


@dataclass(frozen=True)
class GoingOn:
    """What a seat needs to go on at a new table: the ``lobby`` it reopens (the host) or
    rejoins (a guest), the ``interface`` its lobby and game port listen on, the name the
    person sat as (``player``) and, for a host, how it starts AI players (``ai``)."""

    lobby: str
    interface: str
    host: bool
    player: str
    ai: LocalAi | None = None

    def kept(self, passphrase: str | None) -> dict[str, Any]:
        """The journal meta entries that keep this (and the lobby's ``passphrase``)."""
        meta: dict[str, Any] = {GOING_ON_KEY: {
            "lobby": self.lobby, "interface": self.interface, "host": self.host,
            "player": self.player, "ai": None if self.ai is None else self.ai.to_data()}}
        if passphrase:
            meta[LOBBY_PASSPHRASE_KEY] = passphrase
        return meta

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> GoingOn | None:
        """The record a journal's ``meta`` keeps (None: none, or a damaged one)."""
        data = meta.get(GOING_ON_KEY)
        if not isinstance(data, dict):
            return None
        lobby, interface, player = (data.get(k) for k in ("lobby", "interface", "player"))
        if not (isinstance(lobby, str) and isinstance(interface, str)
                and isinstance(player, str) and type(data.get("host")) is bool):
            return None
        try:
            ai = None if data.get("ai") is None else LocalAi.from_data(data["ai"])
        except ValueError:
            return None
        return cls(lobby, interface, data["host"], player, ai)


def kept_passphrase(meta: Mapping[str, Any]) -> str | None:
    """The lobby's passphrase the journal keeps (None: an open table, or forgotten)."""
    passphrase = meta.get(LOBBY_PASSPHRASE_KEY)
    return passphrase if isinstance(passphrase, str) and passphrase else None


def resumed_goes_on(reactor: Any, args: argparse.Namespace, client: NetClient,
                    session: GameSession, meta: dict[str, Any], children: list[AiChild],
                    home: Path, hosting: WatchHosting | None) -> GoesOn | None:
    """After `tractor resume`: the `GoesOn` the first run had, from the journal's
    ``meta`` (None: it kept none). ``children``: this command's AI processes, retired
    and replaced at a new table; ``hosting``: a host's watch hosting, moved there."""
    going = GoingOn.from_meta(meta)
    if going is None:
        return None
    seating = journaled_seating(session, meta)
    passphrase = kept_passphrase(meta)
    marks = {**{k: meta[k] for k in PRACTICE_MARKS if k in meta}, **going.kept(passphrase)}
    fill_local = None
    if going.host and going.ai is not None:
        already = sum(kind == "ai" for kind in seating.kinds)
        fill_local = going.ai.filler(
            reactor, children, home, args.grace, started=already,
            after=None if going.ai.practice else lambda: report_deaths(
                children, client.note, lambda: client.session.over))
    return GoesOn(reactor, argparse.Namespace(**{**vars(args), "player": going.player}),
                  client, seating, going.lobby, going.interface, going.host,
                  passphrase=passphrase, fill_local=fill_local,
                  before_fill=lambda: retire(children), marks=marks, hosting=hosting)
