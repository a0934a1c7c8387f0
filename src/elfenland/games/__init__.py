"""The games: each a pure rules engine behind the shared ``GameState`` interface."""
