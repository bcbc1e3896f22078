"""`DeckConfig`: what every peer of a hand agrees on before the deck is shuffled."""

from __future__ import annotations

from dataclasses import dataclass, replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


@dataclass(frozen=True)
class DeckConfig:
    """What every peer of a hand agrees on before it starts."""

    table: bytes
    hand: int
    public_keys: tuple[Ed25519PublicKey, ...]
    decks: int = 2
    hand_size: int = 25
    #: The seat that draws position 0; None while the hand before is still played (the
    #: deck is shuffled and locked meanwhile, `Deck.set_first` names it).
    first: int | None = 0
    key_timeout: float = 30.0

    @property
    def seats(self) -> int:
        return len(self.public_keys)

    @property
    def size(self) -> int:
        return 54 * self.decks

    @property
    def dealt(self) -> int:
        """Positions dealt to the seats; the rest is the talon."""
        return self.seats * self.hand_size

    def with_first(self, first: int) -> DeckConfig:
        """This configuration with ``first`` as the seat that draws position 0."""
        if not 0 <= first < self.seats:
            raise ValueError(f"no seat {first} at a table of {self.seats}")
        return replace(self, first=first)

    def owner_by_deal(self, position: int) -> int | None:
        if position < self.dealt and self.first is not None:
            return (self.first + position) % self.seats
        return None
