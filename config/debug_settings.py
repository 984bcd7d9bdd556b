"""The settings with debug asked for: what the tests (pyproject.toml) and the type checker (mypy-apps.ini)
load, as ``bin/serve`` asks for it with ``DJANGO_DEBUG=true``. Never production: ``config.settings``
alone is production unless ``DJANGO_DEBUG`` says otherwise.

The environment still decides everything else (DATABASE_URL, REDIS_URL...), and an explicit
``DJANGO_DEBUG=false`` still wins (the variable is only defaulted). Child processes started by a test
inherit the variable, whatever settings module they name.
"""

import os

os.environ.setdefault("DJANGO_DEBUG", "true")

from config.settings import *  # noqa: F403
