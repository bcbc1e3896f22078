"""What a line typed at `lobby>` does (the trial: a word the lobby does not know brought
the command list back without saying it was not understood)."""

from __future__ import annotations

from typing import Any

from tractor.cli.lobby_prompt import _LobbyCommands


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
