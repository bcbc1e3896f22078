"""Peer network: the committed-shuffle deck (`deck/`), the replicated table, peers over TCP,
the lobby, LAN discovery and the journal."""
