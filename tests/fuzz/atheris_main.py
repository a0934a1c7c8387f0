"""``python -m tests.fuzz.atheris_main CORPUS... [libFuzzer flags]``: the documents
target (``documents.py``) under atheris, with only this project's code instrumented for
coverage (the standard library's would slow every run and guide nothing)."""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["elfenland", "tests.fuzz"]):
    from tests.fuzz.documents import check_document

if __name__ == "__main__":
    from tests.fuzz.engines import PAIRS

    missing = [p.game for p in PAIRS.values() if not p.available]
    if missing:  # else every input "diverges": the compiled side cannot load at all
        sys.exit("the compiled engines of " + ", ".join(missing) + " are not built "
                 "(pip install -e . builds them): nothing to compare the pure engines with")
    atheris.Setup(sys.argv, check_document)
    atheris.Fuzz()
