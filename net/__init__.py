"""Peer network, committed-shuffle deck and replicated table (to come: issues 3 and 4)."""
