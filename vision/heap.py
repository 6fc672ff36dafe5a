"""Keep the memory of a frame's large temporaries in the process between uses (glibc's malloc).

A frame's work makes and drops many arrays of a view's size, megabytes each (the colour rims'
label maps and likelihoods, their candidate maps, the felts' zones). glibc serves an allocation
that large by mapping fresh pages and gives them back to the system when it is freed, so the next
one is faulted in and zeroed again page by page: on a 1080p hard photo about 3,000 page faults a
frame (6,200 in `find_rims` run on its own). With its thresholds raised, freed memory stays in
the heap for the next array (a process's peak use is all it holds). Elsewhere nothing changes.
"""
from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3     # mallopt's parameters (malloc.h)
MMAP_THRESHOLD_BYTES = 32 << 20                 # below this an allocation comes from the heap (glibc's own ceiling)
TRIM_THRESHOLD_BYTES = 64 << 20                 # free memory at the heap's top kept up to this

_kept = False


def keep_freed_memory() -> bool:
    """Raise glibc's thresholds once for this process; True when they are (or were) raised, False
    where there is no glibc mallopt to ask (another platform or C library)."""
    global _kept
    if _kept:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt     # the process's own C library
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    _kept = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1 and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES) == 1
    return _kept
