"""The settings a host may change in the lobby before the start: the rules (``rules
NAME=VALUE``) and who sits where (``sit``, ``swap``, a table resized by ``players``).

Pure functions over the lobby's seat list (any objects, None for an empty seat), so the
rules of moving people are tested without a lobby: each returns the new list or raises
`SettingRefused` with a sentence for the person, and never changes its argument.
`HostLobby` (`net/lobby/host_state.py`) applies the result and un-readies the seats.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, TypeVar

from tractor.net.lobby.errors import LobbyError
from tractor.rules import Rules

T = TypeVar("T")


class SettingRefused(LobbyError):
    """A lobby setting the table cannot take now (the sentence says why and what to do)."""

    code = "setting-refused"


def changed_rules(rules: Rules, changes: dict[str, Any]) -> Rules:
    """``rules`` with the options in ``changes`` set (as `Rules.from_data` reads them);
    raises the core's `RulesError` with its own sentence when the result is no valid table
    (an option other than those, or values that do not fit together)."""
    return Rules.from_data({**rules.to_data(), **changes})


def resized(seats: Sequence[T | None], players: int, reserved: Collection[int],
            who: str = "host") -> list[T | None]:
    """The seats of a table of ``players``: a larger table gets empty seats at the end; a
    smaller one keeps everyone seated, in order, moving those beyond its last seat to the
    free seats it has (refused when more seats are taken than it has, or while AI players
    asked for are still on their way: their seat numbers are promised)."""
    if players == len(seats):
        return list(seats)
    taken = sum(s is not None for s in seats)
    if reserved:
        raise SettingRefused(f"{len(reserved)} AI player(s) asked for have not sat yet: "
                             "change the number of players once they sit", who)
    if taken > players:
        raise SettingRefused(f"{taken} seats are taken, more than a table of {players} has: "
                             "someone must leave first", who)
    if players > len(seats):
        return [*seats, *[None] * (players - len(seats))]
    kept = list(seats[:players])
    movers = [s for s in seats[players:] if s is not None]
    for i, seat in enumerate(kept):
        if seat is None and movers:
            kept[i] = movers.pop(0)
    return kept


def swapped(seats: Sequence[T | None], a: int, b: int, reserved: Collection[int],
            who: str = "host") -> list[T | None]:
    """The seats with seats ``a`` and ``b`` exchanged (either may be empty, so ``sit``
    is a swap with a free seat); a seat kept for an AI asked for does not move."""
    for seat in (a, b):
        if not 0 <= seat < len(seats):
            raise SettingRefused(f"there is no seat {seat}: the seats are 0 to "
                                 f"{len(seats) - 1}", who)
        if seat in reserved and seats[seat] is None:
            raise SettingRefused(f"seat {seat} is kept for an AI player asked for: move it "
                                 "once it sits", who)
    if a == b:
        raise SettingRefused(f"seat {a} is seat {b}: name two different seats", who)
    out = list(seats)
    out[a], out[b] = out[b], out[a]
    return out


def option_text(value: Any) -> str:
    """An option's value as a person types it after ``NAME=``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: The options `rules_lines` always shows (a table's shape), in this order.
MAIN_OPTIONS = ("players", "decks", "mode", "declaration")


def rules_lines(rules: Rules) -> list[str]:
    """What ``rules`` in the lobby shows: the main options, then every other option that
    differs from its default (those at their default are what `tractor rules` describes)."""
    main = "  ".join(f"{n}={option_text(getattr(rules, n))}" for n in MAIN_OPTIONS)
    others = [f"{n}={option_text(getattr(rules, n))}" for n in house_rules(rules)]
    return [f"rules: {main}",
            "  also: " + "  ".join(others) if others else
            "  every other option at its default (`tractor rules` describes them)"]


def house_rules(rules: Rules) -> list[str]:
    """The options besides `MAIN_OPTIONS` that differ from their default at a table of
    this size and mode, in `Rules.option_names` order."""
    default = Rules(players=rules.players, mode=rules.mode)
    return [n for n in Rules.option_names()
            if n not in MAIN_OPTIONS and getattr(rules, n) != getattr(default, n)]


def rules_changes(old: Rules, new: Rules) -> str:
    """The options that differ, as ``NAME=VALUE`` with the new values ("" if none)."""
    return ", ".join(f"{n}={option_text(getattr(new, n))}" for n in Rules.option_names()
                     if getattr(old, n) != getattr(new, n))


def rules_summary(rules: Rules) -> str:
    """The main rules in a few words, as a table's announcement carries them (well under
    the announcement's 80 characters): "2 decks  find-a-friend  auction declaration"."""
    words = [f"{rules.decks} deck{'s' if rules.decks > 1 else ''}",
             "find-a-friend" if rules.mode == "friends" else "fixed teams"]
    if rules.declaration != "reveal":
        words.append(f"{rules.declaration} declaration")
    others = len(house_rules(rules))
    if others:
        words.append(f"{others} house rule{'s' if others > 1 else ''}")
    return "  ".join(words)
