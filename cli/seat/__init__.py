"""A person's seat behind the screens: the `TableClient` surface and the peer-to-peer
client that implements it."""
