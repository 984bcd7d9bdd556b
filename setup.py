"""Builds the solver's compiled search core only (the service itself is not a package).

    python setup.py build_ext --inplace    (bin/setup runs this when the C sources change)
"""

from setuptools import Extension, setup

setup(
    name="daily-patience-solver-core",
    ext_modules=[
        Extension(
            "solver_worker.search._core",
            sources=["solver_worker/search/_core.c"],
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        )
    ],
)
