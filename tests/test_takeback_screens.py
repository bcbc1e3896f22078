"""Take-backs on the screens: `undo` in --plain and `u` on the full screen ask the table,
and a refusal shows the rules core's reason."""

from __future__ import annotations

import asyncio

from local_client import LocalClient
from test_cli_app import running, until

from tractor import Rules
from tractor.cli.screen.frame import keys_text
from tractor.cli.screen.plain import PlainSession
from tractor.phases import Decision


def test_undo_in_plain_mode_says_the_rules_reason() -> None:
    said: list[str] = []
    session = PlainSession(LocalClient(seed=1), said.append)
    session.handle("undo")
    assert said[-1].strip() == ("Refused: the rules of this table allow no take-backs "
                        "(takebacks=false)")


def test_u_on_the_full_screen_takes_back_or_says_why_not() -> None:
    client = LocalClient(Rules(takebacks=True), seed=1)
    assert client.decision() == Decision.PLAY and client.observation().current
    assert "u take back" not in keys_text(client, None, False)  # this seat is to play

    async def go() -> str:
        async with running(client) as (view, inp):
            inp.send_text("u")
            await until(lambda: view.error)
            return view.error
    # Its last play is long gone: the others played since (the core's words).
    assert asyncio.run(go()) == ("there is no play of yours to take back: only the last "
                                 "play can be, before the next seat plays")
