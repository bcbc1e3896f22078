"""What a person sees: the full-screen client, the plain client, and the pure renderings
they share."""
