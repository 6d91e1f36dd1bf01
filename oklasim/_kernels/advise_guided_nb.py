"""A guided proposal for the history's worlds, with the exact importance correction.

The played prior (``advise_worlds_nb.sample_world_nb`` without repairs) is a
function of the unseen cards it reads, in a uniform order: ``cards[:need]``
complete the opponent's hand, ``cards[need:read]`` are the stock draws that
improve it. Here a share of the worlds draw those cards one by one without
replacement in proportion to a ``guide`` weight per unseen card (learnt by
the advisor from the worlds weighed so far: cards the opponent's play makes
likely weigh more), the others in the prior's uniform order, and every world
gets the ratio of the probabilities of its cards under the prior and under
that mixture as a factor of its weight. Any positive guide then leaves the
weighted worlds' distribution the same; a good guide only makes fewer worlds
carry the weight, and a poor one costs at most a bounded factor.
"""

from __future__ import annotations

import math

from numba import njit

from .advise_history_nb import unit_nb
from .advise_worlds_nb import improved_hand_nb, stock_of_rest_nb
from .kit_nb import BIT
from .rng_nb import next_state_nb, stream_state_nb

GUIDED_SHARE = 0.5  # of the worlds drawn by the guide: a poor guide then costs at most half the effective worlds


@njit(cache=True)
def guided_world_nb(key, sample, unseen, n_unseen, known, need, draws, guide, share, left, cards, stock):
    """World ``sample``: its cards read by ``guide`` (one positive weight per unseen card, in ``unseen``'s
    order), or with chance 1 - ``share`` in the prior's uniform order.

    Returns (the opponent's hand, prior / proposal probability of the cards read, the proposal being that
    mixture: at most 1 / (1 - share), so a poor guide costs at most that factor of effective worlds);
    ``stock[:n_unseen - need]`` gets the stock, top first. ``left`` and ``cards`` are scratch."""
    state = stream_state_nb(key, sample)
    read = need if draws < 0 else need + min(draws, n_unseen - need)
    state = next_state_nb(state)
    guided = unit_nb(state) < share
    for i in range(n_unseen):
        left[i] = guide[i]
    log_ratio = 0.0  # log of guided / prior probability of the cards read so far
    for k in range(read):
        total = 0.0
        for i in range(n_unseen):
            total += left[i]
        state = next_state_nb(state)
        u = unit_nb(state)
        j = 0
        if guided:
            target = u * total
            while j < n_unseen - 1 and (left[j] == 0.0 or target >= left[j]):
                target -= left[j]
                j += 1
            while left[j] == 0.0:  # rounding ran past the last card left
                j -= 1
        else:
            nth = int(u * (n_unseen - k))
            while left[j] == 0.0 or nth > 0:
                if left[j] != 0.0:
                    nth -= 1
                j += 1
        log_ratio += math.log(left[j] / total) + math.log(n_unseen - k)
        left[j] = 0.0
        cards[k] = unseen[j]
    hand = known
    for k in range(need):
        hand |= BIT << cards[k]
    hand = improved_hand_nb(hand, known, cards, need, read)
    stock_of_rest_nb(hand, unseen, n_unseen, stock, state)
    return hand, 1.0 / (1.0 - share + share * math.exp(log_ratio))
