"""The processes that host AI players: at a peer table, headless, in child processes, off
the reactor's thread."""
