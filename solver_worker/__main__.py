"""``python -m solver_worker ...``: see ``solver_worker.cli``."""

import sys

from solver_worker.cli import main

sys.exit(main())
