"""Pieces both games stand on: transport and terrain costs, errors, seeded randomness,
and the state interface every game implements."""
