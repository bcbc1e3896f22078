"""The screen's fixed parts around the hand: the status bar on top, the banner of network
trouble, the table pane (the seats around the trick, the log beside or under them), the
input line's prompt and the key bar at the bottom. Plain functions of the client (and,
for the key bar, of what the screen is showing)."""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples

from tractor.cli.screen import render, table_view
from tractor.cli.screen.hidden_play import hides_played
from tractor.cli.seat.client import TableClient
from tractor.observation import Observation
from tractor.phases import Decision


def status_fragments(client: TableClient, width: int = 80,
                     height: int = 1) -> StyleAndTextTuples:
    """The status bar, fitted to its width (never cut inside a word or a name)."""
    text = render.status_text(client.observation(), client.names, client.decision(),
                              client.summary(), max(1, width - 2))
    return [("class:status", f" {text} ")]


def banner_fragments(client: TableClient, width: int, height: int) -> StyleAndTextTuples:
    """Network trouble, wrapped to the screen's width (never cut)."""
    lines = render.wrap_words(client.banner() or "", width - 2, keep=client.names)
    return [("class:banner", f" {line:<{width - 2}} " + ("\n" if i < len(lines) - 1
                                                         else ""))
            for i, line in enumerate(lines)]


def table_pane(client: TableClient, width: int, height: int,
               shown: Callable[[Observation], Observation] | None = None) -> StyleAndTextTuples:
    """The seats around the trick, and the log beside or under them (``shown``: what of
    the table to show, `trick_hold.TrickHold.shown`)."""
    obs = client.observation()
    return table_view.table_pane(shown(obs) if shown is not None else obs, client.names,
                                 client.events(), width, height)


def prompt_text(client: TableClient) -> str:
    """The input line's prompt: what Enter does now."""
    decision = client.decision()
    if client.summary() is not None:
        return "next (Enter)> "
    if decision is None:
        return "wait> "
    if decision == Decision.BURY:
        return f"bury {render.talon_size(client.observation())}> "
    return {Decision.DECLARE: "declare> ", Decision.PLAY: "play> ", Decision.BID: "bid> ",
            Decision.SHOW: "show> ", Decision.NAME: "trump> ", Decision.CALL: "call> "}[decision]


def keys_text(client: TableClient, panel: str | None, chatting: bool) -> str:
    """The key bar: the keys that matter now (``panel``: the one open; ``chatting``: the
    chat line is open)."""
    if chatting:
        return " Enter send · Esc cancel "
    if panel == "summary":
        return " Enter next hand · l last trick · g log · ? help · Ctrl-Q quit "
    if panel == "declare":
        return " 1-9 declare · p pass · i suggest · Esc hide · ? help "
    if panel is not None:
        return " Esc close · ? help · Ctrl-Q quit "
    decision = client.decision()
    if decision == Decision.DECLARE:  # the log's "you may declare ♥2 now" says no key
        return " e declare · p let it go by · i suggest · ? help · Ctrl-Q quit "
    if decision == Decision.CALL:  # the calls are typed: no card of the hand to select
        return " type the calls, Enter call · i hint · o cards out · ? help "
    verbs = {Decision.PLAY: "play", Decision.BURY: "bury", Decision.SHOW: "show",
             Decision.BID: "bid", Decision.NAME: "name trump"}
    # While a hide_played table plays its hand, i gives no hint (`hidden_play`): not shown.
    hint = "" if hides_played(client.observation()) else " i hint ·"
    if decision is None and client.takeback_refusal() is None:  # the rules core says u works
        return f" u take back · ←→ Space select · Tab complete ·{hint} l last · ? help "
    verb = "play" if decision is None else verbs[decision]
    return f" Enter {verb} · ←→ Space select · Tab complete ·{hint} l last · ? help "
