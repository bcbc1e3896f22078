"""The panel that takes the table's place (help, tracker, last trick, log, declarations,
summary): which one is open, its text fitted to its window, and how far it is scrolled.

A panel taller than its window shows a page and a line saying how to see the rest; the
log panel shows the newest lines unless scrolled back. The drawing is what knows the
window's size, so it reports it (`drawn`) and the scroll is kept within the lines there.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from tractor.cli.screen import render
from tractor.cli.screen.hidden_play import log_note
from tractor.cli.screen.panel_text import log_page, panel_text
from tractor.cli.seat.client import TableClient


class PageScroll:
    """The first line shown of an information panel taller than its window."""

    def __init__(self) -> None:
        self.top = 0
        self.page = 10  #: the lines of a page at the panel's last drawing
        self._seen: str | None = None  #: the panel last drawn: a new one starts at its top

    def fit(self, lines: list[str], panel: str | None, width: int,
            height: int) -> StyleAndTextTuples:
        """``lines`` in ``height`` rows: all of them, or a page and a line saying how to
        see the rest. Changes nothing (it is also asked at sizes it is not drawn at)."""
        if len(lines) <= height:
            return [("", "\n".join(lines))]
        page = max(1, height - 1)
        top = 0 if self._seen != panel else max(0, min(self.top, len(lines) - page))
        shown = lines[top:top + page]
        more = (f"── lines {top + 1}-{top + len(shown)} of {len(lines)} · PgUp PgDn ↑ ↓ "
                "scroll · Esc closes")
        return [("", "\n".join(shown) + "\n"), ("class:dim", more[:width])]

    def drawn(self, panel: str | None, line_count: int, height: int) -> None:
        """``panel`` was drawn with ``line_count`` lines in ``height`` rows."""
        if self._seen != panel:
            self._seen, self.top = panel, 0
        self.page = max(1, height - 1)
        self.top = max(0, min(self.top, line_count - self.page))

    def scroll(self, lines: int) -> None:
        """Down ``lines`` (up when negative); the drawing keeps it within the panel."""
        self.top = max(0, self.top + lines)


class LogScroll:
    """How far back the log panel is scrolled: lines back from the newest."""

    def __init__(self) -> None:
        self.back = 0
        #: The page and the line count at the last drawing (what PgUp/PgDn move by, how
        #: far back there is).
        self.page = 10
        self.lines = 0

    def drawn(self, line_count: int, height: int) -> None:
        """The log was drawn as ``line_count`` lines in ``height`` rows: a scroll past the
        oldest line stops there."""
        self.page = max(1, height - 2)
        self.lines = line_count
        self.back = max(0, min(self.back, self.lines - self.page))

    def to_newest(self) -> None:
        self.back = 0

    def scroll(self, lines: int | None) -> None:
        """``lines`` back (negative: forward; None: to the oldest)."""
        top = max(0, self.lines - self.page)
        # To the oldest: as far back as there are lines (the drawing stops at the top,
        # whatever the size it is drawn at).
        self.back = self.lines if lines is None else max(0, min(top, self.back + lines))


class Panels:
    """Which panel is open (None: the table shows), what it shows, and its scroll. The
    summary comes back when another panel closes while a hand's summary is due."""

    def __init__(self, client: TableClient) -> None:
        self.client = client
        self.current: str | None = None
        self.pages = PageScroll()
        self.log = LogScroll()

    def show(self, panel: str) -> None:
        """Open an information panel, or close it when it is open."""
        self.current = None if self.current == panel else panel
        if self.current == "log":
            self.log.to_newest()
        self._restore_due()

    def close(self) -> None:
        self.current = None
        self._restore_due()

    def _restore_due(self) -> None:
        if self.current is None and self.client.summary() is not None:
            self.current = "summary"

    def text(self, width: int = 80, height: int = 16) -> str:
        """The open panel's text, unwrapped."""
        return panel_text(self.current, self.client, width, height, self.log.back)

    def _lines(self, width: int, height: int) -> list[str]:
        lines: list[str] = []
        for line in self.text(width, height).split("\n"):
            indent = " " * (len(line) - len(line.lstrip()) + 2)
            lines += (render.wrap_words(line, width, indent, self.client.names)
                      if line.strip() else [""])
        return lines

    def fragments(self, width: int, height: int) -> StyleAndTextTuples:
        """An information panel fitted to its window: wrapped between words; when it is
        taller than the window, a page of it and a line saying how to see the rest."""
        return self.pages.fit(self._lines(width, height), self.current, width, height)

    def drawn(self, width: int, height: int) -> None:
        """The panel was drawn at this size: a new panel starts at its top; the scroll
        stays within its lines; a page is what PgUp/PgDn move by."""
        self.pages.drawn(self.current, len(self._lines(width, height)), height)

    def log_fragments(self, width: int, height: int) -> StyleAndTextTuples:
        """The log panel: a page of the whole log, the newest at the bottom unless
        scrolled."""
        return log_page(self.client.events(), self.client.names, self.log.back, width, height,
                        log_note(self.client.rules))

    def log_drawn(self, width: int, height: int) -> None:
        noted = log_note(self.client.rules) is not None  # its line stays under the title
        self.log.drawn(len(render.log_lines(self.client.events(), width, self.client.names)),
                       height - noted)
