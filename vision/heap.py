"""How a process's C heap (glibc's malloc) treats freed frames: one policy a process, chosen once.

A frame's work makes and drops many arrays of a view's size, megabytes each (the colour rims'
label maps and likelihoods, their candidate maps, the felts' zones). glibc serves an allocation
that large by mapping fresh pages and gives them back to the system when it is freed, so the next
one is faulted in and zeroed again page by page: on a 1080p hard photo about 3,000 page faults a
frame. A photo's job keeps freed memory in the heap instead (`keep_freed_memory`).

The tablet server, fed photos and camera frames for hours by many threads, must stay flat instead:
there glibc's own rising threshold and per-thread arenas let frames fragment (the server grew about
0.5 MB/s under ten tablets and a camera), so it gives frames back to the system
(`give_back_freed_memory`). Whichever is chosen first holds: a pipeline the server builds later
leaves the server's choice alone. Elsewhere than glibc neither changes anything.
"""
from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8   # mallopt's parameters (malloc.h)
KEEP_MMAP_THRESHOLD_BYTES = 32 << 20        # below this an allocation comes from the heap (glibc's own ceiling)
KEEP_TRIM_THRESHOLD_BYTES = 64 << 20        # free memory at the heap's top kept up to this
GIVE_BACK_MMAP_THRESHOLD_BYTES = 1 << 20    # a frame (6 MB at 1080p) mapped, and unmapped when freed
GIVE_BACK_ARENAS = 2                        # bounds what the server's threads' arenas hold

KEEP, GIVE_BACK = "keep freed memory", "give frames back"
_policy: str | None = None                  # the process's choice, once made


def policy() -> str | None:
    """The policy this process chose (KEEP or GIVE_BACK), or None when none applied yet."""
    return _policy


def _mallopt(*settings: tuple[int, int]) -> bool:
    """Set glibc's malloc parameters in order; False where there is no glibc mallopt to ask (another
    platform or C library) or it refused one."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt     # the process's own C library
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in settings)


def _choose(name: str, *settings: tuple[int, int]) -> bool:
    global _policy
    if _policy is not None:
        return _policy == name
    if _mallopt(*settings):
        _policy = name
    return _policy == name


def keep_freed_memory() -> bool:
    """A photo's job: keep view-sized temporaries in the heap between uses. True when this is the
    process's policy (now or before); False under another platform or the server's policy."""
    return _choose(KEEP, (M_MMAP_THRESHOLD, KEEP_MMAP_THRESHOLD_BYTES), (M_TRIM_THRESHOLD, KEEP_TRIM_THRESHOLD_BYTES))


def give_back_freed_memory() -> bool:
    """The server's: big arrays given back to the system when freed, two arenas. True when this is
    the process's policy (now or before)."""
    return _choose(GIVE_BACK, (M_MMAP_THRESHOLD, GIVE_BACK_MMAP_THRESHOLD_BYTES), (M_ARENA_MAX, GIVE_BACK_ARENAS))
