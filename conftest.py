"""Shared pytest configuration."""

import os

from hypothesis import settings

# CI: no deadline (a shared 2-core machine has noisy timings) and a fixed
# derivation of examples so that a red run can be reproduced.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
