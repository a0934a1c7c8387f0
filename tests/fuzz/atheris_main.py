"""``python -m tests.fuzz.atheris_main CORPUS... [libFuzzer flags]``: the documents
target (``documents.py``) under atheris, with only this project's code instrumented for
coverage (the standard library's would slow every run and guide nothing)."""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["elfenland", "tests.fuzz"]):
    from tests.fuzz.documents import check_document

if __name__ == "__main__":
    atheris.Setup(sys.argv, check_document)
    atheris.Fuzz()
