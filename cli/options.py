"""Small shared pieces of the commands: where the data lives, reading ``--rules``."""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path

from tractor.cli.errors import CliError
from tractor.net.journal.store import private_folder
from tractor.net.lobby.messages import MAX_NAME
from tractor.net.mesh.endpoints import endpoint_string
from tractor.rules import Rules, RulesError


def data_dir() -> Path:
    """Where journals and logs live: $TRACTOR_HOME, else $XDG_DATA_HOME/tractor, else
    ~/.local/share/tractor (created on first use)."""
    home = os.environ.get("TRACTOR_HOME")
    ours = not home  # a folder the person named is theirs to set
    if home:
        path = Path(home).absolute()  # children run elsewhere (not in our folder)
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(base) / "tractor"
    # The journal holds identity keys and deck secrets: this user's eyes only.
    private_folder(path, tighten=ours)
    private_folder(path / "ai", tighten=True)  # the AI peers' journals: ours wherever
    return path


class AddressError(CliError, ValueError):
    """An address a person typed that is no table's address."""


_ADDRESS = re.compile(r"(?:tcp:)?(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^\s:\[\]]+))"
                      r":(?P<port>\d{1,5})")


def lobby_endpoint(text: str) -> str:
    r"""The client endpoint for an address a person gives `tractor join` (or `tractor ai
    --join`): as the host printed it, ``tcp:192.168.1.20:40123``, or just
    ``192.168.1.20:40123``, a host name, ``[fe80::1]:40123``. Raises `AddressError`.

    >>> lobby_endpoint("192.168.1.20:40123")
    'tcp:192.168.1.20:40123'
    >>> lobby_endpoint("tcp:nuc.local:40123")
    'tcp:nuc.local:40123'
    >>> print(lobby_endpoint("[::1]:5"))
    tcp:\:\:1:5
    >>> lobby_endpoint("tcp:localhost")
    Traceback (most recent call last):
    ...
    tractor.cli.options.AddressError: give the table's address as HOST:PORT (as its host ...
    """
    match = _ADDRESS.fullmatch(text.strip())
    port = int(match.group("port")) if match else 0
    if match is None or not 1 <= port <= 65535:
        raise AddressError("give the table's address as HOST:PORT (as its host printed it, "
                           f"e.g. tcp:192.168.1.20:40123), not {text.strip()!r:.60}")
    host = match.group("v6") or match.group("host")
    try:
        return endpoint_string(host, port)
    except ValueError:  # not an IP literal: a host name
        return f"tcp:{host}:{port}"


def login_name() -> str:
    """A person's default name at the table: their login name (``--player`` overrides it).

    >>> 1 <= len(login_name()) <= 32
    True
    """
    try:
        name = getpass.getuser()
    except (OSError, KeyError, ImportError):
        # No login name in the environment or the user database (KeyError: not in the
        # password database; OSError from Python 3.13 on; ImportError: no pwd module).
        name = ""
    name = "".join(ch for ch in name if ch.isprintable()).strip()[:MAX_NAME].strip()
    return name or "player"


def journal_path() -> str:
    return str(data_dir() / "journal.sqlite")


def parse_rules(text: str | None) -> Rules:
    """``--rules players=6,decks=3,must_play_tractor=true``: options of `Rules` by name
    (`tractor rules` lists them); raises `RulesError` with the reason.

    >>> parse_rules("players=6, decks=3").decks
    3
    >>> parse_rules("throw_penalty=5,talon_cards=none").talon_cards is None
    True
    >>> parse_rules("must_defend=10/5, start_level=10").must_defend
    '5/10'

    """
    return Rules.from_data(rules_options(text))


def rules_options(text: str | None) -> dict[str, object]:
    """The options ``text`` names (``name=value`` items, separated by commas), each value
    read as a person types it: true/false (yes/no, on/off), none, a whole number, else the
    word; `RulesError` for an item that is not ``name=value`` or an option `Rules` lacks.
    Also how the lobby's ``rules NAME=VALUE ...`` reads its changes.

    >>> rules_options("throw_penalty=0, must_play_tractor=yes")
    {'throw_penalty': 0, 'must_play_tractor': True}
    """
    data: dict[str, object] = {}
    text_options = Rules.text_options()
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise RulesError(f"write rules options as name=value, not {item!r:.40} "
                             f"(options: {', '.join(Rules.option_names())})")
        value: object = raw.strip()
        low = raw.strip().lower()
        if name.strip() in text_options:
            pass  # a text option keeps its text: start_level=10, must_defend=5/10/K
        elif low in ("true", "yes", "on"):
            value = True
        elif low in ("false", "no", "off"):
            value = False
        elif low == "none":
            value = None
        elif low.lstrip("-").isdigit():
            value = int(low)
        data[name.strip()] = value
    known = Rules.option_names()
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise RulesError(f"unknown rules option(s): {', '.join(unknown)[:200]} (options: "
                         f"{', '.join(known)})")
    return data


WILDCARD = "0.0.0.0"


def listen_interface(endpoint: str) -> str:
    """The interface a ``tcp:PORT:interface=IP`` server endpoint binds (Twisted's colons
    inside a value escaped with a backslash, as an IPv6 address is); every interface
    (`WILDCARD`) when it names none.

        >>> listen_interface("tcp:0:interface=127.0.0.1"), listen_interface("tcp:40123")
        ('127.0.0.1', '0.0.0.0')
        >>> listen_interface(r"tcp:0:interface=\\:\\:1")
        '::1'
    """
    for part in re.split(r"(?<!\\):", endpoint):
        if part.startswith("interface="):
            return part[len("interface="):].replace("\\:", ":") or WILDCARD
    return WILDCARD
