"""The "suggest a route" hint: the bots' movement planner run on the server's own state,
so the browser never needs to know a movement rule to show the best journey.

The planner only reads the mover's own hand and town card and the public board, so the
answer tells the seat to act nothing it could not see itself."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..bots.planner import plan_journey
from ..core.game import GameState
from ..core.transport import Transport
from ..games.elfenland.state import ElfenlandState, Phase
from .errors import ServerError
from .lobby import ROUTE_HINT


def check_hint(state: GameState, seat: int, options: dict[str, Any] | None = None
               ) -> ElfenlandState:
    """The state to plan on, or the refusal: a route hint is for tables created with it
    (``options``, the game's stored options; such tables are unrated), for the seat to
    act in Elfenland's move phase (before the end-of-move discard)."""
    if options is not None and not options.get(ROUTE_HINT):
        raise ServerError("bad-request", "this table was created without route hints "
                                         "(rated tables never have them)")
    if not isinstance(state, ElfenlandState):
        raise ServerError("wrong-phase", "route hints are for Elfenland's move phase")
    if state.is_terminal():
        raise ServerError("game-over", "the game is over")
    current = state.current_player()
    if current != seat:
        raise ServerError("not-your-turn", f"it is seat {current}'s turn")
    if state.phase is not Phase.MOVE or state.discarding:
        now = "the end-of-move discard" if state.discarding else state.phase.value
        raise ServerError("wrong-phase", f"route hints are for the move phase, not {now}")
    return state


def _counts(cards: tuple[int, ...] | list[int]) -> dict[str, int]:
    return {Transport(k).slug: n for k, n in enumerate(cards) if n}


def route_hint(state: ElfenlandState, seat: int) -> dict[str, Any]:
    """The best journey for ``seat`` as JSON: each step's action text, the map's route id,
    the towns it joins and the cards it pays; then how many new towns it collects and the
    cards left before the end-of-move discard.  Runs on a copy, off the event loop."""
    journey = plan_journey(state, seat)
    towns = state.board.towns
    here = state.boots[seat]
    steps: list[dict[str, Any]] = []
    for step in journey.steps:
        route = step.action.route
        assert route is not None
        steps.append({"action": step.text, "route": state.board.routes[route].id,
                      "from": towns[here].id, "to": towns[step.to].id,
                      "paid": _counts(step.paid)})
        here = step.to
    return {"seq": len(state.history), "route": steps, "new_towns": journey.new_towns,
            "cards_left": _counts(journey.hand)}


class HintStep(BaseModel):
    """One step of the suggested journey."""

    model_config = ConfigDict(populate_by_name=True)

    action: str = Field(description="the move's action text, ready to send")
    route: str = Field(description="the map's route id (GET /api/maps/elfenland)")
    from_: str = Field(alias="from", description="town id the step leaves")
    to: str = Field(description="town id the step reaches")
    paid: dict[str, int] = Field(description="cards the step pays, by transport slug")


class RouteHint(BaseModel):
    """The planner's best journey for the seat to act (GET /api/games/{id}/hint)."""

    seq: int = Field(description="the game's seq the hint was computed at")
    route: list[HintStep]
    new_towns: int = Field(description="towns not yet collected that the journey visits")
    cards_left: dict[str, int] = Field(description="the hand after the journey, before "
                                                   "the end-of-move discard")
