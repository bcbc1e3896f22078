"""The full-screen watch view: a watcher's `Application` on a `WatcherClient`.

The seat's screen (`cli.screen.app`) is built around a hand and an input line; a watcher
has neither. This screen shows what the seat's shows of the public game, with the same
drawing functions: the status bar, a banner saying it watches, the table (every seat's
name, side, level and cards left around the trick, the declarations, the points, the log
beside), the panels a seat opens (the tracker, the last trick, the log, the hand's
summary, help), and a key bar. Its keys only look: a watcher makes no move, so ``q``
leaves at once (nothing is lost).

`WatchView` is the state (the panel open, its scroll); `watch_bindings` its keys;
`build_watch_app` puts them in windows.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, Dimension, HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output

from tractor.cli.screen import card_text, frame, render
from tractor.cli.screen.layout import style
from tractor.cli.screen.panels import Panels
from tractor.cli.screen.panes import FittedText
from tractor.cli.seat.watcher_client import WatcherClient

#: The keys of the watch view (its help panel lists them).
WATCH_KEYS: list[tuple[str, str]] = [
    ("o", "the tracker: cards played and still out, per suit"),
    ("l", "the last trick"),
    ("g", "the whole log (PgUp PgDn ↑ ↓ scroll it)"),
    ("s", "the last hand's summary"),
    ("?", "this help"),
    ("Esc", "close a panel"),
    ("q", "stop watching (Ctrl-Q, Ctrl-C too)"),
]
KEY_BAR = " o tracker · l last trick · g log · s summary · ? help · q quit "
PANEL_BAR = " Esc close · PgUp PgDn scroll · q quit "
LEGEND = ("At the table: ▶ the seat to play · ★ the starter · led / won: the trick's "
          "leader and the winner of the trick just played.")


class WatchPanels(Panels):
    """The seat's panels, with the watcher's help and a summary that waits for nobody."""

    def __init__(self, client: WatcherClient) -> None:
        super().__init__(client)
        self.watcher = client

    def text(self, width: int = 80, height: int = 16) -> str:
        if self.current == "help":
            return ("Keys\n" + render.help_text(WATCH_KEYS) + "\n\n" + LEGEND
                    + "\n\nYou are watching: you see no hand. Esc closes this help.")
        if self.current == "summary":
            summary, obs = self.watcher.last_summary(), self.watcher.summary_observation
            if summary is None or obs is None:
                return "No hand has ended since you came.\n\nEsc closes."
            return (render.summary_text(summary, obs, self.client.names, width, height - 2)
                    + "\n\nEsc: back to the table.")
        return super().text(width, height)

    def close(self) -> None:
        self.current = None  # (a watcher's summary does not come back: nobody waits on it)


class WatchView:
    """The watch screen's state: the panel in the table's place and its scroll."""

    def __init__(self, client: WatcherClient) -> None:
        self.client = client
        self.panels = WatchPanels(client)
        self.app: Application[Any] | None = None
        self._summary_seen: object = None  #: the summary last opened by itself

    @property
    def panel(self) -> str | None:
        return self.panels.current

    def show(self, panel: str) -> None:
        """Open ``panel`` (or close it when it is open)."""
        self.panels.show(panel)

    def close_panel(self) -> None:
        self.panels.close()

    def changed(self) -> None:
        """The game moved: a hand's new summary opens by itself; the screen redraws."""
        summary = self.client.last_summary()
        if summary is not None and summary is not self._summary_seen:
            self._summary_seen = summary
            if self.panels.current is None:
                self.panels.current = "summary"
        if self.app is not None:
            self.app.invalidate()

    def quit(self) -> None:
        if self.app is not None:
            self.app.exit()


