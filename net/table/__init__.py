"""The replicated table: one hand between peers, a whole game of hands, and a seat's peer
brought up from a lobby."""
