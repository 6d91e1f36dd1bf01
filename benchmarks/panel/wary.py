"""wary: a cautious discarder that never feeds what the opponent collects, and rarely shows what it collects.

The style it reconstructs: the careful player of the gin books' defensive
chapters, and the defensive side of discarding that EAAI-2021 challenge
papers describe (Heisenbot weighs defence beside offence in each decision;
Ahmed et al.'s hand-strength discard weighs how useful a card is to the
opponent): watch what the opponent picks up from the pile and what it throws
away, and let the opponent's needs, not only your own deadwood, pick the
discard. Unlike oklasim's ``defensive`` (a weighted score within a slack of
the best discard), it never feeds a card next to the opponent's pickups, and
it draws and knocks like a cautious player too.

* **Draw**: from the stock, unless the pile top sits in a meld of every best
  arrangement of the hand with it and lowers the hand's deadwood (after the
  best discard other than the taken card) by at least ``min_gain``: a pickup
  shows the opponent what it collects.
* **Discard**: never a *hot* card, one of the rank of, or of the suit within
  two ranks of, a card an opponent took from the pile and still holds (unless
  every allowed card is hot). Among the others, the least ``deadwood after the
  discard + feed_weight * live - safe_weight * cold``, where *live* counts the
  unseen cards the discard could meld with (of its rank, or of its suit within
  two ranks) and *cold* is 1 when an opponent threw or passed a card of its
  rank or of its suit one rank away. Ties go to the higher card.
* **Knock**: gin (and big gin) always; otherwise with deadwood at most
  ``knock_at``, or with any legal knock once the stock holds at most
  ``late_stock`` cards.
* **Lay melds**: the first best arrangement.
"""

from numba import njit

from oklasim.strategy_api import (
    BIT,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    NO_CARD,
    V_HAND,
    V_STOCK_LEFT,
    Family,
    Param,
    allowed_discards_nb,
    always_melded_nb,
    beside_nb,
    count_cards_nb,
    deadwood_nb,
    decide_kernel,
    high_card_key_nb,
    knock_if_at_most_nb,
    min_deadwood_discards_nb,
    neighbours_nb,
    opponents_discards_nb,
    opponents_known_nb,
    pile_top_nb,
    unseen_nb,
)

FAMILY = Family(
    name="wary",
    doc="Never feeds the cards the opponent collects, seldom takes from the pile, knocks low or late.",
    params=(
        Param("min_gain", 3, 0, 20, "take a pile card that melds only when it lowers deadwood by at least this"),
        Param("feed_weight", 0.5, 0, 10, "deadwood points per unseen card a discard could meld with"),
        Param("safe_weight", 1, 0, 10, "deadwood points a discard is worth next to a card an opponent threw"),
        Param("knock_at", 8, 0, 10, "knock with deadwood at most this (0: gin only)"),
        Param("late_stock", 8, 0, 31, "knock whenever legal once the stock holds at most this many cards"),
    ),
)
MIN_GAIN, FEED_WEIGHT, SAFE_WEIGHT, KNOCK_AT, LATE_STOCK = FAMILY.indexes(
    "min_gain", "feed_weight", "safe_weight", "knock_at", "late_stock"
)


@njit(cache=True)
def wary_discard_nb(view, params):
    hand = view[V_HAND]
    allowed = allowed_discards_nb(view)
    safe = allowed & ~neighbours_nb(opponents_known_nb(view))
    candidates = safe if safe else allowed
    thrown = opponents_discards_nb(view)
    unseen = unseen_nb(view)
    best, best_cost, best_key = NO_CARD, 1e18, -1
    rest = candidates
    while rest:
        low = rest & -rest
        rest ^= low
        card = count_cards_nb(low - 1)
        live = count_cards_nb(neighbours_nb(low) & unseen)
        cold = 1 if beside_nb(thrown, card) else 0  # the opponent threw a card next to it
        cost = deadwood_nb(hand ^ low) + params[FEED_WEIGHT] * live - params[SAFE_WEIGHT] * cold
        key = high_card_key_nb(card)
        if cost < best_cost or (cost == best_cost and key > best_key):
            best, best_cost, best_key = card, cost, key
    return best


@decide_kernel()
def decide_nb(kind, view, params):
    hand = view[V_HAND]
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        top = pile_top_nb(view)
        if top < 0:
            return 0
        with_top = hand | (BIT << top)
        if not always_melded_nb(with_top, top):
            return 0
        after, _ = min_deadwood_discards_nb(with_top, hand)  # the taken card may not go straight back
        return 1 if deadwood_nb(hand) - after >= params[MIN_GAIN] else 0
    if kind == D_KNOCK:
        if view[V_STOCK_LEFT] <= params[LATE_STOCK]:
            return knock_if_at_most_nb(view, 10.0)
        return knock_if_at_most_nb(view, params[KNOCK_AT])
    if kind == D_DISCARD:
        return wary_discard_nb(view, params)
    return 0  # D_ARRANGE: the first best arrangement
