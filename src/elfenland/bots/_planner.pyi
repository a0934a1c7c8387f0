from collections.abc import Sequence

def tables(links: Sequence[Sequence[tuple[int, int, int, int, int, int]]],
           distances: Sequence[int], capital: int,
           costs: Sequence[Sequence[int | None]]) -> object: ...

def plan(tables: object, counters: Sequence[int], obstacles: Sequence[int],
         wild_kinds: Sequence[int], caravan: int, obstacle_any: int, boatmen: int,
         magnum: int, nebulae: int, target: int, end_bonus: Sequence[int] | None,
         limit: int, preference: Sequence[int], hand: Sequence[int], town: int,
         visited: int, needed_only: bool,
         ) -> tuple[tuple[tuple[int, int, int, int, int, int, int,
                                tuple[int, ...] | None], ...],
                    int, int, tuple[int, ...], int] | None: ...

def walks(distances: Sequence[int], n_towns: int) -> object: ...

def outlook(walks: object, start: int, todo: int, budget: int) -> tuple[int, int]: ...

def edges(tables: object, counters: Sequence[int], obstacles: Sequence[int],
          wild_kinds: Sequence[int], caravan: int, obstacle_any: int, boatmen: int,
          magnum: int, nebulae: int,
          ) -> list[list[tuple[int, int, int, int, int, int, int, int]]] | None: ...
