"""What a line typed at `lobby>` does (the trial: a word the lobby does not know brought
the command list back without saying it was not understood)."""

from __future__ import annotations

from typing import Any

from tractor.cli.lobby_prompt import _LobbyCommands, roster_lines
from tractor.net.lobby.seating import Roster, SeatInfo
from tractor.rules import Rules


class Read:
    on_terminal = True

    def __init__(self) -> None:
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)


class Lobby:
    def __init__(self) -> None:
        self.readiness: list[bool] = []

    def ready(self, ready: bool) -> None:
        self.readiness.append(ready)

    def roster(self) -> Any:
        return None


def test_an_unknown_word_is_said_not_understood_and_help_lists_the_commands() -> None:
    read, lobby = Read(), Lobby()
    commands = _LobbyCommands(lobby, False, read, None)  # type: ignore[arg-type]
    assert commands.take("asdf qwer") is False
    assert read.said[-1].startswith("'asdf qwer' is not a lobby command; lobby commands: ")
    assert commands.take("help") is False
    assert read.said[-1] == commands.help_text
    assert commands.take("") is False and len(read.said) == 2  # an empty line: nothing
    assert commands.take("ready") is False and lobby.readiness == [True]


class Seated(Lobby):
    """A guest's lobby at seat 1 beside the host (a person) at seat 0."""

    def roster(self) -> Any:
        return Roster("Friday", Rules(), (SeatInfo("Hana", "human", "ab12", True), SeatInfo(
            "Jo", "human", "cd34", False), None, None), you=1)


def test_seats_shows_the_whole_seat_list_again_host_and_guest() -> None:
    for is_host in (True, False):
        read, lobby = Read(), Seated()
        commands = _LobbyCommands(lobby, is_host, read, None)  # type: ignore[arg-type]
        assert "seats, " in commands.help_text
        assert commands.take("seats") is False
        lines = roster_lines(lobby.roster())
        assert read.said == [lines[0], *lines[-4:]]
        assert read.said[2] == "  seat 1: Jo (human, key cd34)  <- you"
    commands = _LobbyCommands(Lobby(), False, read, None)  # type: ignore[arg-type]
    commands.take("seats")
    assert read.said[-1] == "the lobby has no seats to show yet"


def test_a_guest_quits_without_a_question_others_seated_or_not() -> None:
    """The question is the host's (its leaving closes the table): a guest was asked
    "leave? others are seated (Hana)"."""
    read = Read()
    assert _LobbyCommands(Seated(), False, read, None).take("quit") is True  # type: ignore
    assert read.said == []
    host = _LobbyCommands(Seated(), True, read, None)  # type: ignore[arg-type]
    assert host.take("quit") is False and host.prompt.startswith("leave? the table closes")
