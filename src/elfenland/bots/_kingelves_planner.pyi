CONSTANTS: tuple[int, ...]

def solve(table: tuple[int, ...], values: tuple[int, ...], pos: tuple[object, ...],
          budget: int | None, extras: bool,
          neumaier: bool) -> tuple[list[tuple[int, int, int]], tuple[int, ...]] | bool | None: ...
