"""The compiled engines share their type, clone, attributes and module (issue #24: the
third rule set does not make a third copy): what core/_engine_type.h and
core/_engine_common.h hold is written in no engine again, and what the shared stub
core/_engine_core.pyi declares is what every compiled Core has."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import elfenland

PKG = Path(elfenland.__file__).parent
GAMES = ("elfenland", "kingelves", "elfengold")
SHARED_HEADER = PKG / "core" / "_engine_type.h"

#: Defined once, in the shared headers, for every engine.
SHARED_FUNCTIONS = (
    "copy_core", "Core_clone", "Core_traverse", "Core_clear", "Core_dealloc", "Core_new",
    "get_chain", "set_chain", "get_field", "set_field", "observe_checked",
    "Core_observe_into", "Core_observation_size", "own_methods", "PyInit__speedups",
    "redeal_counts", "redeal_town_cards", "set_result", "long_list", "read_longs",
    "hist_truncate", "hist_release", "hist_flush",
)


def _defined(source: str) -> set[str]:
    """The names of the functions a C file defines (a body follows the signature)."""
    head = r"^(?:ENGINE_MAYBE_UNUSED )?(?:static |PyMODINIT_FUNC )[^;{(]*?\**"
    return set(re.findall(head + r"(\w+)\([^;]*?\)\s*\{", source, re.MULTILINE))


@pytest.mark.parametrize("game", GAMES)
def test_an_engine_writes_none_of_the_shared_code_again(game: str) -> None:
    source = (PKG / "games" / game / "_speedups.c").read_text()
    assert '#include "../../core/_engine_type.h"' in source
    assert not _defined(source) & set(SHARED_FUNCTIONS)
    assert "static PyTypeObject CoreType = {" not in source
    assert "static PyGetSetDef Core_getset[] = {" not in source


def test_the_shared_headers_define_what_the_engines_leave_out() -> None:
    common = (PKG / "core" / "_engine_common.h").read_text()
    shared = _defined(SHARED_HEADER.read_text()) | _defined(common)
    assert set(SHARED_FUNCTIONS) - {"observe_checked"} <= shared
    assert "static int ENGINE_OBSERVE(Core *c" in SHARED_HEADER.read_text()


def _stub_methods(path: Path) -> dict[str, set[str]]:
    tree = ast.parse(path.read_text())
    return {node.name: {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
            for node in tree.body if isinstance(node, ast.ClassDef)}


@pytest.mark.parametrize("game", GAMES)
def test_every_core_has_what_the_shared_stub_declares(game: str) -> None:
    import importlib

    fast = importlib.import_module(f"elfenland.games.{game}.fast")
    if not fast.AVAILABLE:
        pytest.skip("the compiled engine is not built")
    core = fast._speedups.Core
    stubs = _stub_methods(PKG / "core" / "_engine_core.pyi")
    own = _stub_methods(PKG / "games" / game / "_speedups.pyi")["Core"]
    declared = stubs["EngineCore"] | own
    if game != "elfengold":  # the two with the research adapters' encoders
        declared |= stubs["ObservingCore"]
    methods = {name for name, v in vars(core).items() if type(v).__name__ == "method_descriptor"}
    assert methods == declared
    attributes = {name for name, v in vars(core).items()
                  if type(v).__name__ == "getset_descriptor"}
    assert {"rules", "seed", "origin", "rng", "_chain", "_legal", "_length", "n", "phase",
            "current", "result"} <= attributes
