"""``--plain``: the game as a scrolling conversation, one prompt per decision.

For small terminals, screen readers and scripts: everything is printed as lines of text
(the table, your hand, what happened), and every answer is one typed line. It works with
standard input on a pipe, so a whole game can be scripted line by line; the input lines
are echoed then, so a transcript reads like a session.

Commands at the prompt: cards to play (``AS AS``, ``10h``, ``♠A``, ``BJ``), ``hint``,
``last``, ``tracker``, ``table``, ``rules``, ``log``, ``say TEXT``, ``undo``, ``help``,
``pass``, ``quit``; a number picks a declaration; after a hand, an empty line (or ``next``)
goes on.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.utils import get_cwidth

from tractor.actions import Action, Bid, Bury, Call, Declare, NameTrump, Pass, Play, Show, TakeBack
from tractor.cards import format_cards
from tractor.cli.prompts import end_prompt
from tractor.cli.rules_text import table_rules_text
from tractor.cli.screen import friends_view, render
from tractor.cli.screen.cards_input import (
    HandCompleter,
    SelectionError,
    auction_answer,
    parse_selection,
)
from tractor.cli.screen.hidden_play import hint_refusal, log_note
from tractor.cli.screen.moves import typed_call
from tractor.cli.seat.client import Hint, TableClient
from tractor.cli.stdin_lines import read_line
from tractor.friends import format_calls
from tractor.observation import Observation
from tractor.phases import ANSWERS, Decision

HELP = """\
Commands:
  AS AS, 10h, ♠A, BJ   cards to play, bury or declare (suit first or last)
  1, 2, ...            pick a declaration from the list offered
  pass (or p)          no declaration now (in the auction: out for good)
  85                   in the auction variant: bid 85 points (multiples of 5)
  AS                   in the card-play: the card to show
  H, spades, none      the starter names the trump suit, or no suit
  AH 2:KS, 2nd ♥A      find-a-friend: the starter calls its friends by card
  hint                 what the AI would do here (then an empty line accepts it)
  last                 the last trick
  tracker              the cards still out
  table                the table again
  rules                this table's rules that differ from the defaults
  log                  the whole event log
  say TEXT             chat to the table
  undo                 take back your last play until the next seat plays
                       (at tables with takebacks=true, as at `tractor play`)
  help                 this list
  quit                 leave the game
