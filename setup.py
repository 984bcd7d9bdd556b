"""Builds the solver's compiled search core only (the service itself is not a package).

python setup.py build_ext --inplace    (bin/setup runs this when the C sources change)
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "solver/_core.c"
# The module records the hash of the source it was built from; ``core`` refuses a stale one.
DIGEST = hashlib.sha256((Path(__file__).parent / SOURCE).read_bytes()).hexdigest()

setup(
    name="daily-patience-solver-core",
    ext_modules=[
        Extension(
            "solver._core",
            sources=[SOURCE],
            define_macros=[("CORE_SOURCE_SHA256", f'"{DIGEST}"')],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        )
    ],
)
