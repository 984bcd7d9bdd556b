"""``python -m study ...``: see ``study.cli``."""

import sys

from study.cli import main

sys.exit(main())
