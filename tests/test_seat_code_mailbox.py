"""An internet host whose mailbox cannot be reached, on a `Clock`: it says so once (naming
the mailbox and `--mailbox`), tries again at 1, 2, 4 ... up to 60 s apart, never claims to
be open or flashes "none open" meanwhile, and once the mailbox answers says so, opens on
the internet and shows the codes."""

from __future__ import annotations

import pytest

pytest.importorskip("wormhole")

from fake_wormhole import FakeMailbox, Table  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402

URL = "ws://127.0.0.1:9/v1"


def tries(mailbox: FakeMailbox) -> list[float]:
    """When a wormhole asked the mailbox for a code."""
    return [when for when, _words in mailbox.allocations]


def test_a_mailbox_out_of_reach_is_said_once_and_tried_again_less_and_less_often():
    mailbox = FakeMailbox(Clock(), reachable=False, url=URL)
    table = Table(4, mailbox=mailbox)
    start = tries(mailbox)[0]
    for _ in range(4000):  # small steps: a Clock runs what falls due at the step's end
        table.clock.advance(0.1)
    out = [line for line in table.lines if "cannot reach the mailbox" in line]
    assert len(out) == 1, table.lines
    assert f"cannot reach the mailbox {URL} (Connection refused)" in out[0]
    assert "--mailbox URL" in out[0]
    assert table.lines == out, table.lines  # not open, no codes, no "none open"
    assert table.opened == 0
    # The three seats asked at the start; then one try at a time, further and further apart.
    when = [t - start for t in tries(mailbox)]
    assert when[:3] == [0, 0, 0], when
    gaps = [round(b - a - 0.2) for a, b in zip(when[2:], when[3:], strict=False)]
    assert len(gaps) >= 9 and gaps == [1, 2, 4, 8, 16, 32] + [60] * (len(gaps) - 6), gaps

    # The mailbox starts answering: said once, then the table opens with a code per seat.
    mailbox.reachable = True
    said = len(table.lines)
    for _ in range(620):
        table.clock.advance(0.1)
    codes = table.codes.codes()
    assert len(codes) == 3
    assert table.lines[said:] == [
        f"the mailbox {URL} can be reached now: opening seat codes",
        "open on the internet",
        f"codes: {codes}"], table.lines[said:]
    assert len(tries(mailbox)) == len(when) + 3  # the probe that got through, two more


def test_a_mailbox_that_answers_at_once_opens_the_table_with_every_code():
    table = Table(6)
    assert table.lines == ["open on the internet", f"codes: {table.codes.codes()}"]
    assert len(table.codes.codes()) == 5
