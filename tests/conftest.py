"""Shared pytest set-up: hypothesis profiles.

Under CI (``CI`` set) property-based tests run derandomised, so a run is
repeatable; locally they explore new examples every run.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
