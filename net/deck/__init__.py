"""The committed-shuffle deck: mental-poker dealing with no trusted peer.

`engine.Deck` is one peer's state machine (no sockets, no threads), made of collaborators
with one job each (engine.py lists them); `local.LocalDeal` joins several in one process;
`audit.audit_hand` checks a finished hand against the rules core once every key is out;
`worker.DeckWorker` runs the heavy work in a thread. See engine.py for the protocol.
"""
