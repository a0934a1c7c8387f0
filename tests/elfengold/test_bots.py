"""The generic random bot and the tournament runner play whole Elfengold games through
the ``GameState`` interface alone (the game-specific bots are for a later issue)."""

from __future__ import annotations

from elfenland.bots.tournament import Config, play_game, summarise


def test_a_tournament_of_random_bots_plays_whole_games() -> None:
    config = Config(game="elfengold", players=4, bots=("random",) * 4, games=3, seed=5,
                    rule_options=(("town_cards", True),))
    results = [play_game(config, i) for i in range(3)]
    rows = summarise(config, results)
    assert len(rows) == 4
    assert abs(sum(row["wins"] for row in rows) - 3) < 1e-9

