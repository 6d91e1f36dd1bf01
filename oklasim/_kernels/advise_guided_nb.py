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

import numpy as np
from numba import njit

from .advise_history_nb import unit_nb
from .advise_worlds_nb import improved_hand_nb
from .kit_nb import BIT
from .rng_nb import below_nb, next_state_nb, stream_state_nb

GUIDED_SHARE = 0.5  # of the worlds drawn by the guide: a poor guide then costs at most half the effective worlds


@njit(cache=True)
def running_sums_nb(guide, out):
    """``out[i]``: the sum of ``guide[:i + 1]`` (once per batch: what ``guided_hand_nb`` bisects)."""
    total = 0.0
    for i in range(guide.shape[0]):
        total += guide[i]
        out[i] = total


@njit(cache=True, inline="always")
def guided_card_nb(running, n_unseen, state):
    """An unseen card's index drawn in proportion to the guide (``running``: its running sums), by bisection."""
    target = unit_nb(state) * running[n_unseen - 1]
    j, last = 0, n_unseen - 1
    while j < last:  # (selects rather than branches: which half follows no pattern)
        middle = (j + last) // 2
        right = running[middle] <= target
        j = middle + 1 if right else j
        last = last if right else middle
    return j


@njit(cache=True)
def guided_hand_nb(key, sample, unseen, n_unseen, known, need, draws, guide, running, share, cards):
    """World ``sample``'s opponent hand: its cards read by ``guide`` (one positive weight per unseen card, in
    ``unseen``'s order; ``running``: its ``running_sums_nb``), or with chance 1 - ``share`` in the prior's
    uniform order.

    Returns (the hand, prior / proposal probability of the cards read, the state that draws its stock): the
    proposal being that mixture, the ratio is at most 1 / (1 - share), so a poor guide costs at most that
    factor of effective worlds. ``cards`` is scratch. The stock (``stock_of_rest_nb`` from that state) is
    drawn only for the worlds that are played: most weigh 0. Each card is drawn from all the unseen ones
    again until it is one not read yet, which draws it in proportion to its weight among those left with no
    table to update (a world reads a few cards of 20-40); the ratio is a product, with no logarithm.
    """
    state = stream_state_nb(key, sample)
    read = need if draws < 0 else need + min(draws, n_unseen - need)
    state = next_state_nb(state)
    guided = unit_nb(state) < share
    total = running[n_unseen - 1]  # of the cards left
    taken = np.int64(0)  # the indices read
    ratio = 1.0  # guided / prior probability of the cards read so far
    for k in range(read):
        while True:
            state = next_state_nb(state)
            j = guided_card_nb(running, n_unseen, state) if guided else below_nb(state, n_unseen)
            if not taken >> j & 1:
                break
        taken |= np.int64(1) << j
        ratio *= guide[j] / total * (n_unseen - k)
        total -= guide[j]
        cards[k] = unseen[j]
    hand = known
    for k in range(need):
        hand |= BIT << cards[k]
    return improved_hand_nb(hand, known, cards, need, read), 1.0 / (1.0 - share + share * ratio), state
