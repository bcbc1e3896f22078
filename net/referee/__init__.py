"""The referee: who holds the table up, decided from signed ballots, and its place on the
wire (complaints, votes, passes, verdicts)."""
