"""Only the optional compiled engines (and the planner's search) live here; everything
else is in pyproject.toml.

``optional=True``: on a machine without a C compiler (or without Python's headers) the
build of ``_speedups`` or ``_planner`` fails with a warning and the package installs
without it; the pure engine (or planner) then runs.  ``ELFENLAND_PURE=1`` skips the
compiled code on purpose.

The C is built with ``-Wall -Wextra -Werror`` (issue #22): a warning is a build error, so
CI stops on one.  ``ELFENLAND_CFLAGS_LAX=1`` drops ``-Werror`` for a compiler newer than
the code (a user's install then still gets the compiled engine).  Extra ``CFLAGS`` in the
environment (the sanitizer build in ``.ci/run``) are added by setuptools as usual.
"""

import os

from setuptools import Extension, setup

WARNINGS = ["-Wall", "-Wextra"]
if os.environ.get("ELFENLAND_CFLAGS_LAX", "").strip() not in ("1", "true", "yes"):
    WARNINGS.append("-Werror")

#: The C every compiled engine includes (core/_engine_common.h): a change to it rebuilds
#: them all; the sdist and the wheel carry it (package data in pyproject.toml).
COMMON = [
    "src/elfenland/core/_engine_common.h",
    "src/elfenland/core/_engine_type.h",
    "src/elfenland/core/_engine_api.h",
]

ext_modules = []
if os.environ.get("ELFENLAND_PURE", "").strip() not in ("1", "true", "yes"):
    for game in ("elfenland", "kingelves", "elfengold"):
        ext_modules.append(Extension(
            f"elfenland.games.{game}._speedups",
            sources=[f"src/elfenland/games/{game}/_speedups.c"],
            depends=[*COMMON, "src/elfenland/games/elfenland/_state.h"],
            extra_compile_args=["-O2", *WARNINGS],
            optional=True,
        ))
    # The movement planner's search (bots/planner.py), compiled the same way.
    ext_modules.append(Extension(
        "elfenland.bots._planner",
        sources=["src/elfenland/bots/_planner.c"],
        depends=[*COMMON, "src/elfenland/games/elfenland/_state.h",
                 "src/elfenland/bots/_quick_rollout.h"],
        # the rollouts' evaluation must round as Python's does: no fused multiply-adds
        extra_compile_args=["-O2", "-ffp-contract=off", *WARNINGS],
        optional=True,
    ))
    # The King of the Elves journey planner's search (bots/kingelves_journey.py): the
    # rates' float sum must round as Python's does, so no fused multiply-adds.
    ext_modules.append(Extension(
        "elfenland.bots._kingelves_planner",
        sources=["src/elfenland/bots/_kingelves_planner.c"],
        extra_compile_args=["-O2", "-ffp-contract=off", *WARNINGS],
        optional=True,
    ))
    # The batched environment's loop over the compiled engines (envs/vector.py).
    ext_modules.append(Extension(
        "elfenland.envs._vector",
        sources=["src/elfenland/envs/_vector.c"],
        depends=COMMON,
        extra_compile_args=["-O2", *WARNINGS],
        optional=True,
    ))

setup(ext_modules=ext_modules)
