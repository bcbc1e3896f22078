"""Internet tables: seat codes, the rendezvous through a mailbox server, and one
magic-wormhole per pair of seats."""
