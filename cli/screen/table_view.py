"""The table as a card player sees it: you at the bottom, the other seats around the trick.

The play screen's table pane is drawn here for the size it is given (`table_pane`): a
header that always shows the trump, both teams' levels and the defenders' points; then
the seats on the edge of a grid, in playing order counter-clockwise from you (the next
seat to play sits on your right, your partner opposite at a table of four; six, eight or
more seats make a ring); the middle shows what the trick is and what happened last.
Each seat shows its name, side, level, cards left and its cards in the trick; ``▶``
marks the seat to play, ``★`` the starter, "led" the trick's leader and "won" the winner
of the trick just finished. With 100 columns or more the event log sits on the right;
narrower, its newest lines fill the rows the table leaves (the whole log is a panel).

Everything is a pure function of the seat's observation, so the tests check layouts
without a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import fragment_list_width
from prompt_toolkit.utils import get_cwidth

from tractor.cards import FACE_POINTS
from tractor.cli.screen import friends_view, hidden_play, render
from tractor.cli.screen.wrapping import GLUE
from tractor.observation import Observation
from tractor.phases import Phase
from tractor.scoring import score_outcome

Line = StyleAndTextTuples
Cell = tuple[int, int]  #: (row, column) of the seat grid

#: Below this many columns the log does not fit beside the table.
LOG_BESIDE_FROM = 100
LOG_WIDTH = 30
#: Columns the middle of the table keeps for what the trick is when the sides widen.
MIDDLE_ROOM = 20


def grid_columns(players: int) -> int:
    """Columns of the seat grid: three up to eight seats, five beyond."""
    return 3 if players <= 8 else 5


def ring(columns: int) -> list[Cell]:
    """The edge cells of a three-row grid, counter-clockwise from the bottom middle:
    right along the bottom, up the right side, left along the top, down the left side.

    >>> ring(3)
    [(2, 1), (2, 2), (1, 2), (0, 2), (0, 1), (0, 0), (1, 0), (2, 0)]
    """
    mid = columns // 2
    return ([(2, c) for c in range(mid, columns)] + [(1, columns - 1)]
            + [(0, c) for c in range(columns - 1, -1, -1)] + [(1, 0)]
            + [(2, c) for c in range(mid)])


def seat_cells(players: int, me: int) -> dict[int, Cell]:
    """Where each seat sits: ``me`` at the bottom middle, the others spread evenly round
    the ring in playing order (seat ``me + 1`` plays next, on the right).

    >>> seat_cells(4, 0)
    {0: (2, 1), 1: (1, 2), 2: (0, 1), 3: (1, 0)}
    >>> sorted(seat_cells(6, 2).items())
    [(0, (0, 0)), (1, (2, 0)), (2, (2, 1)), (3, (2, 2)), (4, (0, 2)), (5, (0, 1))]
    """
    cells = ring(grid_columns(players))
    step = len(cells) / players
    return {(me + r) % players: cells[round(r * step)] for r in range(players)}


def takeover_points(obs: Observation) -> int | None:
    """The defenders' points from which they declare next hand (the scoring rule's own
    answer), or None without the table's rules."""
    rules = render.rules_of(obs)
    if rules is None:
        return None
    for p in range(0, rules.total_points + 5, 5):
        if score_outcome(p, rules.decks, rules.level_step)[0] == "defenders":
            return p
    return None


def header_lines(obs: Observation, width: int, names: Sequence[str] = ()) -> list[Line]:
    """Trump, the teams' levels and the defenders' points (with what takes over); in
    find-a-friend the calls and who they fell to (``names``), and the points of the seats
    not known to be on the starter's side (each player's level is at its place)."""
    levels = obs.levels
    parts: list[Line] = [[("class:label", "Trump "), ("class:trump", render.trump_short(obs))]]
    decl = obs.declarers
    if friends_view.is_friends(obs):
        parts += friends_parts(obs, names)
    elif decl is None:
        parts += [[("", f"team 0 lv {levels[0]}")], [("", f"team 1 lv {levels[1]}")]]
    else:
        parts += [[("", f"declarers team {decl} lv {levels[decl]}")],
                  [("", f"defenders team {1 - decl} lv {levels[1 - decl]}")]]
        parts.append(points_part(obs))
    lines: list[Line] = [[]]
    for part in parts:
        line = lines[-1]
        sep: Line = [("class:dim", " · ")] if line else []
        if line and fragment_list_width(line + sep + part) > width:
            lines.append(list(part))
        else:
            line += sep + part
    return lines


