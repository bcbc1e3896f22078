"""The play screen's keys: which key does what, in which mode of the screen.

The modes are filters on the view's state: normal play, a command letter while nothing
is typed, an information panel, the declaration panel, the summary, the log panel, the
chat line, the quit question. Every key's action runs guarded: a failure becomes a line
on the message line, never a traceback over the game.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.filters import Condition, Filter, has_completions
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from tractor.cli.screen.message_line import Notes
from tractor.cli.screen.panes import safe
from tractor.cli.screen.view import PlayView
from tractor.phases import Decision

Handler = Callable[[KeyPressEvent], None]
Bind = Callable[..., Callable[[Handler], Handler]]


class Modes:
    """The screen's modes, as prompt_toolkit filters on the view."""

    def __init__(self, view: PlayView) -> None:
        self.panel_open = Condition(lambda: view.panel is not None)
        self.chatting = Condition(lambda: view.chatting)
        self.normal = ~self.panel_open & ~self.chatting
        self.declaring = Condition(lambda: view.panel == "declare") & ~self.chatting
        self.summary = Condition(lambda: view.panel == "summary") & ~self.chatting
        self.info_panel = self.panel_open & ~self.declaring & ~self.summary & ~self.chatting
        self.log_panel = Condition(lambda: view.panel == "log") & ~self.chatting
        # Command letters act unless the person types: then letters are text.
        self.idle = self.normal & Condition(lambda: not view.typing())
        # Other panels scroll when they are taller than their window.
        self.scrolling = self.panel_open & ~self.log_panel & ~self.chatting
        self.asked = Condition(lambda: view.quit_pending)
        # At a bid, p is text: a pass is final, so it takes Enter.
        self.bidding = Condition(safe(lambda: view.client.decision() == Decision.BID))


def key_bindings(view: PlayView) -> KeyBindings:
    """Every key of the play screen on ``view``."""
    kb = KeyBindings()

    def bind(*keys: str | Keys, filter: Filter | bool = True,
             eager: bool = False) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            kb.add(*keys, filter=filter, eager=eager)(_guard(view.notes, fn))
            return fn
        return deco

    modes = Modes(view)
    _quit_keys(bind, view, modes)
    _hand_keys(bind, view, modes)
    _command_keys(bind, view, modes)
    _panel_keys(bind, view, modes)
    # Chat line.
    bind("enter", filter=modes.chatting)(lambda e: view.send_chat())
    bind("escape", filter=modes.chatting, eager=True)(lambda e: view.cancel_chat())
    return kb


def _guard(notes: Notes, fn: Handler) -> Handler:
    """Run a key's action; any failure becomes a message instead of a traceback."""

    def handler(event: KeyPressEvent) -> None:
        try:
            fn(event)
        except Exception as exc:
            # A process edge: prompt_toolkit calls the key's action, and a failure there
            # would end the screen (and the game) with a traceback.
            notes.error = f"error: {exc}"

    handler.__name__ = getattr(fn, "__name__", "key")
    return handler


def _key_name(event: KeyPressEvent) -> str:
    """"Ctrl-C" or "Ctrl-Q": the quit question names the key the person pressed."""
    return "Ctrl-C" if event.key_sequence[0].key == Keys.ControlC else "Ctrl-Q"


def _quit_keys(bind: Bind, view: PlayView, modes: Modes) -> None:
    @bind("c-q")
    @bind("c-c")
    def _quit(event: KeyPressEvent) -> None:
        view.ask_quit(_key_name(event))

    # While the quit question is open, any other key only takes it back (Enter must not
    # play the selection the person forgot was there).
    @bind(Keys.Any, filter=modes.asked, eager=True)
    def _not_quitting(event: KeyPressEvent) -> None:
        if event.key_sequence[0].key in (Keys.ControlQ, Keys.ControlC):
            view.ask_quit(_key_name(event))
        else:
            view.quitting.dismiss()


def _hand_keys(bind: Bind, view: PlayView, modes: Modes) -> None:
    """Normal play: the hand cursor and the selection."""
    hand, normal = view.hand_line, modes.normal
    bind("left", filter=normal)(lambda e: hand.move(-1))
    bind("right", filter=normal)(lambda e: hand.move(1))
    bind("home", filter=normal)(lambda e: hand.to_first())
    bind("end", filter=normal)(lambda e: hand.to_last())
    bind("up", filter=normal & ~has_completions)(lambda e: hand.move_row(-1))
    bind("down", filter=normal & ~has_completions)(lambda e: hand.move_row(1))
    bind(" ", filter=normal)(lambda e: hand.space())
    bind("tab", filter=normal)(lambda e: view.complete(1))
    bind("s-tab", filter=normal)(lambda e: view.complete(-1))

    @bind("enter", filter=normal)
    def _enter(event: KeyPressEvent) -> None:
        state = view.input.complete_state
        if state is not None and state.current_completion is not None:
            view.input.apply_completion(state.current_completion)  # Enter plays the line
        view.input.cancel_completion()
        view.enter()

    @bind("escape", filter=normal, eager=True)
    def _escape(event: KeyPressEvent) -> None:
        view.clear()


