"""rulebook: a rule-based player whose every habit is a parameter: pile pickups, discards, knock timing.

A family wide enough to hold players unlike ``expert`` (the habits the
gin guides and the EAAI-21 write-ups describe, each one a number), so that
``search(model=4)`` can model an opponent by a mixture of its members and
let the opponent's own play weigh them.

* **Draw**: take the pile top when it sits in a meld of some best
  arrangement of the hand with it (``take_melds``), or when it lowers the
  hand's deadwood, after the best discard other than it, by at least
  ``take_gain`` (99: never for the gain alone); otherwise the stock.
* **Discard**: among the cards within ``slack`` deadwood points of the
  least-deadwood discard, the one with the highest score: ``value_weight``
  per point of the card's value (throw high cards), ``safety_weight`` per
  opponent discard beside it (of its rank, or of its suit one rank away:
  what the opponent threw, it does not collect), less ``partner_weight``
  per live partner (an unseen card of its rank or of its suit within two
  ranks: keep what can still meld) and one per deadwood point it gives up.
  Ties go to the higher card.
* **Knock**: gin (and big gin) always. During its first ``early_draws``
  own draws, any legal knock; after ``gin_after_draws``, only gin; in
  between with deadwood at most ``late_threshold``.
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
    V_MY_DRAWS,
    Family,
    Param,
    allowed_discards_nb,
    beside_nb,
    card_value_nb,
    count_cards_nb,
    deadwood_nb,
    decide_kernel,
    high_card_key_nb,
    knock_if_at_most_nb,
    melded_in_some_optimal_nb,
    min_deadwood_discards_nb,
    neighbours_nb,
    opponents_discards_nb,
    pile_top_nb,
    unseen_nb,
)

NEVER = 99
ANY_LEGAL = 10.0  # a knock threshold no legal knock exceeds: the knock limit is at most 10

FAMILY = Family(
    name="rulebook",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    doc="A rule-based player whose every habit is a parameter: pile pickups, discards, knock timing.",
    params=(
        Param("take_melds", 1, 0, 1, "1 = take the pile top when it sits in a meld of some best arrangement"),
        Param("take_gain", 99, 1, NEVER, "take it when it lowers deadwood by at least this (99: never for the gain)"),
        Param("slack", 0, 0, 20, "most deadwood points a discard may give up for the scores below"),
        Param("value_weight", 1, 0, 5, "discard score per point of the card's value", integer=False),
        Param("safety_weight", 0, 0, 5, "discard score per opponent discard beside the card", integer=False),
        Param("partner_weight", 0, 0, 5, "discard score taken off per live partner of the card", integer=False),
        Param("early_draws", NEVER, 0, NEVER, "during its first this many own draws, knock whenever legal",
              search=(0, 20)),
        Param("gin_after_draws", NEVER, 0, NEVER, "after this many own draws, only gin (99: never)", search=(0, 20)),
        Param("late_threshold", 10, 0, 10, "between the two: knock only with deadwood at most this"),
    ),
)
(TAKE_MELDS, TAKE_GAIN, SLACK, VALUE_WEIGHT, SAFETY_WEIGHT, PARTNER_WEIGHT, EARLY_DRAWS, GIN_AFTER_DRAWS,
 LATE_THRESHOLD) = FAMILY.indexes("take_melds", "take_gain", "slack", "value_weight", "safety_weight",
                                  "partner_weight", "early_draws", "gin_after_draws", "late_threshold")


@njit(cache=True)
def take_nb(view, params):
    """1 to take the pile top (the upcard at the first offer), 0 for the stock."""
    top = pile_top_nb(view)
    if top == NO_CARD:
        return 0
    hand = view[V_HAND]
    with_top = hand | (BIT << top)
    if params[TAKE_MELDS] and melded_in_some_optimal_nb(with_top, top):
        return 1
    after, _ = min_deadwood_discards_nb(with_top, hand)  # the taken card may not go straight back
    return 1 if deadwood_nb(hand) - after >= params[TAKE_GAIN] else 0


@njit(cache=True)
def discard_nb(view, params):
    """The card with the best score among those within ``slack`` deadwood points of the least (module doc)."""
    hand = view[V_HAND]
    allowed = allowed_discards_nb(view)
    least, _ = min_deadwood_discards_nb(hand, allowed)
    thrown, unseen = opponents_discards_nb(view), unseen_nb(view)
    best, best_score, best_key = NO_CARD, -1e18, -1
    rest = allowed
    while rest:
        low = rest & -rest
        rest ^= low
        card = count_cards_nb(low - 1)
        given_up = deadwood_nb(hand ^ low) - least
        if given_up > params[SLACK]:
            continue
        score = (params[VALUE_WEIGHT] * card_value_nb(card)
                 + params[SAFETY_WEIGHT] * count_cards_nb(beside_nb(thrown, card))
                 - params[PARTNER_WEIGHT] * count_cards_nb(neighbours_nb(low) & unseen) - given_up)
        key = high_card_key_nb(card)
        if score > best_score or (score == best_score and key > best_key):
            best, best_score, best_key = card, score, key
    return best


@decide_kernel()
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return take_nb(view, params)
    if kind == D_KNOCK:
        draws = view[V_MY_DRAWS]
        if draws <= params[EARLY_DRAWS]:
            return knock_if_at_most_nb(view, ANY_LEGAL)
        return knock_if_at_most_nb(view, 0.0 if draws > params[GIN_AFTER_DRAWS] else params[LATE_THRESHOLD])
    if kind == D_DISCARD:
        return discard_nb(view, params)
    return 0  # D_ARRANGE: the first best arrangement
