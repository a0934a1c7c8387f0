"""Only the optional compiled engines (and the planner's search) live here; everything
else is in pyproject.toml.

``optional=True``: on a machine without a C compiler (or without Python's headers) the
build of ``_speedups`` or ``_planner`` fails with a warning and the package installs
without it; the pure engine (or planner) then runs.  ``ELFENLAND_PURE=1`` skips the
compiled code on purpose.
"""

import os

from setuptools import Extension, setup

ext_modules = []
if os.environ.get("ELFENLAND_PURE", "").strip() not in ("1", "true", "yes"):
    for game in ("elfenland", "kingelves"):
        ext_modules.append(Extension(
            f"elfenland.games.{game}._speedups",
            sources=[f"src/elfenland/games/{game}/_speedups.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ))
    # The movement planner's search (bots/planner.py), compiled the same way.
    ext_modules.append(Extension(
        "elfenland.bots._planner",
        sources=["src/elfenland/bots/_planner.c"],
        extra_compile_args=["-O2"],
        optional=True,
    ))
    # The batched environment's loop over the compiled engines (envs/vector.py).
    ext_modules.append(Extension(
        "elfenland.envs._vector",
        sources=["src/elfenland/envs/_vector.c"],
        extra_compile_args=["-O2"],
        optional=True,
    ))

setup(ext_modules=ext_modules)
