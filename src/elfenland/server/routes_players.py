"""Players and ratings over HTTP: become a player, change one's name or webhook, one's
unfinished games, the leaderboards."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Query

from ..core.errors import ElfenlandError
from ..games.registry import game_info
from .errors import ServerError
from .hub import Hub, now_iso
from .lobby import clean_name
from .players import NewPlayer, UpdatePlayer, player_json, rating_json
from .store import PlayerRecord
from .tokens import hash_token, new_game_id, new_token


def player_routes(hub: Hub) -> APIRouter:
    router = APIRouter()

    # -- players and ratings ------------------------------------------------------------
    @router.post("/api/players", status_code=201, summary="Become a player (name, webhook)")
    async def new_player(body: NewPlayer) -> dict[str, Any]:
        webhook = await hub.players.check_webhook(body.webhook)
        token = new_token()
        player = PlayerRecord(new_game_id(), clean_name(body.name, 0), webhook, now_iso())
        await hub.db(hub.store.create_player, player, hash_token(token))
        return {"player": player_json(player), "token": token}

    @router.get("/api/players/me", summary="The player a token belongs to")
    async def me(token: str = Query(max_length=200)) -> dict[str, Any]:
        return player_json(await hub.players.by_token(token))

    @router.post("/api/players/me", summary="Change one's name or webhook")
    async def update_me(body: UpdatePlayer) -> dict[str, Any]:
        player = await hub.players.by_token(body.token)
        if body.name is not None:
            player = replace(player, name=clean_name(body.name, 0))
        if body.webhook is not None:
            player = replace(player, webhook=await hub.players.check_webhook(body.webhook))
        await hub.db(hub.store.update_player, player)
        hub.players.updated(player)
        return player_json(player)

    @router.get("/api/players/me/games", summary="One's unfinished games, to act first")
    async def my_games(token: str = Query(max_length=200)) -> dict[str, Any]:
        player = await hub.players.by_token(token)
        out = []
        for game_id, seat in await hub.db(hub.store.player_games, player.id):
            # Looked at, not claimed: in a cluster, asking must not pull the game away
            # from the process that serves it.
            game = await hub.get(game_id, keep=False)
            summary = game.summary()
            out.append({**summary, "seat": seat, "waiting": summary["to_act"] == seat})
        out = await hub.with_presence(out)
        out.sort(key=lambda g: not g["waiting"])
        return {"games": out}

    @router.get("/api/ratings", summary="The leaderboard of one game kind")
    async def ratings(game: str = Query(default="elfenland", max_length=40)) -> dict[str, Any]:
        """Only a game the server has (any of its names) is looked up: the store never
        sees what a client typed (a NUL in it was PostgreSQL's error, an HTTP 500)."""
        try:
            game = game_info(game).name
        except ElfenlandError:
            raise ServerError("not-found", f"no game {game!r}") from None
        rows = await hub.db(hub.store.ratings, game)
        return {"game": game, "ratings": [rating_json(r) for r in rows]}

    return router
