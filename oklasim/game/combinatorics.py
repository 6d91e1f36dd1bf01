"""Exact counts of gin hands: every hand of N cards that is all melds, enumerated, not sampled.

A hand has no deadwood exactly when it is a union of pairwise-disjoint melds,
so the distinct unions of N cards, divided by C(52, N), give the exact
probability of a gin hand of N cards (``oklasim.studies.dealt_hands`` reports
them). Hands are int64 card masks, as everywhere in the kernels.
"""

from __future__ import annotations

import math

import numpy as np

from oklasim._kernels.tables import all_melds
from oklasim.game.cards import FULL_DECK


def melded_hands(cards: int, deck: int = FULL_DECK, sizes: tuple[int, ...] | None = None) -> np.ndarray:
    """Every hand of ``cards`` cards from ``deck`` (a card mask) that is all melds, as sorted unique masks.

    A hand has no deadwood exactly when it is a union of pairwise-disjoint
    melds, so this enumerates such unions (a meld's cards must all be in the
    deck; only melds of the given ``sizes`` when given) level by level, one
    meld more each time in increasing meld order, and removes the hands
    reached by more than one union.
    """
    pool = np.array([m for m in all_melds().tolist() if m & ~deck == 0 and m.bit_count() <= cards
                     and (sizes is None or m.bit_count() in sizes)], dtype=np.int64)
    meld_sizes = np.bitwise_count(pool.view(np.uint64)).astype(np.int64)
    frontier_mask = np.zeros(1, dtype=np.int64)
    frontier_size = np.zeros(1, dtype=np.int64)
    frontier_last = np.full(1, -1, dtype=np.int64)
    found = [np.zeros(0, dtype=np.int64)]
    while frontier_mask.size:
        # Extend every partial union by every later meld that fits: (partials x melds) at once.
        later = np.arange(pool.size)[None, :] > frontier_last[:, None]
        disjoint = (frontier_mask[:, None] & pool[None, :]) == 0
        total = frontier_size[:, None] + meld_sizes[None, :]
        row, col = np.nonzero(later & disjoint & (total <= cards))
        masks = frontier_mask[row] | pool[col]
        size = total[row, col]
        found.append(masks[size == cards])
        keep = size <= cards - 3  # room for one more meld
        frontier_mask, frontier_size, frontier_last = masks[keep], size[keep], col[keep]
    return _unique(np.concatenate(found))


def _unique(masks: np.ndarray) -> np.ndarray:
    """Sorted distinct values (sorting beats ``np.unique`` on millions of int64 here)."""
    ordered = np.sort(masks)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if ordered.size else ordered


def with_one_more(hands: np.ndarray, deck: int = FULL_DECK) -> np.ndarray:
    """The distinct hands made by adding one card of ``deck`` not already held to each of ``hands``."""
    cards = np.array([1 << c for c in range(52) if deck >> c & 1], dtype=np.int64)
    grown = hands[:, None] | cards[None, :]
    return _unique(grown[(hands[:, None] & cards[None, :]) == 0])


def split_patterns(deck: int = FULL_DECK) -> dict[str, int]:
    """How many 10-card gin hands can be laid as 4+3+3 cards, as 5+5, as both (every gin hand is at least
    one of these: a longer run splits into shorter ones)."""
    four_three_three = melded_hands(10, deck, sizes=(3, 4))  # 3 and 4 only make 10 as 4+3+3
    five_five = melded_hands(10, deck, sizes=(5,))
    both = np.intersect1d(four_three_three, five_five, assume_unique=True)
    return {"4+3+3": int(four_three_three.size), "5+5": int(five_five.size), "both": int(both.size)}


def exact_counts() -> dict:
    """The exact counts behind the report's gin probabilities (a few seconds)."""
    gin10 = melded_hands(10)
    gin11 = with_one_more(gin10)
    big11 = melded_hands(11)
    return {
        "gin_10": int(gin10.size),
        "hands_10": math.comb(52, 10),
        "gin_in_11": int(gin11.size),
        "big_gin_11": int(big11.size),
        "hands_11": math.comb(52, 11),
        "splits": split_patterns(),
    }
