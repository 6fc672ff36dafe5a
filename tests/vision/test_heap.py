"""vision.heap: with glibc's thresholds raised, a frame's large temporaries, made again after they
are dropped, come from the heap, not from fresh pages faulted in one by one."""
import resource

import numpy as np
import pytest

from vision.heap import keep_freed_memory


def _page_faults_making(times: int) -> int:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(times):
        frame = np.ones((1080, 1920), np.float32)      # 8 MB, every page written
        view = np.ones((720, 1000), np.float32)        # a top view's map, 2.9 MB
        del frame, view
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_view_sized_arrays_made_again_fault_in_no_fresh_pages():
    if not keep_freed_memory():
        pytest.skip("no glibc mallopt in this process")
    _page_faults_making(1)                             # the heap grows to hold them once
    # (glibc as it comes: about 1,200 faults for these ten, every 8 MB array mapped afresh)
    assert _page_faults_making(10) < 100