After a hand: an empty line (or next) starts the next one."""


#: The prompt while nothing is asked of the person (commands still work: quit, say, log).
WAITING = "(waiting)> "


class PlainSession:
    """The conversation's state, independent of how lines are read: the drivers below call
    `prompt` for the next question and `handle` with each answer."""

    def __init__(self, client: TableClient, write: Callable[[str], Any],
                 columns: Callable[[], int] | None = None) -> None:
        self.client = client
        self.write = write
        #: The terminal's width now (None: a pipe, lines as they are): a longer line is
        #: broken between words here, not by the terminal inside a word or a card.
        self.columns = columns
        self.events_seen = 0
        self.shown: tuple[Any, ...] | None = None
        self.quit = False
        self.hinted: Action | None = None  #: the last hint, accepted by an empty line
        self.banner_shown: str | None = None  #: the trouble last reported (seconds aside)
        #: A question's prompt is the last thing written (a pipe: no line end after it);
        #: what is said meanwhile starts a line of its own, and the prompt is written
        #: again under it (`interrupted`), so a reader sees what is still asked.
        self.at_prompt = False
        self.interrupted = False

    def _obs(self) -> Observation:
        return self.client.observation()

    def say(self, text: str = "") -> None:
        if self.at_prompt:
            self.at_prompt, self.interrupted = False, True
            self.write("\n")
        self.write(self.fitted(text) + "\n")

    def width(self) -> int | None:
        return self.columns() if self.columns is not None else None

    def fitted(self, text: str) -> str:
        """``text`` with every line longer than the terminal broken between words (names
        whole), its continuation indented under it."""
        width = self.width()
        if width is None:
            return text
        out: list[str] = []
        for line in text.split("\n"):
            if get_cwidth(line) <= width:
                out.append(line)
                continue
            indent = " " * min(width // 2, len(line) - len(line.lstrip()) + 2)
            out += render.wrap_words(line, width, indent, keep=self.client.names)
        return "\n".join(out)

    # --- what is printed -------------------------------------------------------------------

    def pump(self) -> None:
        """Print the events that happened since the last call."""
        events = self.client.events()
        for line in events[self.events_seen:]:
            self.say(f"· {line}")
        self.events_seen = len(events)

    def finished(self) -> bool:
        if self.quit:
            return True
        game = self._obs().game
        return game is not None and game.winner is not None and self.client.summary() is None

    def prompt(self) -> str | None:
        """Print what is needed for the next question and return its prompt, or None when
        the person has nothing to answer now (another seat is moving)."""
        banner = self.client.banner()
        # Once per trouble, not at every look: the seconds it counts do not make it news.
        gist = re.sub(r"\d+ s\b", "", banner) if banner else None
        if banner and gist != self.banner_shown:
            self.say(f"!! {banner}")
        self.banner_shown = gist
        summary = self.client.summary()
        obs = self._obs()
        decision = self.client.decision()
        options = tuple(self.client.declaration_options()) if decision == Decision.DECLARE else ()
        # New declaration offers are news: the question is asked again with its list.
        key = (summary is not None, decision, render.hand_number(obs), obs.phase,
               len(obs.tricks), len(obs.current), len(obs.declarations), options)
        fresh = key != self.shown
        self.shown = key
        if summary is not None:
            if fresh:
                self.say()
                self.say(render.summary_text(summary, obs, self.client.names, self.width()))
            if summary.get("game_over"):
                return "game over (Enter to leave)> "
            return "next hand (Enter)> "
        if decision is None:
            return None
        if fresh:
            self.say()
            self.say(render.table_text(obs, self.client.names))
            self.say(self.hand_text(obs))
            self.say(render.decision_prompt(decision, obs, self.client.names, list(options)))
            if decision == Decision.CALL:  # the rules of the call, in full
                self.say(friends_view.call_help(self.client.rules))
        return {Decision.DECLARE: "declare> ", Decision.BURY: "bury> ", Decision.PLAY: "play> ",
                Decision.BID: "bid> ", Decision.SHOW: "show> ", Decision.NAME: "trump> ",
                Decision.CALL: "call> "}[decision]

    def next_question(self) -> str | int | None:
        """What the drivers ask next: the prompt, None when there is nothing to decide now,
        or the exit code when the conversation is over (0: the game ended or the person
        quit; 2: the table failed, said without a traceback)."""
        try:
            self.pump()
            if self.finished():
                self.say("Bye.")
                return 0
            return self.prompt()
        except Exception as exc:
            # A process edge: the conversation's top level. The table failing in any way
            # ends it with status 2 and one line, never a traceback.
            self.say(f"error: {exc}")
            return 2

    def hand_text(self, obs: Observation) -> str:
        rows = [f"  {label:<8}{render.cards_label(faces)}"
                for label, faces in render.hand_groups(obs)]
        taken = render.taken_to_bury(obs)
        if taken:
            rows.append(f"  {render.taken_word(obs):<8}{render.cards_label(taken)} "
                        "(in your hand now)")
        return "Your hand:\n" + ("\n".join(rows) if rows else "  (no cards)")

    # --- answers ---------------------------------------------------------------------------

    def handle(self, line: str) -> None:
        """Act on one typed line; every mistake is answered with a message."""
        try:
            self._handle(line.strip())
        except Exception as exc:
            # A process edge, as a key's action is on the full screen: whatever a typed
            # line runs into is answered with a message, never a traceback.
            self.say(f"error: {exc}")

    def _handle(self, line: str) -> None:
        client = self.client
        word, _, rest = line.partition(" ")
        cmd = word.lower()
        if cmd == "p" and not rest and client.decision() in (Decision.DECLARE, Decision.BID):
            cmd = "pass"  # as the full screen's p (no card is called p)
        summary = client.summary()
        if cmd in ("quit", "exit", "q"):
            self.quit = True
            return
        if cmd in ("help", "?"):
            self.say(HELP)
            if client.rules.mode == "friends":
                text = f"Find-a-friend: {friends_view.call_help(client.rules)}"
                self.say("\n".join(render.wrap_words(text, min(80, self.width() or 80), "  ")))
        elif cmd == "hint":
            refused = hint_refusal(self._obs(), client.decision())
            if refused is not None:
                self.say(refused)
            else:
                self._show_hint(client.advice())
        elif cmd == "" and summary is None and self.hinted is not None:
            hinted, self.hinted = self.hinted, None
            needs = client.decision()
            # Still the decision the hint answered (a pass answers a bid or a window).
            if needs is not None and isinstance(hinted, ANSWERS[needs]):
                self._submit(hinted, needs)
            else:
                self.say("That hint is out of date: ask again (hint).")
        elif cmd == "last":
            self.say(render.last_trick_text(self._obs(), client.names))
        elif cmd == "tracker":
            self.say(render.tracker_text(self._obs(), client.names, self.width() or 80))
        elif cmd == "table":
            obs = self._obs()
            self.say(render.table_text(obs, client.names))
            self.say(self.hand_text(obs))
        elif cmd == "rules":
            self.say(table_rules_text(client.rules))
        elif cmd == "log":
            note = log_note(client.rules)
            if note:
                self.say(note)
            for event in client.events():
                self.say(f"· {event}")
        elif cmd == "say":
            if rest.strip():
                client.chat(rest.strip())
            else:
                self.say("say what? (say TEXT)")
        elif cmd in ("undo", "takeback"):
            reason = client.submit(TakeBack(client.seat))
            self.say(f"Refused: {reason}" if reason else "Take-back asked: it stands unless "
                     "the next seat has played already.")
        elif summary is not None:
            if cmd in ("", "next", "n"):
                if summary.get("game_over"):
                    self.quit = True
                else:
                    client.next_hand()
            else:
                self.say("The hand is over: press Enter for the next hand (or quit).")
        elif cmd == "pass" and client.decision() == Decision.SHOW:
            self.say("Show one card of your hand: there is no passing in the card-play.")
        elif cmd == "pass" and client.decision() == Decision.CALL:
            self.say("Call your friends by card (e.g. AH): the starter cannot pass.")
        elif cmd == "pass" and client.decision() != Decision.NAME:
            bidding = client.decision() == Decision.BID
            self._submit(Pass(client.seat), Decision.BID if bidding else Decision.DECLARE)
        elif line:
            self._cards(line)

    async def handle_async(self, line: str) -> None:
        """`handle`, with the hint's search in a worker thread: the event loop (and the
        table's traffic on it) goes on while it thinks, up to a second."""
        if line.strip().lower() != "hint" or hint_refusal(
                self._obs(), self.client.decision()) is not None:
            self.handle(line)  # a refused hint too: `handle` says why
            return
        advisor = self.client.advisor()
        try:
            advice = None if advisor is None else await asyncio.get_running_loop(
            ).run_in_executor(None, advisor)
        except Exception as exc:
            # A process edge: the search player may fail in any way, and a hint is a
            # courtesy, so its failure is a line, never a traceback.
            self.hinted = None
            self.say(f"(no hint: {exc})")
            return
        self._show_hint(advice)

    def _show_hint(self, advice: Hint | None) -> None:
        self.hinted = advice.action if advice is not None else None
        why = f" - {advice.reason}" if advice is not None and advice.reason else ""
        self.say(self._hint_text(self.hinted) + why
                 + (" - Enter alone accepts it" if self.hinted is not None else ""))

    def _hint_text(self, action: Action | None) -> str:
        if action is None:
            return "Nothing for you to decide now."
        if isinstance(action, Pass):
            return "hint: pass"
        if isinstance(action, Bid):
            return f"hint: bid {action.points} (type: {action.points})"
        if isinstance(action, NameTrump):
            return f"hint: trump {action.suit or 'none'} (type: {action.suit or 'none'})"
        if isinstance(action, Call):
            calls = ", ".join(str(c) for c in action.calls)
            return f"hint: call {calls} (type: {format_calls(action.calls)})"
        faces = getattr(action, "faces", ())
        return f"hint: {render.cards_label(list(faces))} (type: {format_cards(faces)})"

    def _cards(self, line: str) -> None:
        client = self.client
        decision = client.decision()
        if decision is None:
            self.say("It is not your turn.")
            return
        if decision == Decision.CALL:
            call = typed_call(line, client.seat)
            if isinstance(call, str):
                self.say(call)
                return
            self._submit(call, Decision.CALL)
            return
        if decision in (Decision.BID, Decision.NAME):
            answer = auction_answer(decision, line, client.seat)
            if answer is None:
                self.say("Bid a number of points, or pass." if decision == Decision.BID else
                         "Name a suit (S, H, D or C), or none.")
                return
            self._submit(answer, decision)
            return
        if decision == Decision.DECLARE and line.isdigit():
            options = client.declaration_options()
            i = int(line) - 1
            if not 0 <= i < len(options):
                self.say("No such declaration.")
                return
            self._submit(Declare(client.seat, tuple(options[i])), Decision.DECLARE)
            return
        hand = render.hand_order(self._obs())
        try:
            faces = tuple(parse_selection(line, hand))
        except SelectionError as exc:
            self.say(str(exc))
            return
        if decision == Decision.BURY:
            need = render.talon_size(self._obs())
            if len(faces) != need:
                self.say(f"Choose exactly {need} cards to bury ({len(faces)} chosen).")
                return
            self._submit(Bury(client.seat, faces), Decision.BURY)
        elif decision == Decision.PLAY:
            self._submit(Play(client.seat, faces), Decision.PLAY)
        elif decision == Decision.SHOW:
            if len(faces) != 1:
                self.say(f"Show exactly one card ({len(faces)} chosen).")
                return
            self._submit(Show(client.seat, faces), Decision.SHOW)
        else:
            self._submit(Declare(client.seat, faces), Decision.DECLARE)

    def _submit(self, action: Action, needs: Decision) -> None:
        if self.client.decision() != needs:
            self.say("That is not what the table waits for now.")
            return
        reason = self.client.submit(action)
        if reason:
            self.say(f"Refused: {reason}")


