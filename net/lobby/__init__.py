"""The LAN lobby: who sits where and who is ready before a game, the protocols that carry
it, passphrase authentication, discovery by multicast, and how an AI server shares its
players.

Plain state (no sockets): `errors`, `messages` (sizes, bounded decoding, field reading),
`addresses`, `seating` (`Participant`, `Roster`, `Seating`), `tokens` (AI seat tokens),
`host_state` (`HostLobby`), `guest_state` (`GuestLobby`), `pake` (the handshakes),
`guess_line` (online guesses of a passphrase), `ai_fill` (asking an AI server for players),
`ai_pool`, `seat_names`.
On the network: `framing`, `listening`, `host_protocol` (`host_table`), `guest_protocol`
(`join_table`), `ai_server` (`serve_ai`), `discovery`.
"""
