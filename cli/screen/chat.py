"""The chat line (m): a line of its own in the input's place while the person writes."""

from __future__ import annotations

from prompt_toolkit.buffer import Buffer


class ChatLine:
    """Whether the person is writing a chat line, and what they wrote so far."""

    def __init__(self) -> None:
        self.chatting = False
        self.buffer = Buffer(multiline=False)

    def start(self) -> None:
        self.chatting = True
        self.buffer.reset()

    def stop(self) -> str:
        """Close the line; what was written on it (stripped)."""
        text = self.buffer.text.strip()
        self.chatting = False
        self.buffer.reset()
        return text
