"""The terminal client's one error root: what ends a command, or one answer, on purpose.

Under it: `Interrupted` (Ctrl-C typed at a prompt that reads it as a key), `GaveUp` (a
prompt's input ended), `SelectionError` (cards typed that cannot be read against the hand),
`AddressError` (an address that cannot be read) and `AiStopped` (an AI peer's process
ended before it was seated).
"""

from __future__ import annotations

from tractor.errors import TractorError


class CliError(TractorError):
    """What ends a command, or one answer, on purpose."""
