"""Only the optional compiled engine lives here; everything else is in pyproject.toml.

``optional=True``: on a machine without a C compiler (or without Python's headers) the
build of ``_speedups`` fails with a warning and the package installs without it; the pure
engine then runs.  ``ELFENLAND_PURE=1`` skips the compiled engine on purpose.
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

setup(ext_modules=ext_modules)
