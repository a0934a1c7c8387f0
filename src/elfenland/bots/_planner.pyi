from collections.abc import Sequence

def search(n_towns: int, capital: int, edges: Sequence[Sequence[tuple[object, ...]]],
           distances: Sequence[int], target: int, end_bonus: Sequence[int] | None,
           limit: int, preference: Sequence[int], hand: Sequence[int], town: int,
           visited: int, needed_only: bool) -> list[int] | None: ...