def friends_parts(obs: Observation, names: Sequence[str]) -> list[Line]:
    """Find-a-friend's part of the header: each call and the seat it fell to ("?" while
    not played), then the defenders' points, "as known" while sides are unknown."""
    names = list(names) or [f"seat {s}" for s in range(obs.players)]
    parts: list[Line] = [[("", mark)] for mark in friends_view.call_marks(obs, names)]
    if not obs.calls:
        return parts
    part = points_part(obs)
    if not friends_view.sides_known(obs):
        part.append(("class:dim", " as known"))
    return [*parts, part]


def points_part(obs: Observation) -> Line:
    """The defenders' points, of the points that take over; after a failed throw, what
    its penalty did to them (seeds/README.md: a defender's throw takes the penalty off the
    defenders' points, a declarer's adds it, so they can be below 0 for a while; a hand
    below 0 scores as 0): "points -20/80 (0 in tricks, penalty -20)"."""
    need = takeover_points(obs)
    part: Line = [("", "points "), ("class:points", str(obs.defender_points))]
    part += [("class:dim", f"/{need}")] if need else []
    if obs.penalties:
        won = obs.defender_points - obs.penalties
        part.append(("class:dim", f" ({won} in tricks, penalty {obs.penalties:+d})"))
    return part


def _trick_plays(obs: Observation) -> dict[int, tuple[tuple[int, ...], str]]:
    """Each seat's cards in the trick shown (the current one; the one just finished when
    the next has not started) and its tag: "led", "won"."""
    n = obs.players
    plays: dict[int, tuple[tuple[int, ...], str]] = {}
    if obs.current:
        for k, cards in enumerate(obs.current):
            plays[(obs.leader + k) % n] = (cards, "led" if k == 0 else "")
    elif obs.tricks and obs.phase in (Phase.PLAY, Phase.DONE):
        last = obs.tricks[-1]
        for k, cards in enumerate(last.plays):
            seat = (last.leader + k) % n
            plays[seat] = (cards, "won" if seat == last.winner else ("led" if k == 0 else ""))
    return plays


def _cards_lines(cards: Sequence[int], tag: str, width: int, color: bool | None) -> list[Line]:
    """Cards wrapped between cards to ``width``, the tag after the last."""
    lines: list[Line] = [[]]
    used = 0
    for f in cards:
        label = render.card_label(f)
        extra = len(label) + (1 if used else 0)
        if used and used + extra > width:
            lines.append([])
            used, extra = 0, len(label)
        if used:
            lines[-1].append(("", " "))
        lines[-1].append((render.card_style(f, color), label))
        used += extra
    if tag:
        if used + len(tag) + 2 > width:
            lines.append([("class:dim", tag)])
        else:
            lines[-1].append(("class:dim", f"  {tag}"))
    return lines


def cut(text: str, cells: int) -> str:
    """``text`` in at most ``cells`` terminal cells (a wide character takes two), with
    ``…`` where it was cut."""
    if get_cwidth(text) <= cells:
        return text
    out, used = "", 0
    for ch in text:
        w = get_cwidth(ch)
        if used + w > cells - 1:
            break
        out, used = out + ch, used + w
    return out + "…" if cells >= 1 else ""


def widest_side(obs: Observation) -> int:
    """Columns of the widest side line in its long form ("decl · lv 2 · 17 cards")."""
    longest_side = "team 0" if obs.declarers is None else "decl"
    if friends_view.is_friends(obs):
        longest_side = "friend"
    return max(len(f"{longest_side} · lv {friends_view.seat_level(obs, s)} · "
                   f"{render.count(obs.hand_sizes[s], 'card')}")
               for s in range(len(obs.hand_sizes)))


def side_form(obs: Observation, width: int) -> int:
    """The form of the side line every place takes when the narrowest is ``width``
    columns: 0 "decl · lv 2 · 17 cards", 1 "decl lv 2 · 17 cards", 2 "decl 2 · 17" (cut
    to the place). The longest whose widest line fits, so the seats read alike ("decl lv
    2" beside "def · lv 2" looked like two kinds of seat)."""
    widest = widest_side(obs)
    return next((k for k, spare in enumerate((0, 2)) if widest - spare <= width), 2)


