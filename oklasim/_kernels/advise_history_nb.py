"""How likely the named opponent was to play exactly as it did, in one sampled world.

A world gives the opponent's hand now. Going back through its turns (latest
first), each turn is undone: the discard comes back, the card it drew goes
(the pile card it took, or one of its cards drawn from the stock, chosen in
proportion to how well it explains the turn). At every decision of the turn
its own ``decide`` is asked, on the view it had then (``snapshots``, built by
replaying the public history on an engine board), and the answer is compared
with what it did: a match counts ``1 - slip``, a mismatch ``slip``. The
slips come as a pair, ``slips = (slip, knock_slip)``: at its knock decisions
``knock_slip`` stands for ``slip`` (a model of a player that knocks whenever
it can, but is seen holding such hands now and then, declines with that
chance), at every other decision ``slip``.

The world's weight is the product over its turns of the average, over the
cards it may have drawn, of that likelihood: under a uniform deal every such
card is equally likely a priori, so with a uniform hand now and every turn
replayed these are exact importance weights for the posterior given the
whole public history (``slip = 0``: exact rejection of a deterministic
opponent). Cards are never invented or moved, so no world breaks a hard
constraint; a world the model cannot explain at all gets weight 0.

Most uniform worlds are explained only with a slip or more, and weigh a
factor ``slip`` (0.003 by default) of the best or less. Below a ``cutoff`` the weight is played by
Russian roulette (``roulette_nb``), turn by turn: such a world goes on with
chance weight / cutoff and then weighs the cutoff, else it weighs 0 and is
neither replayed further nor played out. Every step keeps the expected
weight, so the weighted estimates stay unbiased; the cost of a world then
goes to the worlds that carry the weight. Within a turn the knock and
discard answers come first when they are the same for every card it may
have drawn (``TRAIT_DRAWN_BLIND``: its knock and discard never read the
card drawn, ``Family.uses_drawn_card``): asked once, they bound the turn's
likelihood, and the roulette on that bound drops most worlds before the
draw choice is asked once per such card (below a cutoff, at the latest
turn, for a random third of them: ``LATEST_ASKED_ONE_IN``). A family that
confirms discards (``TRAIT_CONFIRMS_DISCARD``, ``Family.confirms_discard``)
is asked whether it would throw the card it threw (``D_CONFIRM_DISCARD``)
rather than which card it would throw: the same likelihood, and its "no"
may come sooner.
"""

from __future__ import annotations

import numpy as np
from numba import float64, int64, njit, uint64

from .arrays_nb import copy_into_nb
from .cards_nb import BIT, N_CARDS, count_cards_nb
from .engine_nb import knock_discards_nb
from .layout import (
    D_CONFIRM_DISCARD,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    NO_CARD,
    R_BIG_GIN,
    V_BIG_GIN,
    V_DRAWN,
    V_FORBIDDEN,
    V_HAND,
    V_KNOCK_DISCARDS,
    V_KNOCK_LIMIT,
    V_LAST_CHANCE,
    V_RULES,
)
from .linking import DECIDE_TYPE, lazy_njit
from .melds_nb import deadwood_nb
from .rng_nb import mix64_nb, next_state_nb, partial_shuffle_nb

# -- one opponent turn: an int64 row -------------------------------------------------------------
T_KIND = 0  # TURN_*
T_TAKEN = 1  # the card it took from the pile (TURN_UPCARD, TURN_PILE), else NO_CARD
T_DISCARD = 2  # the card it discarded
T_FORBIDDEN = 3  # the card it could not discard (the one it took, under the usual rule), else NO_CARD
T_ELIGIBLE = 4  # mask of the cards that may have been its stock draw (TURN_STOCK, TURN_FORCED_STOCK)
N_TURN_FIELDS = 5

TURN_PASS = 0  # passed the first upcard (nothing else in this turn)
TURN_UPCARD = 1  # took the first upcard, then discarded
TURN_PILE = 2  # chose the pile top, then discarded
TURN_STOCK = 3  # chose the stock, then discarded
TURN_FORCED_STOCK = 4  # drew from the stock after both passed (no choice), then discarded

SNAP_CHOICE = 0  # the view at its offer or draw decision
SNAP_AFTER = 1  # the view after its draw, at its knock and discard decisions

# Below a cutoff, the latest turn's draw choice is asked for one in LATEST_ASKED_ONE_IN of the cards it may have
# drawn (at random, rounded up) rather than for each (up to 11, each a full decision of the opponent): their mean
# likelihood is an unbiased estimate of the mean over all, and the card drawn is picked among them, so every world
# keeps its expected weight, and none weighs more than LATEST_ASKED_ONE_IN times the turn's exact likelihood. Every
# world drawn reaches the latest turn, where the draw choice rarely depends on the card; the earlier turns, where the
# history's telling draws are, are asked of the few worlds left, for every card (a subset there, or of one card,
# weighs a world whose one card in ten explains the turn that many times over: heavy weights, few effective worlds).
LATEST_ASKED_ONE_IN = 3

