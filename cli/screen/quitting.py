"""The quit question: the first Ctrl-Q (or Ctrl-C) asks, a second one quits, any other
key takes the question back (so a stray key never ends a game, and Enter pressed at the
question does not play the selection the person forgot was there)."""

from __future__ import annotations

#: What the first Ctrl-Q (or Ctrl-C) asks (the message line), naming the key pressed.
QUIT_PLAIN = "Quit? {key} again leaves. Any other key goes on."
QUIT_QUESTION = ("Quit? {key} again leaves; your game is saved and `tractor resume` "
                 "continues it. Any other key goes on.")


class QuitQuestion:
    """Whether the question is open, and whether the person answered it by quitting."""

    def __init__(self) -> None:
        self.pending = False  #: asked, not answered yet
        self.requested = False  #: the person quits
        self.key = "Ctrl-Q"  #: the key that asked: the question names it
        self._asked_now = False

    def press(self, key: str, game_over: bool) -> bool:
        """Ctrl-Q or Ctrl-C (``key``) pressed: True if the person quits now (the second
        press, or any press once the game is over); else the question is asked."""
        self.key = key
        if self.pending or game_over:
            self.requested = True
            return True
        self.pending = True
        self._asked_now = True
        return False

    def dismiss(self) -> None:
        """Another key came: the question is taken back."""
        self.pending = False

    def key_pressed(self) -> None:
        """After every key: a key other than the one that asked takes the question back."""
        if self._asked_now:
            self._asked_now = False
        elif self.pending and not self.requested:
            self.pending = False

    def question(self, table_stopped: bool) -> str:
        """The question, naming the key; a table that stopped (a halt, a verdict) is not
        one `tractor resume` goes on, so it promises nothing then."""
        return (QUIT_PLAIN if table_stopped else QUIT_QUESTION).format(key=self.key)
