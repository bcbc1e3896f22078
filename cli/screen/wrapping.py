"""Text fitted to a width: broken between words, never inside a card, a name, or a word
and its number ("AI 3", "8 cards"); a one-line bar cut between words with "…".

The screens' panes, panels and bars all fit their text here, so they break lines alike.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

#: A space no line is broken at: `glued` puts it where words belong together and
#: `wrap_words` makes it a plain space again (a name cannot hold one: it is not printable).
GLUE = "\u00a0"
#: A word and the number it goes with: "AI 3", "lv 2", "trick 7", "bury 8".
_WORD_NUMBER = re.compile(r"(?<![^\s(])([A-Za-z]+) (?=[+−-]?\d+(?![^\s,.:;)]))")
#: A number and what it counts: "8 cards", "20 points".
_NUMBER_UNIT = re.compile(r"(?<![^\s(])([+−-]?\d+) (?=(?:cards?|points?|levels?|pts)"
                          r"(?![^\s,.:;)]))")


def glued(text: str, keep: Sequence[str] = ()) -> str:
    """``text`` with `GLUE` between the words a line must not part: the phrases ``keep``
    (names of several words), a word and its number, a number and its unit.

    >>> glued("you take the talon: bury 8 cards").replace(GLUE, "_")
    'you take the talon: bury_8_cards'
    >>> glued("trick 7 to Ann Lee: 10 points", ["Ann Lee"]).replace(GLUE, "_")
    'trick_7 to Ann_Lee: 10_points'
    """
    for phrase in sorted({k for k in keep if " " in k}, key=len, reverse=True):
        text = re.sub(rf"(?<!\S){re.escape(phrase)}(?![^\s,.:;)])",
                      phrase.replace(" ", GLUE), text)
    text = _WORD_NUMBER.sub(rf"\1{GLUE}", text)
    return _NUMBER_UNIT.sub(rf"\1{GLUE}", text)


def wrap_words(text: str, width: int, indent: str = "", keep: Sequence[str] = ()) -> list[str]:
    """``text`` in lines of at most ``width``, broken between words (a card is one word,
    so never inside a card), never inside a name of ``keep``, between a word and its
    number or a number and its unit (`glued`); at least one line. Only a piece longer
    than a whole line is broken inside."""
    lines = textwrap.wrap(glued(text, keep), max(1, width), subsequent_indent=indent,
                          break_on_hyphens=False) or [""]
    return [line.replace(GLUE, " ") for line in lines]


def fit_line(text: str, width: int | None, optional: str = "") -> str:
    """``text`` in ``width`` columns: without its ``optional`` start if that is what it
    takes, else cut between words with "…" (a one-line bar cannot wrap, and a terminal
    cutting it would cut a word or a name in two).

    >>> fit_line("Tractor · hand 1 · waiting for Bartholomew", 30, "Tractor · ")
    'hand 1 · waiting for …'
    """
    if width is None or len(text) <= width:
        return text
    if optional and text.startswith(optional):
        text = text[len(optional):]
        if len(text) <= width:
            return text
    cut = text[:max(0, width - 1)]
    if " " in cut and not text[len(cut)].isspace():
        cut = cut[:cut.rindex(" ") + 1]
    return cut + "…"


def wrap_or_whole(text: str, width: int | None, indent: str) -> list[str]:
    """``text`` broken between words (a card is one word; "AI 3", "trick 4" and "8 cards"
    are kept together, `wrap_words`) into lines of ``width``; None: the whole text, one line."""
    if width is None:
        return [text]
    return wrap_words(text, width, indent)


def pack(parts: Sequence[str], width: int | None, first: str, rest: str,
         sep: str) -> list[str]:
    """``parts`` joined by ``sep`` into as few lines as they fit, the first line starting
    with ``first``, the others with ``rest``; a part is broken only when it alone is wider
    than a line."""
    lines: list[str] = []
    line = ""
    for part in parts:
        lead = first if not lines and not line else rest
        candidate = line + sep + part if line else lead + part
        if width is None or len(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
            lead = rest
        block = wrap_or_whole(lead + part, width, rest)
        lines += block[:-1]
        line = block[-1]
    if line:
        lines.append(line)
    return lines
