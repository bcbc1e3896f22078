"""How fast an internet host opens seat codes: the budget that keeps them from being
guessed online, and the back-off while the mailbox cannot be reached. Pure: no Twisted,
times are given (a `Clock`'s seconds in the tests).

Why a budget. A stranger's only way to a seat of an internet table is to guess a seat code
online, and the arithmetic (also in README.md, "Playing across the internet") is:

- A seat code is a nameplate and `CODE_WORDS` = 3 words. The nameplate is a small number
  the mailbox hands out (anyone may list the nameplates in use), so it hides nothing; each
  word is picked by magic-wormhole from 256 (one random byte per word, the PGP word list):
  256**3 = 16,777,216 codes behind a nameplate, so a guess is right with 1 in 16,777,216.
- A guess costs the guesser one PAKE attempt and spends the code: SPAKE2 lets the other
  side of a code try one password, the host's wormhole keys on the first side that answers
  (the mailbox admits two sides), and right or wrong the code is used up. So every code
  takes at most one guess.
- The host opens one code per free seat (at most `MAX_PLAYERS` = 12, a host that does not
  play), and replaces a code spent without seating anyone at most `REPLACED_PER_DAY` = 4
  times in any 24 hours (the third and fourth only after a wait), then asks the host. The
  codes that can be guessed in any 24 hours are those open when the day begins or opened for
  a free seat (at most 12), the replacements (at most 4), and no more unless a seated person
  leaves (their seat gets a code) or the host types `codes` (one per free seat).
- So without the host: at most 12 + 4 = 16 guesses a day, a chance of 16 / 16,777,216 =
  9.5e-7 < 1e-6 that one gets a seat (a 4-seat table: 3 + 4 = 7, 4.2e-7). Each `codes` the
  host types allows one more guess per free seat (at most 11 with the host seated: 6.6e-7).

With 2 words (magic-wormhole's default) a single guess would already be right with 1 in
65,536, over the bound: codes have 3 words.

A *watch code* (`WATCH_CODE_WORDS` = 4 words: 256**4 = 4,294,967,296 codes behind its
nameplate) lets one watcher follow an internet game (`net.internet.watch_codes`); one is
open at a time, spent by a wrong guess and replaced within a `GuessBudget` of its own. Its
length tells it from a seat code before any wormhole opens (`code_problem`), so a code
typed at the wrong command spends nothing.
"""

from __future__ import annotations

import difflib
from collections import deque

from tractor.rules import MAX_PLAYERS

#: Words after a seat code's number (see the module's arithmetic).
CODE_WORDS = 3
#: Words after a watch code's number: one more than a seat code's, so the two kinds are
#: told apart by their form.
WATCH_CODE_WORDS = 4
#: The choices for each word (magic-wormhole's PGP word list: one random byte a word).
WORD_CHOICES = 256
#: Codes spent without seating anyone (wrong guesses) that are replaced, in any 24 hours,
#: before new codes wait for the host.
REPLACED_PER_DAY = 4
#: Replacements opened at once; each later one waits `FIRST_WAIT` s, doubling.
PROMPT_REPLACEMENTS = 2
FIRST_WAIT = 30.0
DAY = 24 * 3600.0
#: The mailbox back-off: the first retry after 1 s, doubling, then once a minute.
FIRST_RETRY = 1.0
LAST_RETRY = 60.0


def guess_chance() -> float:
    """The chance that one online guess at a seat code is right."""
    codes: int = WORD_CHOICES ** CODE_WORDS  # (a whole power: typeshed cannot tell)
    return 1 / codes


def guesses_per_day(free_seats: int = MAX_PLAYERS) -> int:
    """The most codes a stranger can guess in any 24 hours while the host does nothing and
    nobody seated leaves: one per free seat open at once, and the replacements."""
    return free_seats + REPLACED_PER_DAY