def watch_bindings(view: WatchView) -> KeyBindings:
    """Every key of the watch view."""
    kb = KeyBindings()
    panel_open = Condition(lambda: view.panel is not None)
    log_panel = Condition(lambda: view.panel == "log")
    scrolling = panel_open & ~log_panel
    pages, log = view.panels.pages, view.panels.log

    def key(*keys: str | Keys, filter: Any = True, eager: bool = False) -> Any:
        return kb.add(*keys, filter=filter, eager=eager)

    for quit_key in ("q", "Q", "c-q", "c-c"):
        key(quit_key)(lambda e: view.quit())
    for letter, panel in (("o", "tracker"), ("l", "last"), ("g", "log"), ("s", "summary"),
                          ("?", "help")):
        key(letter)(_opener(view, panel))
        key(letter.upper())(_opener(view, panel))
    for close_key in ("escape", "enter", " "):
        key(close_key, filter=panel_open, eager=close_key == "escape")(
            lambda e: view.close_panel())
    key("pageup", filter=scrolling)(lambda e: pages.scroll(-max(1, pages.page - 1)))
    key("pagedown", filter=scrolling)(lambda e: pages.scroll(max(1, pages.page - 1)))
    key("up", filter=scrolling)(lambda e: pages.scroll(-1))
    key("down", filter=scrolling)(lambda e: pages.scroll(1))
    key("pageup", filter=log_panel)(lambda e: log.scroll(max(1, log.page - 1)))
    key("pagedown", filter=log_panel)(lambda e: log.scroll(-max(1, log.page - 1)))
    key("up", filter=log_panel)(lambda e: log.scroll(1))
    key("down", filter=log_panel)(lambda e: log.scroll(-1))
    key("home", filter=log_panel)(lambda e: log.scroll(None))
    key("end", filter=log_panel)(lambda e: log.to_newest())
    return kb


def _opener(view: WatchView, panel: str) -> Any:
    def open_panel(event: KeyPressEvent) -> None:
        view.show(panel)
    return open_panel


def watch_layout(view: WatchView) -> Layout:
    """Status bar, banner, the table (or a panel), key bar."""
    client, panels = view.client, view.panels
    panel_open = Condition(lambda: view.panel is not None)
    log_panel = Condition(lambda: view.panel == "log")
    table = Window(FittedText(lambda w, h: frame.table_pane(client, w, h)))
    panel = Window(FittedText(panels.fragments, panels.drawn))
    log_page = Window(FittedText(panels.log_fragments, panels.log_drawn))
    keys = Window(FormattedTextControl(
        lambda: [("class:keys", PANEL_BAR if view.panel is not None else KEY_BAR)]),
        height=1, style="class:keys")
    body = HSplit([
        Window(FittedText(lambda w, h: frame.status_fragments(client, w, h)), height=1,
               style="class:status"),
        Window(FittedText(lambda w, h: frame.banner_fragments(client, w, h)),
               height=Dimension(min=1, max=4), dont_extend_height=True, style="class:banner"),
        ConditionalContainer(table, filter=~panel_open),
        ConditionalContainer(panel, filter=panel_open & ~log_panel),
        ConditionalContainer(log_page, filter=log_panel),
        keys,
    ])
    return Layout(body)


def build_watch_app(client: WatcherClient, input: Input | None = None,
                    output: Output | None = None) -> Application[Any]:
    """The watch view on ``client``; ``input``/``output`` for tests. Sets
    ``client.on_change``. The state is ``app.tractor_view`` (`WatchView`)."""
    view = WatchView(client)
    color = card_text.use_color()
    app: Application[Any] = Application(
        layout=watch_layout(view), key_bindings=watch_bindings(view), style=style(color),
        full_screen=True, mouse_support=False, input=input, output=output,
        color_depth=None if color else ColorDepth.DEPTH_1_BIT)
    app.ttimeoutlen = 0.1  # a lone Esc closes a panel without a long wait
    view.app = app
    app.tractor_view = view  # type: ignore[attr-defined]
    client.on_change, client.on_close = view.changed, view.quit
    view.changed()
    return app


async def run_watch_app(client: WatcherClient, input: Input | None = None,
                        output: Output | None = None) -> None:
    """Run the watch view until the person quits (await it on the running loop)."""
    app = build_watch_app(client, input=input, output=output)
    try:
        await app.run_async()
    finally:
        client.on_change = client.on_close = None