def seat_lines(obs: Observation, names: Sequence[str], seat: int, width: int,
               plays: dict[int, tuple[tuple[int, ...], str]], height: int = 99,
               compact: bool = False, color: bool | None = None,
               form: int | None = None) -> list[Line]:
    """One seat's place at the table in at most ``height`` lines: name (``▶`` to play,
    ``★`` starter), side, level and cards left, then its cards in the trick. When room
    is short the side line goes first (or joins the name's line), then the cards' last
    lines, marked ``…``: the trick's cards are what a player must see. ``form``: the side
    line's form (`side_form`) the table picked for every place; by default, this
    place's own."""
    to_play = seat == obs.to_act and obs.phase not in (Phase.DEAL, Phase.DONE)
    me = seat == obs.seat
    star = " ★" if seat == obs.starter else ""
    mark = "▶ " if to_play else ""
    you = " (you)" if me and names[seat].lower() != "you" else ""
    room = max(1, width - len(mark) - len(star) - len(you))
    name = cut(names[seat], room) + you
    head: Line = [("class:turn", mark)] if mark else []
    head += [("class:me" if me else "class:seat", name), ("class:turn", star)]
    team = render.team_of(seat)
    if friends_view.is_friends(obs):
        side = friends_view.side_tag(obs, seat)
    elif obs.declarers is None:
        side = f"team {team}"
    else:
        side = "decl" if team == obs.declarers else "def"
    level, left = friends_view.seat_level(obs, seat), obs.hand_sizes[seat]
    cards_left = render.count(left, "card")
    forms = (f"{side} · lv {level} · {cards_left}", f"{side} lv {level} · {cards_left}",
             cut(f"{side} {level} · {left}", width))
    info = forms[side_form(obs, width) if form is None else form]
    cards: list[Line] = []
    if seat in plays:
        trick, tag = plays[seat]
        cards = _cards_lines(trick, tag, width, color)
    full: list[Line] = [head, [("class:dim", info)], *cards]
    short = f" {side} {obs.hand_sizes[seat]}"
    if not compact and len(full) <= height:
        lines = full
    elif fragment_list_width(head) + len(short) <= width:  # the side on the name's line
        lines = [head + [("class:dim", short)], *cards]
    elif len(full) <= height:
        lines = full
    else:
        lines = [head, *cards]
    if len(lines) > height:
        lines = lines[:max(1, height)]
        if cards and len(lines) > 1:
            lines[-1] = lines[-1] + [("class:dim", "…")]
    return lines


def middle_lines(obs: Observation, names: Sequence[str], width: int) -> list[str]:
    """The middle of the table: what the trick is worth, or where the hand stands."""
    phase = obs.phase
    out: list[str] = []
    if phase in (Phase.DEAL, Phase.DECLARE):
        out.append(f"dealing: {render.count(obs.cards_dealt, 'card')} drawn" if phase == Phase.DEAL
                   else "all cards dealt: last chance to declare")
        if obs.declarations:
            seat, faces = obs.declarations[-1]
            out.append(f"{names[seat]} declared {render.cards_label(faces)}")
    elif phase in (Phase.BID, Phase.SHOW, Phase.NAME):
        out.append(render.auction_line(obs, names))
    elif phase == Phase.TALON:
        burier = obs.exchanger  # the starter, or with kitty theft the last thief
        took = "took the kitty" if obs.thefts else "takes the talon"
        if burier == obs.seat:
            out.append(f"you {'took the kitty' if obs.thefts else 'take the talon'}: bury "
                       f"{render.talon_size(obs)} cards")
        else:
            who = names[burier] if burier is not None else "the starter"
            out.append(f"{who} {took} and buries {render.talon_size(obs)}")
    elif phase == Phase.CALL:
        calls = render.count(friends_view.friend_calls(obs), "friend")
        if obs.starter == obs.seat:
            out.append(f"you call {calls} by card: type the call below")
            out.append(friends_view.allowed_words(obs))
        else:
            who = names[obs.starter] if obs.starter is not None else "the starter"
            out.append(f"{who} calls {calls} by card")
    elif phase in (Phase.PLAY, Phase.DONE):
        if obs.current:
            pts = sum(FACE_POINTS[f] for cards in obs.current for f in cards)
            out.append(f"trick {render.trick_number(obs)}" + (f" · {pts} points on it"
                                                              if pts else ""))
            if obs.current_attempt:
                out.append(f"failed throw {render.cards_label(obs.current_attempt)}")
        if obs.tricks and (not obs.current or phase == Phase.DONE):
            last = obs.tricks[-1]
            out.append(f"trick {len(obs.tricks)} to {names[last.winner]}"
                       + (f": {last.points} points" if last.points else ""))
        elif obs.tricks:
            last = obs.tricks[-1]
            out.append(f"last: {names[last.winner]}" + (f" took {last.points}"
                                                        if last.points else " took it"))
        if not obs.tricks and not obs.current:
            out.append(f"{names[obs.leader]} leads trick 1")
        if phase == Phase.DONE:
            out.append("hand over")
    lines: list[str] = []
    for text in out:
        lines += render.wrap_words(text, width, keep=names)
    return lines


