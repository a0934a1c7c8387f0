"""The lobby's HTTP routes: list, create, join, start, hand seats to bots and back,
look at a game (summary, replay, hint, actions, events) or at a game's rule options.
Handlers only translate between JSON and the ``Hub``; every decision lives there."""

from __future__ import annotations

from importlib import resources
from typing import Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from ..core.errors import ElfenlandError
from ..games.registry import option_spec
from .chat import PAGE, PAGE_MAX, page_events
from .errors import ServerError
from .finished import FinishedGame
from .hints import RouteHint
from .hub import Hub, LiveGame, build_state, event_json
from .lobby import CreateGame, JoinGame, SeatToBot, StartGame, TakeSeat
from .undo import effective_actions


def host_of(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def lobby_routes(hub: Hub) -> APIRouter:
    router = APIRouter()

    async def finished(game: LiveGame) -> FinishedGame | None:
        """The finished game as ``hub.finished`` keeps it (built if need be: its views,
        steps and record come from there, replayed once); None for a game in play."""
        if game.record.status != "finished":
            return None
        return await hub.finished.obtain(hub, game.record, game.events)

    # -- lobby -----------------------------------------------------------------------
    @router.get("/api/games", summary="List games")
    async def list_games(
        status: Literal["open", "running", "finished"] | None = None,
    ) -> dict[str, Any]:
        return {"games": await hub.list_games(status)}

    @router.post("/api/games", status_code=201, summary="Create a game")
    async def create_game(body: CreateGame, request: Request) -> dict[str, Any]:
        hotseat: dict[int, str] = {}
        game, seat, token = await hub.create(body, host_of(request), hotseat)
        out: dict[str, Any] = {"game": game.summary(), "seat": seat, "token": token}
        if body.hotseat:
            if seat is not None and token is not None:
                hotseat[seat] = token
            out["hotseat"] = [{"seat": s, "token": t} for s, t in sorted(hotseat.items())]
        return out

    @router.get("/api/games/{game_id}", summary="A game's summary and public view")
    async def get_game(game_id: str) -> dict[str, Any]:
        game = await hub.get(game_id, keep=False)
        [out] = await hub.with_presence([game.summary()])
        kept = await finished(game)
        if kept is None:
            return {"game": out, "view": game.state.view(None)}
        view = await hub.cpu(kept.public_view)  # the first one builds the view
        hub.finished.trim()
        return {"game": out, "view": view}

    @router.post("/api/games/{game_id}/join", summary="Take an open seat")
    async def join_game(game_id: str, body: JoinGame) -> dict[str, Any]:
        game, seat, token = await hub.join(game_id, body.name, body.seat, body.player)
        return {"game": game.summary(), "seat": seat, "token": token}

    @router.post("/api/games/{game_id}/start", summary="Start; open seats get bots")
    async def start_game(game_id: str, body: StartGame) -> dict[str, Any]:
        return (await hub.start(game_id, body.token, body.fill)).summary()

    @router.post("/api/games/{game_id}/seats/{seat}/bot", summary="Hand a seat to a bot")
    async def seat_to_bot(game_id: str, seat: int, body: SeatToBot) -> dict[str, Any]:
        return (await hub.seat_to_bot(game_id, seat, body.token, body.level)).summary()

    @router.post("/api/games/{game_id}/seats/{seat}/take", summary="Take a seat back from a bot")
    async def take_seat(game_id: str, seat: int, body: TakeSeat) -> dict[str, Any]:
        return (await hub.take_seat(game_id, seat, body.token)).summary()

    @router.get("/api/games/{game_id}/replay", summary="A view at any step")
    async def replay(game_id: str, step: int | None = Query(default=None, ge=0),
                     seat: int | None = None, token: str | None = None) -> dict[str, Any]:
        game = await hub.get(game_id, keep=False)
        record = game.record
        if seat is not None:
            if not 0 <= seat < record.players:
                raise ServerError("not-found", f"no seat {seat}")
            # The seat's own token, or the token of the player linked to it.
            if record.status != "finished" and seat not in game.seats_of(token):
                raise ServerError("bad-token",
                                  "a seat's view of a running game needs that seat's token "
                                  "(or its player's)")
        kept = await finished(game)
        if kept is not None:
            upto = kept.steps if step is None else min(step, kept.steps)
            view = await hub.cpu(kept.view_at, upto, seat)
            hub.finished.trim()
            return {"step": upto, "steps": kept.steps, "view": view}
        actions, _ = effective_actions(await hub.db(hub.store.actions, game_id), game.events)
        steps = len(actions)
        upto = steps if step is None else min(step, steps)
        state = await hub.cpu(build_state, record, actions[:upto])
        return {"step": upto, "steps": steps, "view": state.view(seat)}

    @router.get("/api/games/{game_id}/record", summary="A finished game, saved")
    async def record(game_id: str) -> Response:
        """The finished game as the engine saves it (``state.serialize()``: the game, its
        options, its seed and every action): ``elfenland.games.registry.deserialize``
        loads it back, to replay, analyse or go on from any step.  Only once the game is
        over: the seed gives away every hidden card."""
        game = await hub.get(game_id, keep=False)
        if game.record.status != "finished":
            raise ServerError("not-over", "a game's record (with its seed, which gives "
                                          "away every hidden card) is there once it is over")
        kept = await finished(game)
        assert kept is not None
        saved = await hub.cpu(kept.saved)
        hub.finished.trim()
        return Response(saved, media_type="application/json",
                        headers={"Content-Disposition":
                                 f'attachment; filename="{game.record.game}-{game_id}.json"'})

    @router.get("/api/games/{game_id}/hint", summary="The best route for the seat to move",
             response_model=RouteHint)
    async def hint(game_id: str, token: str | None = Query(default=None, max_length=200),
                   seat: int | None = None) -> dict[str, Any]:
        """Elfenland's move phase only, for the seat to act (its token, or its linked
        player's; ``seat`` names it when that player holds several): the movement
        planner's best journey from the server's state."""
        return await hub.hint(game_id, token, seat)

    @router.get("/api/games/{game_id}/actions", summary="Every action's public text")
    async def actions(game_id: str) -> dict[str, Any]:
        game = await hub.get(game_id, keep=False)
        kept = await finished(game)
        view = (await hub.cpu(kept.final_view, None) if kept is not None
                else game.state.view(None))
        hub.finished.trim()
        return {"actions": [e["action"] for e in view.get("log", [])]}

    @router.get("/api/games/{game_id}/events", summary="Timeouts, take-overs and chat")
    async def events(game_id: str, after: int = Query(default=0, ge=0),
                     limit: int = Query(default=PAGE, ge=1, le=PAGE_MAX)) -> dict[str, Any]:
        """A page of events numbered after ``after``; ``next`` is the ``after`` of the
        next page (null: the last one)."""
        game = await hub.get(game_id, keep=False)
        page, following = page_events(game.events, after, limit)
        return {"events": [event_json(e) for e in page], "next": following}

    @router.get("/api/options/{game}", summary="A game's rule options (its OptionSpec)")
    async def options(game: str = Path(max_length=40)) -> dict[str, Any]:
        """The one declared option specification of ``game``: every option's name, type,
        default, range or choices, the rule sets and the variants (the web lobby builds
        its rule-option fields from it)."""
        try:
            return option_spec(game).to_json()
        except ElfenlandError:
            raise ServerError("not-found", f"no game {game!r}") from None

    @router.get("/api/maps/elfenland", summary="The Elfenland board")
    async def elfenland_map() -> Response:
        data = (resources.files("elfenland.games.elfenland") / "data" / "elfenland-map.json")
        return Response(data.read_bytes(), media_type="application/json")

    return router
