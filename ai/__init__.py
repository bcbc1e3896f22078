"""AI players that see only what a seat may see (to come: issue 5)."""
