"""What `tractor host` and `tractor join` say (a new user's trials).

`tractor host --listen tcp:0:interface=127.0.0.1`: it said "(or
`tractor join` to find it on the LAN)", announced 127.0.0.1 (which every browser refuses
as another host's address) and opened its game port and AI seats on every interface. A
table on loopback is this machine's only: said so, never announced, and its seats listen
on loopback too. The command's wiring, with the lobby and the node replaced.

A table that needs a passphrase: "tractor: refused: table 'nutable' needs a passphrase" read
as a fatal error just before `tractor join` asked for it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tractor.cli import tables
from tractor.cli.main import _parser
from tractor.cli.options import listen_interface
from tractor.net.lobby.errors import (
    LobbyError,
    PassphraseRequired,
    WrongPassphrase,
    error_for,
)


class _Node:
    def stop(self) -> None:
        pass


class _Reactor:
    def addSystemEventTrigger(self, *args: Any) -> None:  # noqa: N802 (Twisted's name)
        pass


def _host(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, *argv: str
          ) -> tuple[dict[str, Any], list[str]]:
    """What `tractor host ARGV` hands the node and the lobby (which refuses, ending it)."""
    monkeypatch.setenv("TRACTOR_HOME", str(tmp_path))
    seen: dict[str, Any] = {}
    said: list[str] = []

    async def listen_node(reactor: Any, interface: str, grace: float) -> Any:
        seen["node"] = interface
        return _Node(), 41000

    async def host_table(reactor: Any, name: str, rules: Any, me: Any, **kw: Any) -> Any:
        seen.update(kw)
        raise LobbyError("stop here", "test")

    monkeypatch.setattr(tables, "listen_node", listen_node)
    monkeypatch.setattr(tables, "host_table", host_table)
    monkeypatch.setattr(tables, "say", said.append)
    args = _parser().parse_args(["host", "--player", "Hana", *argv])
    assert asyncio.run(tables.host(_Reactor(), args)) == 1
    return seen, said


def test_a_host_on_loopback_is_not_announced_and_its_seats_listen_on_loopback(
        monkeypatch, tmp_path):
    seen, _ = _host(monkeypatch, tmp_path, "--listen", "tcp:0:interface=127.0.0.1")
    assert seen["node"] == "127.0.0.1" and seen["announce"] is False
    seen, _ = _host(monkeypatch, tmp_path)  # the default: every interface, announced
    assert seen["node"] == "0.0.0.0" and seen["announce"] is True
    seen, _ = _host(monkeypatch, tmp_path, "--listen", "tcp:0:interface=192.0.2.5")
    assert seen["node"] == "192.0.2.5" and seen["announce"] is True


def test_the_open_line_says_who_can_join_a_table_on_loopback():
    line = tables._open_line("nutable", "tcp:127.0.0.1:40123", True, False)
    assert line.startswith("table 'nutable' open on this machine only")
    assert "`tractor join tcp:127.0.0.1:40123`" in line and "find it on the LAN" not in line
    assert tables._open_line("t", "tcp:192.0.2.5:1", False, False).endswith(
        "(or `tractor join` to find it on the LAN)")
    assert listen_interface(r"tcp:0:interface=\:\:1") == "::1"
    assert listen_interface("tcp:40123") == "0.0.0.0"


def test_join_says_why_it_asks_for_the_passphrase_as_the_questions_reason():
    needed = error_for("passphrase-required", "table 'nutable' needs a passphrase",
                       "tcp:127.0.0.1:40123")
    assert isinstance(needed, PassphraseRequired)
    assert tables.passphrase_reason(needed) == "table 'nutable' needs a passphrase"
    wrong = WrongPassphrase("wrong table passphrase", "tcp:127.0.0.1:40123")
    assert tables.passphrase_reason(wrong) == "wrong table passphrase: type it again"
