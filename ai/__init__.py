"""AI players that see only what a seat may see: strategies (`random`, `heuristic`,
`search`) behind one interface, and the headless AI peer that seats them on the network."""
