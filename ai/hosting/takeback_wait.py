"""How long an AI seat waits after a person's play that may still be taken back
(`Rules.takebacks`) before it plays its own: the time to see a mis-click, since the AI's
play would make the take-back come too late. A module of its own so that the command line
reads the figures without importing the AI (`cli/main.py` keeps its start fast).

1.5 s by default: long enough to see the card land and press `u`, short enough that a
hand (a wait in most of its 25 tricks) does not drag; `--takeback-wait` sets another.
"""

TAKEBACK_GRACE = 1.5  #: seconds, by default
MAX_TAKEBACK_WAIT = 10.0  #: seconds at most (`--takeback-wait`, a journal's figure)