def _command_keys(bind: Bind, view: PlayView, modes: Modes) -> None:
    """Commands: letters that are never part of card text, and only while nothing is
    typed."""

    def command(letter: str, action: Callable[[], None], filter: Filter = modes.idle) -> None:
        def run(event: KeyPressEvent) -> None:
            action()

        for key in {letter, letter.upper()}:
            bind(key, filter=filter)(run)

    idle, declaring, summary = modes.idle, modes.declaring, modes.summary
    command("i", view.hint, idle | declaring)  # in the declaration panel: a suggestion
    command("l", lambda: view.show("last"), idle | modes.info_panel | summary)
    command("o", lambda: view.show("tracker"), idle | modes.info_panel)
    command("g", lambda: view.show("log"), idle | modes.info_panel | summary)
    command("?", lambda: view.show("help"), idle | modes.info_panel | declaring | summary)
    command("e", view.open_declare)
    # At a bid, p is text ("p" or "pass", then Enter): as a command the p of a typed
    # "pass" passed at once and "ass" spilled into the next prompt.
    command("p", view.pass_declaration, (idle & ~modes.bidding) | declaring)
    command("m", view.start_chat)
    command("u", view.take_back)
    command("n", view.next_hand, idle | summary)


def _panel_keys(bind: Bind, view: PlayView, modes: Modes) -> None:
    """Panels: they scroll; information panels close; the declaration panel takes
    numbers; the summary goes on to the next hand."""
    pages, log = view.panels.pages, view.panels.log
    scrolling, log_panel = modes.scrolling, modes.log_panel
    # A page is what was drawn last.
    bind("pageup", filter=scrolling)(lambda e: pages.scroll(-max(1, pages.page - 1)))
    bind("pagedown", filter=scrolling)(lambda e: pages.scroll(max(1, pages.page - 1)))
    bind("up", filter=scrolling)(lambda e: pages.scroll(-1))
    bind("down", filter=scrolling)(lambda e: pages.scroll(1))
    bind("pageup", filter=log_panel)(lambda e: log.scroll(max(1, log.page - 1)))
    bind("pagedown", filter=log_panel)(lambda e: log.scroll(-max(1, log.page - 1)))
    bind("up", filter=log_panel)(lambda e: log.scroll(1))
    bind("down", filter=log_panel)(lambda e: log.scroll(-1))
    bind("home", filter=log_panel)(lambda e: log.scroll(None))
    bind("end", filter=log_panel)(lambda e: log.to_newest())

    declaring = modes.declaring
    for key in ("escape", "enter", "q", " "):
        bind(key, filter=modes.info_panel, eager=key == "escape")(lambda e: view.close_panel())
    bind("escape", filter=declaring, eager=True)(lambda e: _hide_panel(view))
    # Enter in the declaration panel: the typed offer or cards, else a word on what to do.
    bind("enter", filter=declaring)(lambda e: _declare_enter(view))
    for number in range(1, 10):
        bind(str(number), filter=declaring)(_declare_key(view, number - 1))
    bind("0", filter=declaring)(lambda e: view.pass_declaration())
    bind("enter", filter=modes.summary)(lambda e: view.next_hand())
    bind(" ", filter=modes.summary)(lambda e: view.next_hand())
    # Panels swallow typing.
    bind(Keys.Any, filter=modes.panel_open & ~modes.chatting)(lambda e: None)


def _declare_key(view: PlayView, index: int) -> Handler:
    """A number key of the declaration panel: the declaration listed at ``index``."""

    def declare(event: KeyPressEvent) -> None:
        view.declare_option(index)

    return declare


def _hide_panel(view: PlayView) -> None:
    view.panel = None


def _declare_enter(view: PlayView) -> None:
    # (a hint still being worked out: Enter plays it when it comes, as elsewhere)
    if view.input.text.strip() or view.hint_pending:
        view.enter()
    else:
        view.info = "Press the number of a declaration, or p to let it go by."

