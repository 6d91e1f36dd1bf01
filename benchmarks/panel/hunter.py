"""hunter: plays for gin; keeps the cards that can still meld two ways and throws the lone high ones.

The style it reconstructs: the gin hunter, a familiar human style at the
table and the patient end game that several write-ups of the EAAI-2021 Gin
Rummy challenge entrants describe (hold on for gin, or very near it, rather
than knock at the first chance). A gin hunter judges a card less by the
points it counts now than by the ways it can still be melded. Here a card's
*links* are the held cards it could meld with: a card of its rank (a set
partner) or of its suit within two ranks (a run partner). A card linked both
ways is *two-way* and is kept longest; a high card with no link goes first.

* **Draw**: take the pile top when it sits in a meld of some best arrangement
  of the hand with it, or when it would be a two-way card worth at most
  ``low_card``; otherwise the stock.
* **Discard**: among the cards that are deadwood in some best arrangement, the
  one with the lowest keep score: ``two_way`` for a two-way card, plus one per
  link, plus ``live_weight`` per unseen card it could meld with (a card of its
  rank or of its suit within two ranks that is neither in the pile nor known
  in an opponent's hand). Ties go to the higher card. With no such card, the
  discard leaving the least deadwood.
* **Knock**: gin (and big gin) always. Otherwise only when the stock is nearly
  out (at most ``late_stock`` cards: any legal knock), or from its
  ``patience``-th own draw on with deadwood at most ``low_deadwood``.
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
    N_RANKS,
    V_HAND,
    V_MY_DRAWS,
    V_STOCK_LEFT,
    Family,
    Param,
    allowed_discards_nb,
    best_discard_nb,
    card_value_nb,
    count_cards_nb,
    decide_kernel,
    high_card_key_nb,
    knock_if_at_most_nb,
    loose_cards_nb,
    melded_in_some_optimal_nb,
    neighbours_nb,
    pile_top_nb,
    rank_count_nb,
    rank_of_nb,
    suit_of_nb,
    suit_pattern_nb,
    unseen_nb,
)

FAMILY = Family(
    name="hunter",
    doc="Plays for gin: keeps two-way cards, throws lone high cards, knocks short of gin only late.",
    params=(
        Param("two_way", 4, 0, 20, "keep score of a card that could join both a set and a run"),
        Param("live_weight", 0.5, 0, 5, "keep score per unseen card that could meld with it"),
        Param("low_card", 5, 0, 10, "take a pile card that would be two-way when worth at most this"),
        Param("late_stock", 4, 0, 31, "knock whenever legal once the stock holds at most this many cards"),
        Param("patience", 9, 0, 99, "from this own draw on, knock with deadwood at most low_deadwood",
              search=(0, 20)),
        Param("low_deadwood", 2, 0, 10, "the most deadwood it knocks with after its patience runs out"),
    ),
)
TWO_WAY, LIVE_WEIGHT, LOW_CARD, LATE_STOCK, PATIENCE, LOW_DEADWOOD = FAMILY.indexes(
    "two_way", "live_weight", "low_card", "late_stock", "patience", "low_deadwood"
)


@njit(cache=True)
def links_nb(hand, card):
    """(set partners, run partners) of ``card`` among the other held cards."""
    others = hand & ~(BIT << card)
    rank = rank_of_nb(card)
    near = suit_pattern_nb(others, suit_of_nb(card)) & (0x1F << max(rank - 2, 0) >> max(2 - rank, 0))
    return rank_count_nb(others, rank), count_cards_nb(near & ((1 << N_RANKS) - 1))


@njit(cache=True)
def keep_score_nb(view, params, hand, card):
    sets, runs = links_nb(hand, card)
    score = float(sets + runs)
    if sets > 0 and runs > 0:
        score += params[TWO_WAY]
    return score + params[LIVE_WEIGHT] * count_cards_nb(neighbours_nb(BIT << card) & unseen_nb(view))


@njit(cache=True)
def hunter_discard_nb(view, params):
    hand = view[V_HAND]
    allowed = allowed_discards_nb(view)
    best, best_score, best_key = NO_CARD, 1e18, -1
    rest = loose_cards_nb(hand, allowed)
    while rest:
        low = rest & -rest
        rest ^= low
        card = count_cards_nb(low - 1)
        score = keep_score_nb(view, params, hand, card) - 0.01 * card_value_nb(card)
        key = high_card_key_nb(card)
        if score < best_score or (score == best_score and key > best_key):
            best, best_score, best_key = card, score, key
    return best if best >= 0 else best_discard_nb(hand, allowed)


@decide_kernel()
def decide_nb(kind, view, params):
    hand = view[V_HAND]
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        top = pile_top_nb(view)
        if top < 0:
            return 0
        if melded_in_some_optimal_nb(hand | (BIT << top), top):
            return 1
        sets, runs = links_nb(hand, top)
        return 1 if sets > 0 and runs > 0 and card_value_nb(top) <= params[LOW_CARD] else 0
    if kind == D_KNOCK:
        if view[V_STOCK_LEFT] <= params[LATE_STOCK]:
            return knock_if_at_most_nb(view, 10.0)
        if view[V_MY_DRAWS] >= params[PATIENCE]:
            return knock_if_at_most_nb(view, params[LOW_DEADWOOD])
        return knock_if_at_most_nb(view, 0.0)  # gin or big gin only
    if kind == D_DISCARD:
        return hunter_discard_nb(view, params)
    return 0  # D_ARRANGE: the first best arrangement
