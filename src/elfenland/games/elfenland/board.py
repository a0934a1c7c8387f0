"""The Elfenland board, read from the shipped map data and checked when loaded.

The map is data (``data/elfenland-map.json``), never retyped here: this module only turns
it into indexed, immutable tables that the rules use on every step.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ...core.errors import UnknownTownError
from ...core.once import once
from ...core.transport import Terrain

EXPECTED = {"towns": 21, "roads": 35, "rivers": 7, "lakes": 6, "town_cards": 12}


class MapError(ValueError):
    """The map data is inconsistent."""


@dataclass(frozen=True, slots=True)
class Town:
    index: int
    id: str
    name: str
    x: float
    y: float
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Route:
    """A road, a river segment or a lake crossing between two towns."""

    index: int
    id: str
    a: int
    b: int
    terrain: Terrain
    #: For rivers: the town at the downstream end.
    downstream: int | None = None
    #: For lake crossings: the lake's id.
    lake: str | None = None

    @property
    def is_road(self) -> bool:
        return self.terrain < Terrain.RIVER

    def other(self, town: int) -> int:
        if town == self.a:
            return self.b
        if town == self.b:
            return self.a
        raise ValueError(f"town {town} is not an end of route {self.id}")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


class Board:
    """Towns, routes, adjacency and distances, indexed for speed."""

    def __init__(self, data: dict[str, Any]) -> None:
        try:
            self.name: str = data["name"]
            towns = [
                Town(i, t["id"], t["name"], float(t["x"]), float(t["y"]),
                     tuple(t.get("aliases", ())))
                for i, t in enumerate(data["towns"])
            ]
            self.towns: tuple[Town, ...] = tuple(towns)
            by_id = {t.id: t.index for t in towns}
            if len(by_id) != len(towns):
                raise MapError("duplicate town id")
            self.capital: int = self._lookup_exact(by_id, _capital_id(data, towns))
            routes = []
            for i, r in enumerate(data["routes"]):
                terrain = Terrain.from_slug(r["terrain"])
                a, b = by_id[r["a"]], by_id[r["b"]]
                down = by_id[r["downstream"]] if "downstream" in r else None
                if terrain is Terrain.RIVER and down not in (a, b):
                    raise MapError(f"river {r['id']} has no downstream end")
                if terrain is Terrain.LAKE and not r.get("lake"):
                    raise MapError(f"lake crossing {r['id']} names no lake")
                routes.append(Route(i, r["id"], a, b, terrain, down, r.get("lake")))
            self.routes: tuple[Route, ...] = tuple(routes)
            self.town_cards: tuple[int, ...] = tuple(by_id[t] for t in data["town_cards"])
        except KeyError as exc:
            raise MapError(f"map data refers to a missing key or town: {exc}") from None
        self._names: dict[str, int] = {}
        for t in towns:
            for key in (t.id, t.name, *t.aliases):
                self._names[_norm(key)] = t.index
        self.roads: tuple[int, ...] = tuple(r.index for r in routes if r.is_road)
        adjacency: list[list[tuple[int, int]]] = [[] for _ in towns]
        for r in routes:
            adjacency[r.a].append((r.index, r.b))
            adjacency[r.b].append((r.index, r.a))
        #: For each town: (route index, town at the other end).
        self.adjacent: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple(x) for x in adjacency
        )
        self.distances: tuple[tuple[int, ...], ...] = tuple(
            self._bfs(i) for i in range(len(towns))
        )
        self._route_by_id = {r.id: r.index for r in routes}

    @staticmethod
    def _lookup_exact(by_id: dict[str, int], key: str) -> int:
        if key not in by_id:
            raise MapError(f"unknown town {key!r}")
        return by_id[key]

    def _bfs(self, start: int) -> tuple[int, ...]:
        dist = [-1] * len(self.towns)
        dist[start] = 0
        queue = deque([start])
        while queue:
            t = queue.popleft()
            for _, u in self.adjacent[t]:
                if dist[u] < 0:
                    dist[u] = dist[t] + 1
                    queue.append(u)
        return tuple(dist)

    def town(self, name: str | int) -> int:
        """A town's index from its id, name or alias, in any case ("Jxara" → Ixara)."""
        if isinstance(name, int):
            if 0 <= name < len(self.towns):
                return name
            raise UnknownTownError(f"no town number {name}")
        idx = self._names.get(_norm(name))
        if idx is None:
            raise UnknownTownError(f"no town called {name!r}")
        return idx

    def route(self, route_id: str) -> Route:
        try:
            return self.routes[self._route_by_id[route_id.strip().lower()]]
        except KeyError:
            raise UnknownTownError(f"no route {route_id!r}") from None

    def routes_between(self, a: int, b: int) -> list[Route]:
        return [self.routes[r] for r, u in self.adjacent[a] if u == b]

    def distance(self, a: int, b: int) -> int:
        """Links on the shortest path, rivers and lakes counting as links."""
        return self.distances[a][b]

    def validate(self) -> None:
        counts = {
            "towns": len(self.towns),
            "roads": len(self.roads),
            "rivers": sum(r.terrain is Terrain.RIVER for r in self.routes),
            "lakes": sum(r.terrain is Terrain.LAKE for r in self.routes),
            "town_cards": len(self.town_cards),
        }
        if counts != EXPECTED:
            raise MapError(f"map counts {counts}, expected {EXPECTED}")
        if any(d < 0 for row in self.distances for d in row):
            raise MapError("the board is not connected")
        if self.capital in self.town_cards:
            raise MapError("the capital cannot be a town card")
        pairs = set()
        for r in self.routes:
            key = (min(r.a, r.b), max(r.a, r.b), r.is_road)
            if key in pairs:
                raise MapError(f"two routes of the same kind between the ends of {r.id}")
            pairs.add(key)


def _capital_id(data: dict[str, Any], towns: list[Town]) -> str:
    name = _norm(data["capital"])
    for t in towns:
        if _norm(t.name) == name or t.id == name:
            return t.id
    raise MapError(f"capital {data['capital']!r} is not a town")


@once
def load_board() -> Board:
    """The real board (cached: it is immutable)."""
    text = resources.files(__package__).joinpath("data/elfenland-map.json").read_text("utf-8")
    board = Board(json.loads(text))
    board.validate()
    return board