def play_plain(client: TableClient, lines: Iterable[str], out: TextIO,
               echo: bool = True) -> int:
    """Play synchronously, reading answers from ``lines`` (a file, a pipe, a list) and
    writing to ``out``: for in-process clients, whose table never waits on the network.
    Returns 0 when the game ended or the person quit, 1 if the input ran out first, 2 if the
    table failed."""
    session = PlainSession(client, out.write)
    source: Iterator[str] = iter(lines)
    while True:
        prompt = session.next_question()
        if isinstance(prompt, int):
            return prompt
        if prompt is None:
            out.write("Nothing to decide and nothing moving: the table has stopped.\n")
            return 1
        out.write(prompt)
        line = next(source, None)
        if line is None:
            out.write("\n(end of input)\n")
            return 1
        line = line.rstrip("\r\n")
        if echo:
            out.write(line + "\n")
        out.flush()
        session.handle(line)


async def run_plain(client: TableClient, input: TextIO | None = None,
                    output: TextIO | None = None) -> int:
    """Play on the running event loop (network clients move while we wait). On a terminal
    the prompt has card completion; on a pipe, lines are read one by one and echoed.
    Returns 0 when the game ended or the person quit, 1 when the input ran out, 2 when the
    table failed.

    A line is read at every moment, also while another seat moves or the table waits for
    a lost seat, so ``quit`` (and ``say``, ``log``...) never waits for the table. On a
    terminal the "(waiting)" prompt becomes the question's when one comes. On a pipe, a
    line that answers a question waits for the next question (a script's answers are
    taken in order, one per question, as before); the others act at once."""
    stdin = input or sys.stdin
    out = output or sys.stdout
    if _isatty(stdin) and _isatty(out):
        # What is said while a prompt is open goes above it, not onto its line.
        with patch_stdout():
            return await _converse(client, stdin, sys.stdout, True)
    return await _converse(client, stdin, out, False)


