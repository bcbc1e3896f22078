"""``--plain`` mode: whole hands played line by line from scripted input.

The script answers each prompt from the table's state when asked (a lazy generator), so
it is deterministic for a seed; the same lines are then replayed from a file, a real pipe
(`run_plain` on the event loop) and a child process's standard input.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from local_client import LocalClient

from tractor import Pass, Rules
from tractor.cards import format_cards
from tractor.cli.screen import render
from tractor.cli.screen.plain import PlainSession, play_plain, run_plain
from tractor.phases import Decision


def answers(client: LocalClient, record: list[str], extras: bool = True) -> Iterator[str]:
    """Answer every prompt of one hand, then quit after the summary. With ``extras`` it
    also tries every command, a bad card, a short burial and an illegal follow first."""

    def say(line: str) -> str:
        record.append(line)
        return line

    if extras:
        yield say("help")
        yield say("xx")
        yield say("hint")
    tried_illegal = tried_bury = False
    while True:
        if client.summary() is not None:
            yield say("last")
            yield say("tracker")
            yield say("")
            yield say("quit")
            return
        decision = client.decision()
        obs = client.observation()
        if decision == Decision.DECLARE:
            yield say("1" if client.declaration_options() else "pass")
            continue
        action = client.hint()
        assert action is not None and not isinstance(action, Pass)
        cards = format_cards(action.faces)
        if extras and decision == Decision.BURY and not tried_bury:
            tried_bury = True
            yield say(cards.split()[0])
            continue
        if extras and decision == Decision.PLAY and obs.current and not tried_illegal:
            ladder = render.ladder_of(obs)
            led = ladder.esuit[obs.current[0][0]]
            hand = render.hand_order(obs)
            off = [f for f in hand if ladder.esuit[f] != led]
            if off and any(ladder.esuit[f] == led for f in hand) and \
                    len(obs.current[0]) == 1:
                tried_illegal = True
                yield say("table")
                yield say("say my turn")
                yield say(format_cards(off[:1]).lower())
                continue
        yield say(cards)


def test_whole_hand_through_plain_mode_ends_with_the_summary() -> None:
    client = LocalClient(seed=5)
    out = io.StringIO()
    record: list[str] = []
    rc = play_plain(client, answers(client, record), out)
    text = out.getvalue()
    assert rc == 0
    assert text.startswith("·") or "declare> " in text
    # Declaring, then the talon exchange with the refusal of a short burial.
    assert "Declare trumps? 1) ♥2; or pass." in text
    assert "declare> 1\n" in text and "· You declares ♥2" in text
    assert "Choose 8 cards to bury, then Enter." in text
    assert "Choose exactly 8 cards to bury (1 chosen)." in text
    assert "· You buries 8 cards" in text
    # Commands and mistakes are answered in words.
    assert "Commands:" in text and "'xx' is not a card" in text and "hint: " in text
    assert "Refused: you must" in text
    assert "· You: my turn" in text
    assert "Your hand:" in text and "Trump  rank 2, suit ♥" in text
    # Every trick was played and the summary closes the hand.
    tricks = client.game.hands_played[0].tricks
    assert len(re.findall(r"^· trick \d+ to ", text, re.M)) == len(tricks)
    assert sum(len(t.plays[0]) for t in tricks) == 25
    assert "Hand 1 is over." in text and "Audit: played in-process" in text
    assert f"Trick {len(tricks)}, led by" in text and "Still out" in text
    assert text.rstrip().endswith("Bye.")
    assert client.summary() is None and client.observation().game.hand_no == 1
    assert client.game.hand_no == 1


def test_the_same_script_from_a_file_replays_identically() -> None:
    client = LocalClient(seed=5)
    first = io.StringIO()
    record: list[str] = []
    play_plain(client, answers(client, record), first)
    again = io.StringIO()
    rc = play_plain(LocalClient(seed=5), io.StringIO("\n".join(record) + "\n"), again)
    assert rc == 0
    assert again.getvalue() == first.getvalue()


def script_for(seed: int) -> str:
    client = LocalClient(seed=seed)
    record: list[str] = []
    play_plain(client, answers(client, record, extras=False), io.StringIO())
    return "\n".join(record) + "\n"


def test_run_plain_reads_a_real_pipe_on_the_event_loop() -> None:
    script = script_for(5)
    r, w = os.pipe()

    def feed() -> None:
        with os.fdopen(w, "w", encoding="utf-8") as pipe:
            pipe.write(script)

    writer = threading.Thread(target=feed)
    writer.start()
    out = io.StringIO()
    with os.fdopen(r, encoding="utf-8") as stdin:
        rc = asyncio.run(asyncio.wait_for(run_plain(LocalClient(seed=5), stdin, out), 60))
    writer.join()
    text = out.getvalue()
    assert rc == 0
    assert "Hand 1 is over." in text and text.rstrip().endswith("Bye.")
    assert "play> " in text


@pytest.mark.e2e
def test_standard_input_of_a_child_process() -> None:
    script = script_for(5)
    code = ("import asyncio, sys; from local_client import LocalClient; "
            "from tractor.cli.screen.plain import run_plain; "
            "sys.exit(asyncio.run(run_plain(LocalClient(seed=5))))")
    # The child imports the test client from this folder (it is not part of the package).
    path = os.pathsep.join(filter(None, [os.path.dirname(os.path.abspath(__file__)),
                                         os.environ.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, "-P", "-c", code], input=script, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": path})
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "Hand 1 is over." in proc.stdout


def test_input_running_out_ends_quietly() -> None:
    out = io.StringIO()
    rc = play_plain(LocalClient(seed=1), ["hint", "last"], out)
    assert rc == 1
    assert out.getvalue().endswith("(end of input)\n")
    assert "No trick has been played yet" in out.getvalue()


def test_game_over_after_the_last_hand() -> None:
    # Starting at Ace, a hand that raises a level ends the game.
    rules = Rules(start_level="A")
    for seed in range(10):
        out = io.StringIO()
        client = LocalClient(rules, seed=seed)
        rc = play_plain(client, answers(client, [], extras=False), out)
        text = out.getvalue()
        if "game over (Enter to leave)> " in text:
            break
    else:
        raise AssertionError("no seed ended the game in one hand")
    assert rc == 0
    assert "Game over: team" in text and "· game over: team" in text
    assert text.rstrip().endswith("Bye.")
    assert client.game.over


def test_session_prompt_is_none_when_nothing_to_decide() -> None:
    client = LocalClient(seed=5)
    written: list[str] = []
    session = PlainSession(client, written.append)
    session.handle("quit")
    assert session.finished()
    session = PlainSession(client, written.append)
    assert session.prompt() == "declare> "
    session.handle("2")
    assert "No such declaration." in "".join(written)
    session.handle("pass")
    assert client.decision() != Decision.DECLARE
    session.handle("say")
    assert "say what?" in "".join(written)


class _StuckTable(LocalClient):
    """A table that waits for another seat for ever (a seat left, nobody moves)."""

    def decision(self):  # type: ignore[override]
        return None


def _run_on_pipe(client, script: str, seconds: float) -> tuple[int, str]:
    r, w = os.pipe()
    with os.fdopen(w, "w", encoding="utf-8") as pipe:
        pipe.write(script)
    out = io.StringIO()
    with os.fdopen(r, encoding="utf-8") as stdin:
        rc = asyncio.run(asyncio.wait_for(run_plain(client, stdin, out), seconds))
    return rc, out.getvalue()


def test_quit_while_the_table_waits_for_another_seat_leaves_at_once() -> None:
    # Before: with nothing to decide, no line was read, so `quit` hung until Ctrl-C.
    rc, text = _run_on_pipe(_StuckTable(seed=2), "say anyone there?\nquit\n", 10)
    assert rc == 0
    assert "(waiting)> say anyone there?" in text and "(waiting)> quit" in text
    assert text.rstrip().endswith("Bye.")


def test_piped_answers_read_while_waiting_wait_for_their_question() -> None:
    client = LocalClient(seed=5)
    real = client.decision
    calls = [0]

    def late_decision():  # the first looks find nothing to decide, as between peers
        calls[0] += 1
        if calls[0] > 3:
            return real()
        # ... until the table moves (another seat's play arrives)
        asyncio.get_running_loop().call_later(0.05, lambda: client.on_change())
        return None

    client.decision = late_decision  # type: ignore[method-assign]
    rc, text = _run_on_pipe(client, script_for(5), 60)
    assert rc == 0 and "Hand 1 is over." in text
    assert "(waiting)> hint" not in text  # the answer went to the question that came


def test_a_banner_is_printed_once_per_trouble_not_at_every_look() -> None:
    client = LocalClient(seed=2)
    said: list[str] = []
    session = PlainSession(client, said.append)
    seconds = [3]
    client.banner = lambda: (  # type: ignore[method-assign]
        f"no link with seat 2 (AI 2) for {seconds[0]} s: it has not connected" if seconds[0]
        else None)
    for seconds[0] in (3, 4, 5, 6):
        session.prompt()
    assert sum("!! no link" in line for line in said) == 1
    seconds[0] = 0
    session.prompt()
    seconds[0] = 9  # gone, then back: news again
    session.prompt()
    assert sum("!! no link" in line for line in said) == 2


def test_news_while_a_question_is_open_starts_its_own_line_and_asks_again() -> None:
    # On a pipe the prompt has no line end: a line that came meanwhile ("AI 2 was stopped
    # by signal 9") was glued to it, and the question was not asked again under it, so a
    # script waiting for a prompt waited for ever.
    client = LocalClient(seed=5)
    news: list[str] = []
    real_events = client.events

    def events() -> list[str]:
        return real_events() + news

    client.events = events  # type: ignore[method-assign]
    r, w = os.pipe()
    out = io.StringIO()

    async def shown(ending: str) -> None:  # what was written so far ends so: no fixed sleeps
        for _ in range(2000):
            if out.getvalue().endswith(ending):
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"never shown: {ending!r}; shown: {out.getvalue()[-300:]!r}")

    async def later() -> None:  # the news comes while the first question waits for its answer
        try:
            await shown("declare> ")
            news.append("AI 2 was stopped by signal 9")
            client.on_change()
            await shown("signal 9\ndeclare> ")
        finally:  # the answer comes in any case: the reading thread is not left waiting
            with os.fdopen(w, "w", encoding="utf-8") as pipe:
                pipe.write("quit\n")

    async def main() -> int:
        news_comes = asyncio.ensure_future(later())
        with os.fdopen(r, encoding="utf-8") as stdin:
            rc = await asyncio.wait_for(run_plain(client, stdin, out), 20)
        await news_comes
        return rc

    assert asyncio.run(main()) == 0
    text = out.getvalue()
    assert "declare> \n· AI 2 was stopped by signal 9\ndeclare> quit" in text, text[-600:]


def test_the_hint_thinks_off_the_event_loop() -> None:
    # The search (about a second) ran on the loop's thread: the table's traffic and
    # timers stood still meanwhile.
    client = LocalClient(seed=5)
    real = client.advisor
    timer_ran = threading.Event()
    saw_the_timer: list[bool] = []

    def slow_advisor():
        advise = real()

        def think():
            # Thinks until a timer of the loop has run: on the loop's thread it never does
            # (the wait gives up after ten seconds, and says so).
            saw_the_timer.append(timer_ran.wait(10))
            return advise()
        return think

    client.advisor = slow_advisor  # type: ignore[method-assign]
    said: list[str] = []
    session = PlainSession(client, said.append)

    async def main() -> None:
        asyncio.get_running_loop().call_later(0.01, timer_ran.set)
        await session.handle_async("hint")

    asyncio.run(main())
    assert saw_the_timer == [True]  # the timer ran while the search thought
    assert any("Enter alone accepts it" in line for line in said), said


def test_p_passes_a_declaration_as_on_the_full_screen() -> None:
    client = LocalClient(seed=5)
    written: list[str] = []
    session = PlainSession(client, written.append)
    assert session.prompt() == "declare> "
    session.handle("p")
    assert "not a card" not in "".join(written)
    assert client.decision() != Decision.DECLARE


def test_a_long_hint_reason_is_whole_in_plain_and_cut_on_the_full_screen(monkeypatch) -> None:
    # The reason was cut to 60 characters ("…") in the AI layer, `--plain` too, where a
    # terminal's lines fold it whole.
    from tractor.actions import Play
    from tractor.ai.players import explain
    from tractor.cli.screen.hints import hint_shown
    from tractor.cli.seat.client import Hint

    long_reason = "beats ♠A ♠A ♠K ♠K: the trick holds 45 points, the most of any trick yet"
    monkeypatch.setattr(explain, "_play_reason", lambda obs, mine, rules: long_reason)
    client = LocalClient(seed=5)
    why = explain.reason(client.observation(), Play(0, (0,)), Rules())
    assert why == long_reason and len(why) > explain.MAX_REASON
    said: list[str] = []
    session = PlainSession(client, said.append, lambda: 40)
    session._show_hint(Hint(Play(0, (0,)), why))
    shown = "".join(said)
    assert all(len(line) <= 40 for line in shown.splitlines()), shown
    assert " ".join(shown.split()).count("the most of any trick yet") == 1, shown
    note = hint_shown(Play(0, (0,)), why, Decision.PLAY).note
    assert "…" in note and "any trick yet" not in note
