"""The other seats' table messages, each waiting for its turn in the schedule, and the chat."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import TypeVar, overload

from tractor.net.table.errors import TableError
from tractor.net.table.messages import MAX_CHAT, Chat, TableMessage, describe

M = TypeVar("M", bound=TableMessage)
N = TypeVar("N", bound=TableMessage)


class Inbox:
    """Per seat, its table messages in its chain's order, not yet applied (with their
    message numbers); the chat lines, which never wait (they take no turn)."""

    def __init__(self, seats: int) -> None:
        self.queues: list[deque[tuple[TableMessage, int]]] = [deque() for _ in range(seats)]
        self.chat: list[tuple[int, str]] = []  #: (seat, text), in the order applied
        #: Chat lines waiting for the deck to be ready: a table message sent during the
        #: set-up would take a place in this seat's chain before its own set-up messages.
        self.chat_out: list[str] = []
        self._chats = [0] * seats  #: chat lines per seat taken (this seat's too)
        #: Messages in the queues: asked after every step of the table (`waiting`), so
        #: counted as they come and go rather than summed each time.
        self._count = 0
        #: Whether a message at the head of a seat's chain is void (dropped unapplied: a
        #: take-back that came too late, `net.table.takebacks`); it may refuse one.
        self.void: Callable[[int, TableMessage], bool] | None = None

    def sort(self, arrived: Iterable[tuple[int, TableMessage, int]]) -> None:
        """Take the deck's newly applied messages: (seat, message, its number)."""
        for seat, data, seq in arrived:
            if isinstance(data, Chat):  # shown on terminals: printable characters
                self._chats[seat] += 1
                self.chat.append((seat, "".join(c for c in data.text if c.isprintable())))
            else:
                self.queues[seat].append((data, seq))
                self._count += 1

    def say(self, text: str) -> None:
        """A chat line of this seat, sent once the deck is ready (`chat_out`)."""
        text = " ".join(text.split())[:MAX_CHAT]
        if text:
            self.chat_out.append(text)

    def chats_of(self, seat: int) -> int:
        return self._chats[seat]

    def waiting(self) -> int:
        """Messages not yet applied, every seat's."""
        return self._count

    def empty(self, seat: int) -> bool:
        return not self.queues[seat]

    @overload
    def peek(self, seat: int, kind: type[M], /) -> M | None:
        ...

    @overload
    def peek(self, seat: int, kind: type[M], other: type[N], /) -> M | N | None:
        ...

    # The implementations take plain types: mypy does not take ``type[M]``, M bound to a
    # union, for ``type[TableMessage]``.
    def peek(self, seat: int, *kinds: type) -> TableMessage | None:
        """The seat's next message if it is of one of ``kinds``; None if none came yet."""
        return self._next(seat, kinds)

    def head(self, seat: int) -> TableMessage | None:
        """The seat's next message, whatever its kind (void ones dropped first)."""
        q = self.queues[seat]
        while q and self.void is not None and self.void(seat, q[0][0]):
            q.popleft()
            self._count -= 1
        return q[0][0] if q else None

    def _next(self, seat: int, kinds: tuple[type, ...]) -> TableMessage | None:
        self.head(seat)
        q = self.queues[seat]
        if q and not isinstance(q[0][0], kinds):
            raise TableError(seat, f"expected {describe(kinds[0])}, got {describe(q[0][0])}")
        return q[0][0] if q else None

    @overload
    def take(self, seat: int, kind: type[M], /) -> tuple[M, int] | None:
        ...

    @overload
    def take(self, seat: int, kind: type[M], other: type[N], /
             ) -> tuple[M | N, int] | None:
        ...

    def take(self, seat: int, *kinds: type) -> tuple[TableMessage, int] | None:
        """The seat's next message (of one of ``kinds``) and its number, taken; None if
        none came yet."""
        if self._next(seat, kinds) is None:
            return None
        self._count -= 1
        return self.queues[seat].popleft()

    def drop(self, seat: int) -> int:
        """Take the seat's next message (peeked already); returns its number."""
        self._count -= 1
        return self.queues[seat].popleft()[1]
