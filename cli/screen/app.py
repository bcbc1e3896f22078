"""The full-screen terminal client: a prompt_toolkit `Application` on a `TableClient`.

The screen is the table (left) and the event log (right) above the hand, a message line,
the selection input and a key bar. The input line *is* the selection: typing cards and
pressing Space on the hand cursor edit the same text, so both ways of choosing agree and
an illegal play stays where it was typed, with the rules core's reason under it. The
command letters (``e i l o g m n p ?``) act while nothing is being typed (the input empty,
or holding only what the hint or Space selected): once the person types, every key is
text. Tab completes the card being typed from the cards held (when
following, those that can follow), its choices listed in the message line, never over
the hand. Panels (help, tracker, last trick, log, declarations, hand summary) take the
table's place and keep the hand in view.

Run it with ``await run_app(client)`` on the asyncio loop (the Twisted asyncio reactor
included, see ENGINEERING-NOTES.md); never ``app.run()`` inside a running loop.

This module makes the `Application`; the parts are in their own modules: the state and
what the keys do (`cli.screen.view.PlayView`, with its parts), the keys
(`cli.screen.bindings`), the windows and the style sheet (`cli.screen.layout`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.input import Input
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Char, Screen, WritePosition
from prompt_toolkit.output import ColorDepth, Output

from tractor.cli.screen import card_text
from tractor.cli.screen.bindings import key_bindings
from tractor.cli.screen.layout import layout, style
from tractor.cli.screen.panel_text import AUCTION_KEYS, KEYS, LEGEND, keys_for
from tractor.cli.screen.quitting import QUIT_PLAIN, QUIT_QUESTION
from tractor.cli.screen.view import PlayView
from tractor.cli.seat.client import TableClient

#: What callers take from here (the commands, the tests); the rest is in its own module.
__all__ = ["AUCTION_KEYS", "KEYS", "LEGEND", "QUIT_PLAIN", "QUIT_QUESTION", "PlayView",
           "build_app", "capture", "keys_for", "run_app", "view_of"]


def build_app(client: TableClient, input: Input | None = None,
              output: Output | None = None) -> Application[Any]:
    """The play screen on ``client``; ``input``/``output`` for tests (pipe input, dummy
    output). Sets ``client.on_change`` so the screen redraws when the table moves. The view
    state is ``app.tractor_view`` (`PlayView`)."""
    view = PlayView(client)
    color = card_text.use_color()
    app: Application[Any] = Application(
        layout=layout(view),
        key_bindings=key_bindings(view),
        style=style(color),
        full_screen=True,
        mouse_support=False,
        input=input,
        output=output,
        color_depth=None if color else ColorDepth.DEPTH_1_BIT,
    )
    app.ttimeoutlen = 0.1  # a lone Esc closes a panel without a long wait
    view.app = app
    app.tractor_view = view  # type: ignore[attr-defined]

    app.before_render += lambda _app: view.focus()
    app.key_processor.before_key_press += lambda _kp: view.trick_hold.key_starts()
    app.key_processor.after_key_press += lambda _kp: view.key_pressed()
    client.on_change = view.changed
    return app


def view_of(app: Application[Any]) -> PlayView:
    """The `PlayView` of an app made by `build_app`."""
    return app.tractor_view  # type: ignore[attr-defined,no-any-return]


async def run_app(client: TableClient, input: Input | None = None,
                  output: Output | None = None) -> None:
    """Run the play screen until the person quits (await it on the running loop)."""
    app = build_app(client, input=input, output=output)
    try:
        await app.run_async()
    finally:
        client.on_change = None


def capture(app: Application[Any], width: int = 80, height: int = 24) -> str:
    """The screen as text at ``width`` x ``height`` without a terminal (README captures and
    layout checks). Works with or without a running event loop."""

    async def draw() -> str:
        screen = Screen(default_char=Char(" ", ""), initial_width=width, initial_height=height)
        app.render_counter += 1  # controls cache their content per render
        with set_app(app):
            app.layout.container.write_to_screen(
                screen, MouseHandlers(), WritePosition(0, 0, width, height), parent_style="",
                erase_bg=False, z_index=None)
            screen.draw_all_floats()
        rows = [screen.data_buffer[y] for y in range(height)]
        return "\n".join("".join(r[x].char for x in range(width)).rstrip() for r in rows)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(draw())
    coro = draw()
    try:  # inside a running loop: the drawing itself never awaits
        coro.send(None)
    except StopIteration as done:
        return str(done.value)
    raise RuntimeError("capture could not draw synchronously")