def _pad(line: Line, width: int, align: str) -> Line:
    """``line`` cut or padded to exactly ``width`` terminal cells."""
    w = fragment_list_width(line)
    if w > width:
        out: Line = []
        used = 0
        for style, text, *_ in line:
            take = ""
            for ch in text:
                cw = get_cwidth(ch)
                if used + cw > width:
                    break
                take, used = take + ch, used + cw
            if take:
                out.append((style, take))
            if used >= width or len(take) < len(text):
                break
        return out + [("", " " * (width - used))]
    gap = width - w
    if align == "right":
        return [("", " " * gap), *line]
    if align == "center":
        return [("", " " * (gap // 2)), *line, ("", " " * (gap - gap // 2))]
    return [*line, ("", " " * gap)]


def column_widths(width: int, columns: int, outer: int = 0) -> list[int]:
    """Equal columns, the remainder to the middle one; the outer two at least ``outer``
    wide when the middle keeps `MIDDLE_ROOM` (else as much as leaves it that).

    >>> column_widths(69, 3), column_widths(69, 3, 24), column_widths(69, 3, 30)
    ([23, 23, 23], [24, 21, 24], [24, 21, 24])
    """
    base = width // columns
    widths = [base] * columns
    widths[columns // 2] += width - base * columns
    wider = min(outer, (width - MIDDLE_ROOM) // 2) - widths[0]
    if columns == 3 and wider > 0:
        widths = [widths[0] + wider, widths[1] - 2 * wider, widths[2] + wider]
    return widths


def alone_in_row(by_cell: dict[Cell, int], columns: int) -> set[Cell]:
    """The places in the middle column with no other place in their row (the top and the
    bottom at a table of four): each may take the whole row.

    >>> sorted(alone_in_row({c: s for s, c in seat_cells(4, 0).items()}, 3))
    [(0, 1), (2, 1)]
    >>> alone_in_row({c: s for s, c in seat_cells(6, 0).items()}, 3)
    set()
    """
    mid = columns // 2
    return {(row, col) for row, col in by_cell if col == mid
            and not any((row, c) in by_cell for c in range(columns) if c != mid)}


def place_widths(obs: Observation, by_cell: dict[Cell, int],
                 width: int) -> tuple[list[int], dict[Cell, int]]:
    """The grid's column widths and each place's. A place alone in its row takes the row;
    when every place of the middle column does (four seats), the side columns widen to
    the long side line (`side_form`), which the middle's text would otherwise leave
    unused (at 100 columns, four seats had the short form)."""
    columns = grid_columns(obs.players)
    alone = alone_in_row(by_cell, columns)
    middle = [cell for cell in by_cell if cell[1] == columns // 2]
    outer = widest_side(obs) + 2 if middle and set(middle) <= alone else 0
    widths = column_widths(width, columns, outer)
    return widths, {cell: width if cell in alone else widths[cell[1]] for cell in by_cell}


def ring_lines(obs: Observation, names: Sequence[str], width: int, height: int,
               color: bool | None = None, keep: int = 0) -> list[Line]:
    """The header and the seat grid in at most ``height`` lines of ``width`` columns;
    spacing and the lines under the grid only where they leave ``keep`` lines free."""
    n = obs.players
    columns = grid_columns(n)
    cells = seat_cells(n, obs.seat)
    by_cell = {cell: seat for seat, cell in cells.items()}
    widths, places = place_widths(obs, by_cell, width)
    plays = _trick_plays(obs)
    header = header_lines(obs, width, names)
    room = max(3, height - len(header))
    compact = room < 9
    content: dict[Cell, list[Line]] = {}
    # Two columns at least between places: card lines side by side stay apart.
    form = side_form(obs, min(places.values()) - 2)
    for cell, seat in by_cell.items():
        content[cell] = seat_lines(obs, names, seat, places[cell] - 2, plays,
                                   compact=compact, color=color, form=form)
    # The middle: the free cells of the middle row around its centre.
    mid = columns // 2
    lo = hi = mid
    while lo - 1 >= 0 and (1, lo - 1) not in by_cell:
        lo -= 1
    while hi + 1 < columns and (1, hi + 1) not in by_cell:
        hi += 1
    mid_width = sum(widths[lo:hi + 1])
    middle: list[Line] = [[("class:info", t)] for t in middle_lines(obs, names, mid_width - 2)]
    heights = [max([len(lines) for (r, _), lines in content.items() if r == row] + [1])
               for row in range(3)]
    heights[1] = max(heights[1], len(middle))
    while sum(heights) > room and max(heights) > 1:
        heights[heights.index(max(heights))] -= 1
    for cell, seat in by_cell.items():  # fitted again where a row lost lines
        if len(content[cell]) > heights[cell[0]]:
            content[cell] = seat_lines(obs, names, seat, places[cell] - 2, plays,
                                       heights[cell[0]], compact, color, form)
    # Room to spare: blank lines between the rows read as a table, not a list.
    gap = max(0, min(2, (room - keep - sum(heights)) // 2))
    out: list[Line] = list(header)
    for row in range(3):
        if row and gap:
            out.append([])
        for k in range(heights[row]):
            line: Line = []
            col = 0
            if (row, mid) in places and places[(row, mid)] == width:  # alone in its row
                cell_lines = content[(row, mid)]
                out.append(_pad(cell_lines[k] if k < len(cell_lines) else [], width, "center"))
                continue
            while col < columns:
                if row == 1 and col == lo:
                    text = middle[k] if k < len(middle) else []
                    line += _pad(text, mid_width, "center")
                    col = hi + 1
                    continue
                cell_lines = content.get((row, col), [])
                text = cell_lines[k] if k < len(cell_lines) else []
                align = "left" if col == 0 else ("right" if col == columns - 1 else "center")
                line += _pad(text, widths[col], align)
                col += 1
            out.append(line)
    below: list[Line] = [[("class:dim", t)] for t in below_lines(obs, names, width)]
    if len(out) + 1 + len(below) <= height - keep and below:
        out += [[], *below]
    return out[:height]


def below_lines(obs: Observation, names: Sequence[str], width: int) -> list[str]:
    """Under the table when there is room: the point cards the defenders have won in this
    hand, and the last trick seat by seat."""
    friends = friends_view.is_friends(obs)
    if obs.phase not in (Phase.PLAY, Phase.DONE) or (obs.declarers is None and not friends):
        return []
    n = obs.players
    # hide_played: the point cards won are cards played before (their points show above).
    won = [] if hidden_play.hides_played(obs) else [
        f for t in obs.tricks if friends_view.defends(obs, t.winner)
        for cards in t.plays for f in cards if FACE_POINTS[f]]
    out: list[str] = []
    if friends and obs.calls:
        out += render.wrap_words(friends_view.side_sentence(obs, names), width, "  ", names)
    if won:
        who = "defenders" if not friends or friends_view.sides_known(obs) else \
            "seats not known to be on the starter's side"
        out += render.wrap_words(f"{who} won {render.cards_label(won)}", width, "  ")
    if obs.current and obs.tricks and hidden_play.last_trick_shown(obs):
        last = obs.tricks[-1]
        # A seat and its (first) card stay on one line: "AI 4" over "♠10" read apart.
        plays = " · ".join(f"{names[(last.leader + k) % n]}{GLUE}{render.cards_label(c)}"
                           for k, c in enumerate(last.plays))
        out += render.wrap_words(f"last trick: {plays} → {names[last.winner]}", width, "  ",
                                 keep=names)
    return out


def table_pane(obs: Observation, names: Sequence[str], events: Sequence[str], width: int,
               height: int, color: bool | None = None) -> StyleAndTextTuples:
    """The whole table pane: the ring, and the log beside it (wide screens) or in the
    rows under it that the ring leaves free."""
    if width >= LOG_BESIDE_FROM:
        left_width = width - LOG_WIDTH - 1
        left = ring_lines(obs, names, left_width, height, color)
        log = render.events_text(events, LOG_WIDTH, height, names).split("\n") if events else []
        rows: list[Line] = []
        for k in range(max(len(left), height)):
            row = _pad(left[k] if k < len(left) else [], left_width, "left")
            row += [("class:separator", "│")]
            if k < len(log):
                row.append(("class:dim", log[k]))
            rows.append(row)
        return _joined(rows)
    rows = ring_lines(obs, names, width, height, color, keep=4 if events else 0)
    free = height - len(rows)
    if free >= 2 and events:
        rule = "── latest (g: whole log) " + "─" * max(0, width - 25)
        rows.append([("class:separator", rule[:width])])
        text = render.events_text(events, width, free - 1, names)
        rows += [[("class:dim", t)] for t in text.split("\n")]
    return _joined(rows)


def _joined(rows: list[Line]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, row in enumerate(rows):
        if i:
            out.append(("", "\n"))
        out += [(s, t) for s, t, *_ in row if t]
    return out
