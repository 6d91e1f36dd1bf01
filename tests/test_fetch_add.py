"""Threads claiming blocks from one counter (``fetch_add_nb``, the advisor's shared batches) get every index once."""

import threading

import numpy as np
from numba import njit

from oklasim._kernels.linking import fetch_add_nb


@njit(nogil=True, cache=True)
def claim_all_nb(counter, end, block, seen):
    while True:
        start = fetch_add_nb(counter, block)
        if start >= end:
            return
        for i in range(start, min(start + block, end)):
            seen[i] += 1


def test_every_index_is_claimed_once_by_racing_threads():
    end, block = 300_000, 3  # small blocks: the threads race for the counter all the time
    counter = np.zeros(1, dtype=np.int64)
    seen = np.zeros(end, dtype=np.int64)
    threads = [threading.Thread(target=claim_all_nb, args=(counter, end, block, seen)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen.min() == 1 and seen.max() == 1
    assert counter[0] == end + 3 * block  # each thread's last claim found nothing left (end: a multiple of block)


def test_it_returns_the_value_before_the_add():
    counter = np.array([40], dtype=np.int64)
    assert claim_before_nb(counter, 7) == 40 and counter[0] == 47


@njit(cache=True)
def claim_before_nb(counter, amount):
    return fetch_add_nb(counter, amount)
