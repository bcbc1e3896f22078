"""The peer's journal: what a crash must not lose, and the record of past games (SQLite)."""
