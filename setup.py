"""Builds the solver's compiled search core only (the service itself is not a package).

python setup.py build_ext --inplace    (bin/setup runs this when the C sources change)
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCES = sorted(Path("solver/csrc").glob("*.[ch]"))  # solver.core.source_files(): the same, by name
# The module records the hash of the sources it was built from; ``core`` refuses a stale one.
DIGEST = hashlib.sha256(b"".join(p.read_bytes() for p in SOURCES)).hexdigest()

setup(
    name="daily-patience-solver-core",
    ext_modules=[
        Extension(
            "solver._core",
            sources=[str(p) for p in SOURCES if p.suffix == ".c"],
            depends=[str(p) for p in SOURCES if p.suffix == ".h"],
            define_macros=[("CORE_SOURCE_SHA256", f'"{DIGEST}"')],
            # -flto and hidden symbols (only PyInit__core is exported): the files are split by concern,
            # the hot calls between them still inlined
            extra_compile_args=[
                "-O3",
                "-flto",
                "-fvisibility=hidden",
                "-std=c11",
                "-Wall",
                "-Wextra",
                "-Wno-unused-parameter",
            ],
            extra_link_args=["-O3", "-flto"],
        )
    ],
)
