"""The one root of the errors tractor raises on purpose, and the rules core's own root.

Each layer has one root under `TractorError`, so a caller catches what it means and lets a
bug (any other exception) through:

- `CoreError` (here): what the rules core refuses: card text it cannot read, an action the
  rules forbid, rules that do not go together, data that is not a game. It is also a
  `ValueError`, as the rules API has always promised (``CardParseError (a ValueError)``).
- `tractor.net.errors.NetError`: what a peer, the network or a journal file did that this
  peer refuses (bad bytes, a cheat, a stall, a lobby refusal, an unusable journal).
- `tractor.cli.errors.CliError`: what ends a command on purpose (Ctrl-C at a prompt, a
  person giving up, an address or a selection that cannot be read).

>>> from tractor import parse_cards
>>> try:
...     parse_cards("AS 11H")
... except TractorError as error:
...     print(type(error).__name__, isinstance(error, CoreError), isinstance(error, ValueError))
CardParseError True True
"""

from __future__ import annotations


class TractorError(Exception):
    """Every error tractor raises on purpose."""


class CoreError(TractorError, ValueError):
    """What the rules core refuses: its errors say why in the players' own words."""