# -- what the opponent's family declares (bits of ``traits``) --------------------------------------
TRAIT_DRAWN_BLIND = 1  # its knock and discard never read the card drawn (``Family.uses_drawn_card`` False)
TRAIT_CONFIRMS_DISCARD = 2  # it answers D_CONFIRM_DISCARD (``Family.confirms_discard``)


@njit(cache=True)
def agrees_nb(fn, kind, snapshot, hand, drawn, forbidden, params, answer, slip, scratch):
    """1 - slip if ``fn`` answers ``answer`` at ``kind`` holding ``hand``, else slip."""
    copy_into_nb(scratch, snapshot)
    scratch[V_HAND] = hand
    if drawn >= 0:
        scratch[V_DRAWN] = drawn
    if forbidden >= 0:
        scratch[V_FORBIDDEN] = forbidden
    return 1.0 - slip if fn(kind, scratch, params) == answer else slip


@njit(cache=True)
def declines_knock_nb(fn, snapshot, hand, drawn, forbidden, params, slip, scratch):
    """Likelihood that it did not knock holding 11 cards ``hand`` (1 when no knock was on offer)."""
    options = knock_discards_nb(hand, snapshot[V_KNOCK_LIMIT], forbidden)
    big_gin = snapshot[V_RULES + R_BIG_GIN] != 0 and deadwood_nb(hand) == 0
    if options == 0 and not big_gin:
        return 1.0
    copy_into_nb(scratch, snapshot)
    scratch[V_HAND] = hand
    scratch[V_DRAWN] = drawn
    scratch[V_FORBIDDEN] = forbidden
    scratch[V_KNOCK_DISCARDS] = options
    scratch[V_BIG_GIN] = 1 if big_gin else 0
    scratch[V_LAST_CHANCE] = 0
    return 1.0 - slip if fn(D_KNOCK, scratch, params) == NO_CARD else slip


@njit(cache=True)
def draw_likelihood_nb(fn, turn, snapshots, before, params, slip, scratch):
    """Likelihood of a drawing turn's first choice (take the upcard, the pile top or the stock) holding ``before``."""
    kind = turn[T_KIND]
    if kind == TURN_UPCARD:
        return agrees_nb(fn, D_TAKE_UPCARD, snapshots[SNAP_CHOICE], before, NO_CARD, NO_CARD, params, 1, slip, scratch)
    if kind == TURN_PILE or kind == TURN_STOCK:
        answer = 1 if kind == TURN_PILE else 0
        return agrees_nb(fn, D_DRAW, snapshots[SNAP_CHOICE], before, NO_CARD, NO_CARD, params, answer, slip, scratch)
    return 1.0  # a forced stock draw is no choice


@njit(cache=True)
def kept_likelihood_nb(fn, turn, snapshots, after, drawn, params, slips, scratch, traits):
    """Likelihood that, holding the 11 cards ``after`` once it drew ``drawn``, it did not knock and threw its discard."""
    slip, knock_slip = slips
    forbidden = turn[T_FORBIDDEN]
    like = declines_knock_nb(fn, snapshots[SNAP_AFTER], after, drawn, forbidden, params, knock_slip, scratch)
    if like == 0.0:
        return like
    if traits & TRAIT_CONFIRMS_DISCARD:  # the snapshot asks about its discard (V_ASKED, set by the replay)
        return like * agrees_nb(fn, D_CONFIRM_DISCARD, snapshots[SNAP_AFTER], after, drawn, forbidden, params, 1, slip,
                                scratch)
    return like * agrees_nb(fn, D_DISCARD, snapshots[SNAP_AFTER], after, drawn, forbidden, params, turn[T_DISCARD],
                            slip, scratch)


@njit(cache=True)
def turn_likelihood_nb(fn, turn, snapshots, after, drawn, params, slips, scratch, traits):
    """Likelihood of one drawing turn, given the 11 cards ``after`` its draw and the card ``drawn``."""
    like = draw_likelihood_nb(fn, turn, snapshots, after & ~(BIT << drawn), params, slips[0], scratch)
    if like == 0.0:
        return like
    return like * kept_likelihood_nb(fn, turn, snapshots, after, drawn, params, slips, scratch, traits)


