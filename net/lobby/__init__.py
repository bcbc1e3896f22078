"""The LAN lobby: seating and readiness, its protocols, passphrase authentication,
discovery by multicast, and how an AI server shares its players."""
