"""Exact melds, deadwood and layoffs: the public, validated face of the kernels.

Hands are 52-bit masks (see ``oklasim.game.cards``). The vectorised functions take
anything ``numpy.asarray`` turns into int64 masks and return numpy arrays; the
others take one mask.

>>> from oklasim.game.cards import parse_hand, format_hand
>>> int(deadwood([parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d")])[0])
5
>>> [format_hand(m) for m in best_melds(parse_hand("As 2s 3s 4s 9d"))]
['As 2s 3s 4s']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from oklasim._kernels import melds_nb
from oklasim.errors import OklasimError
from oklasim.game.cards import FULL_DECK, format_hand

MELDS = frozenset(melds_nb.ALL_MELDS.tolist())
MAX_HAND = 11  # the kernels are exact for any hand, but a player never holds more


def as_masks(masks) -> np.ndarray:
    """Validate hand masks: int64, 0..52 bits, at most 11 cards each."""
    array = np.ascontiguousarray(np.asarray(masks, dtype=np.int64))
    if array.ndim != 1:
        array = array.reshape(-1)
    if array.size and (array.min() < 0 or array.max() > FULL_DECK):
        raise OklasimError("hand masks must be 52-bit card masks (0 <= mask < 2**52)")
    counts = _popcount(array)
    if array.size and counts.max() > MAX_HAND:
        worst = int(array[np.argmax(counts)])
        raise OklasimError(f"a hand has {int(counts.max())} cards, more than {MAX_HAND}: {format_hand(worst)}")
    return array


def _popcount(array: np.ndarray) -> np.ndarray:
    return np.bitwise_count(array.view(np.uint64)).astype(np.int64)


def _one(mask: int) -> int:
    return int(as_masks([mask])[0])


def deadwood(masks) -> np.ndarray:
    """Least deadwood of each hand (0 to 11 cards, no discard)."""
    array = as_masks(masks)
    out = np.empty(array.shape[0], dtype=np.int64)
    melds_nb.deadwood_many_nb(array, out)
    return out


def deadwood_after_discard(masks) -> np.ndarray:
    """Least deadwood after the best discard, for hands that have just drawn."""
    array = as_masks(masks)
    if array.size and _popcount(array).min() == 0:
        raise OklasimError("deadwood_after_discard needs at least one card in every hand")
    out = np.empty(array.shape[0], dtype=np.int64)
    melds_nb.deadwood_after_discard_many_nb(array, out)
    return out


def knock_verdict(mask: int, hand_size: int, limit: int) -> str:
    """What a hand may do under knock ``limit``: 'gin!', 'may knock' or 'may not knock'. A hand of
    ``hand_size + 1`` cards (it has just drawn) is judged after its best discard.

    >>> from oklasim.game.cards import parse_hand
    >>> drawn = parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s")  # 5 after discarding the 9
    >>> knock_verdict(drawn, 10, 6), knock_verdict(drawn, 10, 4)
    ('may knock', 'may not knock')
    >>> knock_verdict(parse_hand("As 2s 3s 4s 7d 7h 7c Jc Qc Kc 9d"), 10, 0)
    'gin!'
    """
    best = int((deadwood_after_discard if mask.bit_count() == hand_size + 1 else deadwood)([mask])[0])
    return "gin!" if best == 0 else "may knock" if best <= limit else "may not knock"


def best_discards(masks) -> np.ndarray:
    """Mask of the discards that reach ``deadwood_after_discard``, per hand."""
    array = as_masks(masks)
    if array.size and _popcount(array).min() == 0:
        raise OklasimError("best_discards needs at least one card in every hand")
    out = np.empty(array.shape[0], dtype=np.int64)
    melds_nb.best_discards_many_nb(array, out)
    return out


def optimal_arrangements(mask: int) -> list[tuple[int, ...]]:
    """Every arrangement of melds reaching the hand's least deadwood.

    Each is a tuple of meld masks in ascending order; an arrangement with no
    meld is the empty tuple. The knocker chooses among these (RULES.md §5).
    """
    hand = _one(mask)
    rows = 16
    while True:
        out = np.zeros((rows, melds_nb.MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
        count = melds_nb.optimal_arrangements_nb(hand, out)
        if count <= rows:
            return [tuple(int(m) for m in row if m) for row in out[:count]]
        rows = count


def best_melds(mask: int) -> list[int]:
    """One optimal arrangement (the first of ``optimal_arrangements``) as meld masks."""
    return list(optimal_arrangements(mask)[0])


def check_knocker_melds(knocker_melds: Sequence[int], defender: int) -> np.ndarray:
    """The knocker's melds as an array, after checking they are disjoint melds apart from the defender."""
    melds = np.asarray([int(m) for m in knocker_melds], dtype=np.int64)
    seen = 0
    for meld in melds.tolist():
        if meld not in MELDS:
            raise OklasimError(f"not a meld: {format_hand(meld) if 0 <= meld <= FULL_DECK else meld}")
        if meld & seen:
            raise OklasimError(f"knocker melds overlap at {format_hand(meld & seen)}")
        seen |= meld
    if seen & defender:
        raise OklasimError(f"cards held by both knocker and defender: {format_hand(seen & defender)}")
    return melds


def layoff_deadwood(knocker_melds: Sequence[int], defender_mask: int) -> tuple[int, int]:
    """Defender's least deadwood after its own melds and its layoffs, chosen together.

    Returns ``(deadwood, laid_off_mask)``. Layoffs: the fourth card of a
    3-card set, cards extending a run at either end, chains allowed.
    """
    defender = _one(defender_mask)
    melds = check_knocker_melds(knocker_melds, defender)
    dw, laid = melds_nb.layoff_deadwood_nb(melds, melds.shape[0], defender)
    return int(dw), int(laid)
