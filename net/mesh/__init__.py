"""The mesh between the seats: TCP links, frames in and out, who is reachable, and
reliable broadcast of signed frames."""
