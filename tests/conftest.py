"""Suite-wide settings."""
from hypothesis import settings

# Property tests check correctness, not speed: on a shared 2-core machine a slow example must not
# fail a run (speed goals live in benchmarks/).
settings.register_profile("tablesight", deadline=None)
settings.load_profile("tablesight")