class GuessBudget:
    """When a seat code spent without seating anyone (a wrong guess) may be replaced:
    the first `PROMPT_REPLACEMENTS` at once, each later one a wait after the one before (the
    wait doubling), none beyond `REPLACED_PER_DAY` in 24 hours (paused until the host
    `allow`s, or until the day has passed)."""

    def __init__(self, per_day: int = REPLACED_PER_DAY) -> None:
        self.per_day = per_day
        self.spent: deque[float] = deque()  #: when codes were spent, the last 24 hours
        self.replaced: deque[float] = deque()  #: when replacements were opened
        self.allowance = 0  #: replacements the host allowed past the budget

    def _forget(self, now: float) -> None:
        for times in (self.spent, self.replaced):
            while times and times[0] <= now - DAY:
                times.popleft()

    def spend(self, now: float) -> int:
        """A code was spent without seating anyone: how many in the last 24 hours."""
        self._forget(now)
        self.spent.append(now)
        return len(self.spent)

    def spent_today(self, now: float) -> int:
        self._forget(now)
        return len(self.spent)

    def replacement_at(self, now: float, ahead: int = 0) -> float | None:
        """When the next replacement may open (``now`` or later), or None: paused.
        ``ahead``: replacements waiting before this one. Replacement k of the last 24
        hours (from 0) opens ``FIRST_WAIT * 2**(k - PROMPT_REPLACEMENTS)`` s after the one
        before it at the earliest (the first `PROMPT_REPLACEMENTS` at once)."""
        self._forget(now)
        if self.allowance > ahead:
            return now
        at = self.replaced[-1] if self.replaced else now
        for k in range(len(self.replaced), len(self.replaced) + ahead + 1):
            if k >= self.per_day:
                return None
            wait = 0.0 if k < PROMPT_REPLACEMENTS else \
                FIRST_WAIT * 2 ** (k - PROMPT_REPLACEMENTS)
            at = max(now, at + wait)
        return at

    def opened(self, now: float) -> None:
        """A replacement was opened (counted, or taken from the host's allowance)."""
        self._forget(now)
        if self.allowance > 0:
            self.allowance -= 1
        self.replaced.append(now)

    def returned(self) -> None:
        """A replacement that never got a code (the mailbox failed): it does not count."""
        if self.replaced:
            self.replaced.pop()

    def allow(self, count: int) -> None:
        """The host asked for new codes: ``count`` replacements open now, past the budget."""
        self.allowance = max(0, count)


class MailboxBackoff:
    """Tries at a mailbox that cannot be reached: 1 s, 2 s, 4 s ... then every minute."""

    def __init__(self) -> None:
        self.down = False
        self.wait = FIRST_RETRY
        self.next_try = 0.0

    def failed(self, now: float) -> bool:
        """A try failed: True if the mailbox was thought reachable until now (say so)."""
        first = not self.down
        if first:
            self.wait = FIRST_RETRY
        else:
            self.wait = min(LAST_RETRY, self.wait * 2)
        self.down = True
        self.next_try = now + self.wait
        return first

    def reached(self) -> bool:
        """A code was allocated: True if the mailbox had been out of reach (say so)."""
        was_down, self.down = self.down, False
        return was_down

    def may_try(self, now: float) -> bool:
        return not self.down or now >= self.next_try


def _seat_words() -> tuple[set[str], set[str]] | None:
    """The words a seat code may have: (first, third... words; second, fourth...), from
    magic-wormhole's PGP word list; None without the package."""
    try:
        from wormhole._wordlist import even_words_lowercase, odd_words_lowercase
    except ImportError:
        return None
    return set(odd_words_lowercase), set(even_words_lowercase)


def code_problem(code: str, watch: bool = False) -> str | None:
    """Why ``code`` cannot be a seat code (``watch``: a watch code): a word missing, one
    not in the word list, or a code of the other kind, said before any wormhole opens: a
    typo caught here spends none of the host's codes. None if it may be one."""
    number, _, rest = code.partition("-")
    # The mailbox's nameplates are ASCII digits: `str.isdigit` takes "²" and "٣" too,
    # which the library refuses (said as a mailbox out of reach) or no host ever has.
    number = number if number.isascii() else ""
    words = rest.split("-") if rest else []
    wanted, kind = (WATCH_CODE_WORDS, "watch code") if watch else (CODE_WORDS, "seat code")
    example = "7-guitarist-revenge-bodyguard" + ("-tactics" if watch else "")
    if number.isdigit() and len(words) == (CODE_WORDS if watch else WATCH_CODE_WORDS):
        return (f"{code} is a seat code: `tractor join {code}` takes a seat with it; to "
                "watch, ask the host for a watch code (its log shows one)" if watch else
                f"{code} is a watch code: `tractor watch {code}` watches the game with it; "
                "to take a seat, ask the host for a seat code")
    if not number.isdigit() or len(words) != wanted:
        return (f"{code} is not a {kind}: a {kind} is a number and {wanted} "
                f"words, like {example}; check it with the host")
    lists = _seat_words()
    if lists is None:
        return None
    for i, word in enumerate(words):
        allowed = lists[i % 2]
        if word not in allowed:
            near = difflib.get_close_matches(word, sorted(allowed), n=1)
            guess = f" (did you mean {near[0]!r}?)" if near else ""
            return (f"{code} is not a {kind}: {word!r} is not one of its words{guess}; "
                    "check the code with the host")
    return None
