"""Lookup tables the meld kernels take as arguments.

Built with plain numpy at import (a few milliseconds) and passed to the
kernels explicitly: numba freezes global arrays into the compiled code, which
defeats on-disk caching for large ones.

Suit patterns are 13-bit ints, bit ``r`` set when rank ``r`` (ace = 0) of that
suit is held.
"""

from __future__ import annotations

import numpy as np

from .cards_nb import N_RANKS, N_SUITS, rank_value

SUIT_PATTERNS = 1 << N_RANKS
NO_DISCARD = 1_000  # sentinel deadwood for "no card left to discard" (fits int16)

# Rows of the table returned by ``suit_tables``.
ROW_RUN_DEADWOOD = 0  # least deadwood of the pattern using runs only
ROW_RUN_DEADWOOD_DROP = 1  # least run-only deadwood after removing one card
ROW_VALUE = 2  # total card value of the pattern


def _run_only_deadwood() -> np.ndarray:
    """Exact run-only deadwood of every suit pattern, by dynamic programming.

    The lowest held rank is either deadwood or the bottom of a run, so
    ``best[p]`` follows from patterns with fewer cards.
    """
    best = np.zeros(SUIT_PATTERNS, dtype=np.int64)
    for pattern in range(1, SUIT_PATTERNS):
        low = (pattern & -pattern).bit_length() - 1
        rest = pattern & ~(1 << low)
        choice = rank_value(low) + best[rest]
        top, run = low, 1 << low
        while top + 1 < N_RANKS and pattern >> (top + 1) & 1:
            top += 1
            run |= 1 << top
            if top - low >= 2:
                choice = min(choice, best[pattern & ~run])
        best[pattern] = choice
    return best


def suit_tables() -> np.ndarray:
    """The ``(3, 8192)`` int16 table indexed by the ``ROW_*`` constants.

    int16 keeps the hot row in 16 KiB, inside the L1 cache.
    """
    run_dw = _run_only_deadwood()
    drop = np.full(SUIT_PATTERNS, NO_DISCARD, dtype=np.int64)
    value = np.zeros(SUIT_PATTERNS, dtype=np.int64)
    for pattern in range(1, SUIT_PATTERNS):
        for rank in range(N_RANKS):
            if pattern >> rank & 1:
                value[pattern] += rank_value(rank)
                drop[pattern] = min(drop[pattern], run_dw[pattern & ~(1 << rank)])
    return np.stack([run_dw, drop, value]).astype(np.int16)


def all_melds() -> np.ndarray:
    """Every meld of the deck as a 52-bit mask: 3- and 4-card sets, runs of 3 to 13."""
    melds: list[int] = []
    for rank in range(N_RANKS):
        rank_cards = [suit * N_RANKS + rank for suit in range(N_SUITS)]
        full = sum(1 << c for c in rank_cards)
        melds.append(full)
        melds.extend(full & ~(1 << c) for c in rank_cards)
    for suit in range(N_SUITS):
        for low in range(N_RANKS):
            for high in range(low + 2, N_RANKS):
                run = ((1 << (high - low + 1)) - 1) << low
                melds.append(run << (suit * N_RANKS))
    return np.array(sorted(melds), dtype=np.int64)
