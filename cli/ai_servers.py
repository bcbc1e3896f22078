"""Choosing an AI server for `fill lan`: the host sees the servers heard on the LAN, each
with its key's fingerprint and whether this machine has used it before, and picks one.

Anyone on a LAN can announce an AI server, even one with a real server's key (the id it
announces): every claimant is listed, and two that claim one key are marked so (only the
real one can prove the key when asked). So none is ever picked for the host: the seat
tokens go only to the server the person chose, sealed to the key its greeting proves
(`net.lobby.ai_fill.fill_request_frame`). The first use of a server pins its key in the journal,
under the name it announces (or the address given with ``--ai-server``); a pinned name
that comes back with another key is shown with a warning and is asked only after the
person accepts the new key (``fill lan N anyway``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tractor.net.journal.store import Journal
from tractor.net.lobby.discovery import claimed_twice
from tractor.net.lobby.errors import PassphraseRequired
from tractor.net.lobby.seating import fingerprint

ANYWAY = "anyway"


class AiServerChooser:
    """The lobby commands ``fill lan`` (list the servers heard) and ``fill lan N``."""

    def __init__(self, lobby: Any, journal: Journal, say: Callable[[str], None],
                 fixed: str | None = None, passphrase: str | None = None) -> None:
        self.lobby, self.journal, self.say = lobby, journal, say
        self.fixed = fixed  #: the server named with ``--ai-server`` (an endpoint string)
        self.passphrase = passphrase  #: ``--ai-server-passphrase``, for a server that has one
        self.heard: list[Any] = []  #: what the last listing showed, numbered from 1

    async def command(self, words: list[str]) -> None:
        """``words`` after ``fill lan``: nothing (list, or ask the ``--ai-server``), or a
        number from the list (and ``anyway`` to accept a changed key)."""
        if not words:
            if self.fixed is not None:
                await self._ask(self.fixed, self.fixed, words)
                return
            await self.show()
            return
        try:
            pick = int(words[0])
        except ValueError:
            pick = 0
        if not 1 <= pick <= len(self.heard) or words[1:] not in ([], [ANYWAY]):
            self.say("give the number of a server from the list `fill lan` shows, e.g. "
                     "`fill lan 1`")
            return
        server = self.heard[pick - 1]
        await self._ask(server.name, server.address, words[1:], server.id)

    async def show(self) -> None:
        self.heard = sorted(await self.lobby.browse_ai_servers(),
                            key=lambda a: (a.name, a.address))
        if not self.heard:
            self.say("no AI server heard on the LAN (start one with `tractor ai-server` on "
                     "another machine, or use `fill` for AI peers on this one)")
            return
        self.say("AI servers heard on the LAN (anyone can announce one: check the key "
                 "with the person who runs it):")
        twice = claimed_twice(self.heard)
        for k, server in enumerate(self.heard, 1):
            needs = ", needs a passphrase" if getattr(server, "passphrase", False) else ""
            self.say(f"  {k}. {server.name} at {server.address}, key {server.id}{needs}"
                     f"{self._trust(server.name, server.id)}")
            if server.id in twice:
                self.say(f"     !! two servers claim key {server.id}: one of them poses as "
                         "the other. Its owner saw \"AI server ready at ADDRESS, key "
                         f"{server.id}\": pick the one at that address (the other cannot "
                         "prove the key and is sent nothing)")
        self.say("ask one with `fill lan N`")

    def _trust(self, label: str, announced: str) -> str:
        pinned = self.journal.pinned_ai_server(label)
        if pinned is None:
            return " (new: its key is remembered when you use it)"
        if fingerprint(pinned) == announced:
            return " (used before, same key)"
        return (f" !! WARNING: {label!r} had key {fingerprint(pinned)} when you used it; "
                "this may be another machine posing as it")

    async def _ask(self, label: str, address: str, words: list[str],
                   announced: str | None = None) -> None:
        pinned = self.journal.pinned_ai_server(label)
        expect = announced
        if pinned is not None and words != [ANYWAY]:
            if announced is not None and fingerprint(pinned) != announced:
                self.say(f"not asked: {label!r} announces key {announced}, not the key "
                         f"{fingerprint(pinned)} it had; if that machine was set up again, "
                         f"`fill lan N {ANYWAY}` accepts the new key")
                return
            expect = fingerprint(pinned)
        try:
            count = await self.lobby.request_fill(ai_server=address, local=False,
                                                  expect=expect, passphrase=self.passphrase)
        except PassphraseRequired:
            self.say(f"no AI: {label!r} needs its passphrase, and no seat token was sent: "
                     "open the table with `tractor host --ai-server-passphrase -`")
            return
        except Exception as exc:
            # A process edge: a lobby command's top level. Whatever the AI server answered
            # or the network did, the lobby goes on and the host reads why.
            why = getattr(exc, "why", None) or str(exc)
            self.say(f"no AI: {why}")
            return
        identity = self.lobby.ai_servers.get(address)
        if identity is not None and pinned != identity:
            self.journal.pin_ai_server(label, identity)
            self.say(f"remembered the key {fingerprint(identity)} of {label!r}")
        self.say(f"asked {label!r} for {count} AI player(s)")