@njit(cache=True, inline="always")
def unit_nb(state):
    """A uniform draw in [0, 1) from ``state``."""
    return (mix64_nb(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def roulette_nb(weight, cutoff, state):
    """Russian roulette: a weight below ``cutoff`` becomes the cutoff with chance weight / cutoff, else 0 (the
    expected weight is unchanged). Returns (weight, state); the coin is the world's own next draw."""
    if weight <= 0.0 or weight >= cutoff:
        return weight, state
    state = next_state_nb(state)
    return (cutoff if unit_nb(state) * cutoff < weight else 0.0), state


@njit(cache=True)
def weight_scratch_nb(snapshots):
    """The arrays ``history_weight_nb`` works in, made once per batch rather than once per world: most worlds cost
    one decision before the roulette drops them, and their three allocations were about 4% of the weighing (perf)."""
    return (np.empty(snapshots.shape[2], dtype=np.int64), np.empty(N_CARDS, dtype=np.float64),
            np.empty(N_CARDS, dtype=np.int64))


@njit(cache=True)
def history_weight_nb(fn, params, turns, snapshots, hand, slips, state, cutoff, traits, work):
    """The world's weight given the opponent's ``hand`` now; returns (weight, state). See the module doc.

    ``cutoff`` 0: the exact weight; above 0, the weight is played by roulette after every turn (latest first,
    so a world the latest turn already condemns is dropped after one turn's replay). ``work``: ``weight_scratch_nb``.
    """
    scratch, likes, cards = work
    weight = 1.0
    for i in range(turns.shape[0] - 1, -1, -1):
        turn = turns[i]
        if turn[T_KIND] == TURN_PASS:
            weight *= agrees_nb(fn, D_TAKE_UPCARD, snapshots[i, SNAP_CHOICE], hand, NO_CARD, NO_CARD, params, 0,
                                slips[0], scratch)
            weight, state = roulette_nb(weight, cutoff, state)
            if weight == 0.0:
                return weight, state
            continue
        after = hand | (BIT << turn[T_DISCARD])
        if turn[T_KIND] == TURN_UPCARD or turn[T_KIND] == TURN_PILE:
            options = after & (BIT << turn[T_TAKEN])
        else:
            options = after & turn[T_ELIGIBLE]
        if options == 0:
            return 0.0, state
        # The knock and discard answers, once for the turn when they cannot depend on the card drawn (one card
        # possible, or an opponent whose knock and discard never read it); the weight so far times theirs bounds
        # the turn's, so the roulette can drop the world before the draw choice is asked per card.
        shared = options & (options - 1) == 0 or traits & TRAIT_DRAWN_BLIND != 0
        if shared:
            low = options & -options
            weight *= kept_likelihood_nb(fn, turn, snapshots[i], after, count_cards_nb(low - 1), params, slips,
                                         scratch, traits)
            weight, state = roulette_nb(weight, cutoff, state)
            if weight == 0.0:
                return weight, state
        n = 0
        while options:
            low = options & -options
            options ^= low
            cards[n] = count_cards_nb(low - 1)
            n += 1
        if cutoff > 0.0 and i == turns.shape[0] - 1:  # a random third of the cards (LATEST_ASKED_ONE_IN)
            asked = (n + LATEST_ASKED_ONE_IN - 1) // LATEST_ASKED_ONE_IN
            state = partial_shuffle_nb(state, cards[:n], asked)
            n = asked
        total = 0.0
        for j in range(n):
            if shared:
                like = draw_likelihood_nb(fn, turn, snapshots[i], after & ~(BIT << cards[j]), params, slips[0],
                                          scratch)
            else:
                like = turn_likelihood_nb(fn, turn, snapshots[i], after, cards[j], params, slips, scratch, traits)
            likes[j] = like
            total += like
        if total == 0.0:
            return 0.0, state
        # The card it drew, in proportion to its likelihood; the weight keeps the average (uniform a priori).
        state = next_state_nb(state)
        target = unit_nb(state) * total
        pick = 0
        while pick < n - 1 and target >= likes[pick]:
            target -= likes[pick]
            pick += 1
        weight *= total / n
        hand = after & ~(BIT << cards[pick])
        weight, state = roulette_nb(weight, cutoff, state)
        if weight == 0.0:
            return weight, state
    return weight, state


@lazy_njit(float64(DECIDE_TYPE, float64[::1], int64[:, ::1], int64[:, :, ::1], int64, float64, float64, uint64, float64,
                   int64))
def world_weight_nb(fn, params, turns, snapshots, hand, slip, knock_slip, state, cutoff, traits):
    """``history_weight_nb``'s weight, compiled once for every strategy (for callers from Python)."""
    weight, _ = history_weight_nb(fn, params, turns, snapshots, hand, (slip, knock_slip), state, cutoff, traits,
                                  weight_scratch_nb(snapshots))
    return weight


@lazy_njit(float64(DECIDE_TYPE, float64[::1], int64[::1], int64[:, ::1], int64, int64, float64, int64))
def true_turn_likelihood_nb(fn, params, turn, snapshots, after, drawn, slip, traits):
    """``turn_likelihood_nb`` of one drawing turn, compiled once for every strategy (for checks from Python)."""
    scratch = np.empty(snapshots.shape[1], dtype=np.int64)
    return turn_likelihood_nb(fn, turn, snapshots, after, drawn, params, (slip, slip), scratch, traits)
