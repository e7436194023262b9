"""Trusted: hidden suite, suite-wide setting: the judge's tiny models run on one torch thread.

Every judge model here has a few thousand weights; with torch's default (one thread per core) each op
pays thread hand-off and spin-waiting, which doubles the suite's CPU time on an idle machine and costs
far more on a busy one. The grader's own setting is restored when the suite ends.
"""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
