"""A guided proposal for the history's worlds, with the exact importance correction.

The played prior (``advise_worlds_nb.sample_world_nb`` without repairs) is a
function of the unseen cards it reads, in a uniform order: ``cards[:need]``
complete the opponent's hand, ``cards[need:read]`` are the stock draws that
improve it. Here a share of the worlds draw those cards one by one without
replacement, each in proportion to a ``guide`` (learnt by the advisor from
the worlds weighed so far): a weight per unseen card (cards the opponent's
play makes likely weigh more) times a factor per pair of cards for each card
already drawn (cards its play makes likely together: the hands it holds are
far from independent cards). The others read the cards in the prior's
uniform order, and every world gets the ratio of the probabilities of its
cards under the prior and under that mixture as a factor of its weight. Any
positive guide then leaves the weighted worlds' distribution the same; a
good guide only makes fewer worlds carry the weight, and a poor one costs at
most a bounded factor.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .advise_history_nb import unit_nb
from .advise_worlds_nb import improved_hand_nb
from .cards_nb import BIT
from .rng_nb import below_nb, next_state_nb, stream_state_nb


@njit(cache=True, inline="always")
def guided_card_nb(factors, n_unseen, target):
    """The index where the running sum of ``factors`` (0 at the cards drawn) passes ``target``: a card not drawn."""
    last, running = 0, 0.0
    for j in range(n_unseen):
        if factors[j] > 0.0:
            last = j
            running += factors[j]
            if running > target:
                return j
    return last  # (a target rounded up to the total)


@njit(cache=True)
def guided_hand_nb(key, sample, unseen, n_unseen, known, need, draws, guide, cards, factors):
    """World ``sample``'s opponent hand: its cards read by ``guide`` (a positive weight per unseen card, in
    ``unseen``'s order, a positive factor per pair of them, and the ``share`` of the worlds it draws), the
    others in the prior's uniform order.

    Returns (the hand, prior / proposal probability of the cards read, the state that draws its stock): the
    proposal being that mixture, the ratio is at most 1 / (1 - share), so a poor guide costs at most that
    factor of effective worlds. ``cards`` and ``factors`` are scratch. The stock (``stock_of_rest_nb`` from
    that state) is drawn only for the worlds that are played: most weigh 0. Each card read multiplies the
    weights of the cards left by its row of pair factors; the guided probability of the cards read is worked
    out for the uniform worlds too (the mixture's ratio needs it).
    """
    weights, pairs, share = guide
    state = stream_state_nb(key, sample)
    read = need if draws < 0 else need + min(draws, n_unseen - need)
    state = next_state_nb(state)
    guided = unit_nb(state) < share
    total = 0.0  # of the weights of the cards left
    for i in range(n_unseen):
        factors[i] = weights[i]
        total += weights[i]
    taken = np.int64(0)  # the indices read
    ratio = 1.0  # guided / prior probability of the cards read so far
    for k in range(read):
        state = next_state_nb(state)
        if guided:
            j = guided_card_nb(factors, n_unseen, unit_nb(state) * total)
        else:
            j = below_nb(state, n_unseen)
            while taken >> j & 1:  # the prior's order: uniform among the cards left
                state = next_state_nb(state)
                j = below_nb(state, n_unseen)
        taken |= np.int64(1) << j
        ratio *= factors[j] / total * (n_unseen - k)
        factors[j] = 0.0
        row = pairs[j]
        total = 0.0
        for i in range(n_unseen):
            factors[i] *= row[i]
            total += factors[i]
        cards[k] = unseen[j]
    hand = known
    for k in range(need):
        hand |= BIT << cards[k]
    return improved_hand_nb(hand, known, cards, need, read), 1.0 / (1.0 - share + share * ratio), state