async def _converse(client: TableClient, stdin: TextIO, out: TextIO, tty: bool) -> int:
    """`run_plain`'s conversation, on a terminal (``tty``) or on pipes."""
    # On a terminal, lines fit its width (asked at every line: it may be resized).
    session = PlainSession(client, out.write,
                           (lambda: shutil.get_terminal_size().columns) if tty else None)
    changed = asyncio.Event()
    client.on_change = changed.set
    read = _prompt_reader(client, stdin, out) if tty else _pipe_reader(stdin)
    reading: asyncio.Future[str | None] | None = None
    asked: str | None = None  #: the question the line being read answers (None: waiting)
    held: str | None = None  #: a piped answer read while no question was asked
    try:
        while True:
            prompt = session.next_question()
            if isinstance(prompt, int):
                return prompt
            if held is not None and prompt is not None:
                line, held = held, None
                out.write(f"{prompt}{line}\n")
                await session.handle_async(line)
                continue
            if reading is not None and tty and prompt != asked:
                await end_prompt(reading)  # the terminal's prompt becomes the new question's
                reading = None
            if not tty and prompt is not None and (prompt != asked or session.interrupted):
                out.write(prompt)
                session.at_prompt, session.interrupted = True, False
            asked = prompt
            if reading is None and held is None:
                reading = asyncio.ensure_future(read(prompt or WAITING))
            out.flush()
            changed.clear()
            moved = asyncio.ensure_future(changed.wait())
            pending: set[asyncio.Future[Any]] = {moved}
            if reading is not None:
                pending.add(reading)
            await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            moved.cancel()
            if reading is None or not reading.done():
                continue  # the table moved: look again
            answer, reading = reading.result(), None
            if answer is None:
                out.write("\n(end of input)\n")
                return 1
            line = answer
            if not tty and asked is None:
                if not _needs_no_question(line):
                    held = line  # a script's next answer: for the next question
                    continue
                out.write(WAITING)
            if not tty:
                out.write(line + "\n")
                session.at_prompt = False
            asked = None
            await session.handle_async(line)
    finally:
        if reading is not None:
            await end_prompt(reading)  # the terminal back as it was, before we return
        client.on_change = None
        out.flush()


