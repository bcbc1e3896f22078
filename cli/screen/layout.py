"""The play screen's arrangement and look: the status bar, the banner, the table (or the
panel in its place), the hand, the message line, the input (or the chat line) and the
key bar, top to bottom; and the style sheet, in colour or without (``NO_COLOR``).

The table, the banner, the hand and the message are made for the size they are drawn at
(`cli.screen.panes.FittedText`): wrapped between words, the newest log lines kept in view.
"""

from __future__ import annotations

from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import ConditionalContainer, Dimension, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.styles import Style

from tractor.cli.screen import frame
from tractor.cli.screen.panes import FittedText, safe
from tractor.cli.screen.view import PlayView

_COLORS = {
    "status": "reverse bold",
    "keys": "reverse",
    "banner": "bg:ansired fg:ansiwhite bold",
    "card.red": "fg:ansired",
    "selected": "reverse",
    "cursor": "underline bold",
    "cursor-mark": "bold",
    "selected-mark": "bold",
    "talon": "bold fg:ansigreen",
    "error": "fg:ansired bold",
    "info": "fg:ansicyan",
    "dim": "fg:ansibrightblack",
    "me": "bold",
    "turn": "bold fg:ansiyellow",
    "trump": "bold fg:ansimagenta",
    "points": "bold",
    "label": "bold",
    "header": "underline",
    "warn": "fg:ansired",
    "separator": "fg:ansibrightblack",
    "panel.title": "bold underline",
}
_MONO = {
    "status": "reverse bold", "keys": "reverse", "banner": "reverse bold",
    "selected": "reverse", "cursor": "underline bold", "cursor-mark": "bold",
    "selected-mark": "bold", "talon": "bold", "error": "bold", "me": "bold", "turn": "bold",
    "trump": "bold",
    "points": "bold", "label": "bold", "header": "underline", "panel.title": "bold underline",
}


def style(color: bool) -> Style:
    """The style sheet: colours, or (without colour) reverse video and bold only."""
    return Style.from_dict(_COLORS if color else _MONO)


def layout(view: PlayView) -> Layout:
    """The screen's windows on ``view``, the input line focused."""
    client = view.client
    panel_open = Condition(lambda: view.panel is not None)
    chatting = Condition(lambda: view.chatting)
    banner = Condition(safe(lambda: bool(client.banner())))
    log_panel = Condition(lambda: view.panel == "log")
    panels = view.panels
    main = Window(FittedText(lambda w, h: frame.table_pane(client, w, h, view.trick_hold.shown)))
    panel = Window(FittedText(panels.fragments, panels.drawn))
    log_page = Window(FittedText(panels.log_fragments, panels.log_drawn))
    input_line = Window(
        BufferControl(view.input, input_processors=[
            BeforeInput(lambda: frame.prompt_text(client), style="class:label")]),
        height=1)
    chat_line = Window(
        BufferControl(view.chat.buffer,
                      input_processors=[BeforeInput("say> ", style="class:label")]),
        height=1)
    body = HSplit([
        Window(FittedText(lambda w, h: frame.status_fragments(client, w, h)), height=1,
               style="class:status"),
        ConditionalContainer(
            Window(FittedText(lambda w, h: frame.banner_fragments(client, w, h)),
                   height=Dimension(min=1, max=4), dont_extend_height=True,
                   style="class:banner"), filter=banner),
        ConditionalContainer(main, filter=~panel_open),
        ConditionalContainer(panel, filter=panel_open & ~log_panel),
        ConditionalContainer(log_page, filter=log_panel),
        Window(height=1, char="─", style="class:separator"),
        Window(FittedText(view.hand_line.fragments), height=Dimension(min=1, max=8),
               dont_extend_height=True),
        Window(FittedText(view.message_line.pane), height=Dimension(min=1, max=2),
               dont_extend_height=True),
        ConditionalContainer(input_line, filter=~chatting),
        ConditionalContainer(chat_line, filter=chatting),
        Window(FormattedTextControl(
            lambda: [("class:keys", frame.keys_text(client, view.panel, view.chatting))]),
            height=1, style="class:keys"),
    ])
    return Layout(body, focused_element=view.input)
