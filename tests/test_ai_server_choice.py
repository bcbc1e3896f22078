"""`fill lan` lists the AI servers heard, with their keys and whether this host used them,
and asks only the one the person picks: the key it proves is pinned on first use, and a
pinned name that comes back with another key is refused until the person accepts it."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from tractor.cli.ai_servers import AiServerChooser
from tractor.net.journal.store import Journal
from tractor.net.lobby.errors import WrongServerKey
from tractor.net.lobby.seating import fingerprint

KEY_A, KEY_B = b"a" * 32, b"b" * 32


class FakeLobby:
    def __init__(self, heard: list[Any], proves: bytes) -> None:
        self.heard, self.proves = heard, proves
        self.asked: list[tuple[str, str | None]] = []
        self.ai_servers: dict[str, bytes] = {}

    async def browse_ai_servers(self) -> list[Any]:
        return self.heard

    async def request_fill(self, ai_server: str, local: bool, expect: str | None,
                           passphrase: str | None = None) -> int:
        self.asked.append((ai_server, expect))
        if expect is not None and expect != fingerprint(self.proves):
            raise WrongServerKey("it answered with another key: no seat token was sent")
        self.ai_servers[ai_server] = self.proves
        return 2


def server(name: str, address: str, key: bytes) -> Any:
    return SimpleNamespace(name=name, address=address, id=fingerprint(key))


def run(chooser: AiServerChooser, *words: str) -> None:
    asyncio.run(chooser.command(list(words)))


def test_nothing_is_asked_until_the_person_picks_and_the_key_is_pinned(tmp_path):
    journal = Journal(str(tmp_path / "j.sqlite"))
    said: list[str] = []
    lobby = FakeLobby([server("lab", "tcp:198.18.0.3:4100", KEY_A),
                       server("!", "tcp:198.18.0.66:4100", KEY_B)], proves=KEY_A)
    chooser = AiServerChooser(lobby, journal, said.append)
    run(chooser)
    assert lobby.asked == []  # listing asks no one (a fake "!" sorts first: not picked)
    assert any(f"2. lab at tcp:198.18.0.3:4100, key {fingerprint(KEY_A)} (new" in line
               for line in said), said
    run(chooser, "2")
    assert lobby.asked == [("tcp:198.18.0.3:4100", fingerprint(KEY_A))]
    assert journal.pinned_ai_server("lab") == KEY_A
    said.clear()
    run(chooser)
    assert any("lab at" in line and "(used before, same key)" in line for line in said)


def test_a_pinned_name_back_with_another_key_is_refused_until_accepted(tmp_path):
    journal = Journal(str(tmp_path / "j.sqlite"))
    journal.pin_ai_server("lab", KEY_A)
    said: list[str] = []
    lobby = FakeLobby([server("lab", "tcp:198.18.0.66:4100", KEY_B)], proves=KEY_B)
    chooser = AiServerChooser(lobby, journal, said.append)
    run(chooser)
    assert any("WARNING" in line and fingerprint(KEY_A) in line for line in said), said
    run(chooser, "1")
    assert lobby.asked == [] and "not asked" in said[-1]
    run(chooser, "1", "anyway")
    assert lobby.asked == [("tcp:198.18.0.66:4100", fingerprint(KEY_B))]
    assert journal.pinned_ai_server("lab") == KEY_B
    run(chooser, "7")
    assert "give the number of a server" in said[-1]


def test_the_server_named_with_ai_server_is_pinned_by_address(tmp_path):
    journal = Journal(str(tmp_path / "j.sqlite"))
    said: list[str] = []
    lobby = FakeLobby([], proves=KEY_A)
    chooser = AiServerChooser(lobby, journal, said.append, fixed="tcp:198.18.0.3:4100")
    run(chooser)
    assert lobby.asked == [("tcp:198.18.0.3:4100", None)]  # first use: whatever it proves
    assert journal.pinned_ai_server("tcp:198.18.0.3:4100") == KEY_A
    lobby.proves = KEY_B  # another machine at that address now
    run(chooser)
    assert lobby.asked[-1] == ("tcp:198.18.0.3:4100", fingerprint(KEY_A))
    assert said[-1].startswith("no AI: it answered with another key")