def _needs_no_question(line: str) -> bool:
    """A command that acts whatever the table waits for (leaving, chat, looking)."""
    return line.strip().partition(" ")[0].lower() in (
        "quit", "exit", "q", "say", "log", "help", "?", "table", "last", "tracker", "undo",
        "takeback", "rules")


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _pipe_reader(stdin: TextIO) -> Callable[[str], Any]:
    if stdin is sys.stdin:  # share the process's one stdin reader (the lobby used it too)
        async def shared(_prompt: str) -> str | None:
            return await read_line()
        return shared

    async def read(_prompt: str) -> str | None:
        line = await asyncio.get_running_loop().run_in_executor(None, stdin.readline)
        return line.rstrip("\r\n") if line else None
    return read


def _prompt_reader(client: TableClient, stdin: TextIO, out: TextIO) -> Callable[[str], Any]:
    def obs() -> Observation:
        return client.observation()

    def hand() -> list[int]:
        return render.hand_order(obs())

    session: PromptSession[str] = PromptSession(
        completer=HandCompleter(hand, lambda typed: render.follow_allowed(
            obs(), client.decision() == Decision.PLAY, hand(), typed)),
        complete_while_typing=False)  # Tab completes: a menu popping up hides the table
    # The "(waiting)" prompt is replaced by the question that comes: it leaves no line
    # behind (a stale "(waiting)>" stood above every question).
    waiting: PromptSession[str] = PromptSession(erase_when_done=True)

    async def read(prompt: str) -> str | None:
        try:
            return await (waiting if prompt == WAITING else session).prompt_async(prompt)
        except EOFError:
            return None
        except KeyboardInterrupt:
            return "quit"
    return read
