"""counter: times its knock by counting draws and watching the opponent's pickups and discards.

The style it reconstructs: the "count the turns, watch the other hand" advice
of club players and gin guides, and the end games that EAAI-2021 challenge
papers report (strong entrants knock early in a hand and grow pickier later;
Goldstein et al. find by counterfactual regret minimisation that the right
knocking rule depends on the rules and the state of the hand). Early it
knocks like anyone; later it waits for a low hand only when the opponent
shows no sign of closing in, and races when it does: when the opponent
builds from the pile, or throws only low cards (a hand near its end has
thrown its high cards already).

* **Draw**: take the pile top when it sits in a meld of some best arrangement
  of the hand with it, or when it lowers the hand's deadwood (after the best
  discard other than the taken card) by at least ``min_gain``.
* **Discard**: in its first ``early_draws`` own draws it plays for shape:
  among the cards that are deadwood in some best arrangement, the one with
  the lowest score: its live partners (unseen cards of its rank or of its suit
  within two ranks), less the opponent discards next to it (of its rank, or
  of its suit one rank away), less ``value_weight`` per point of its value;
  ties go to the higher card. Later it plays for points: among the cards
  within ``slack`` deadwood points of the least-deadwood discard, the one
  with the most opponent discards next to it (what the opponent threw, it
  does not collect); ties go to the less deadwood, then the higher card.
* **Knock**: gin (and big gin) always. In its first ``early_draws`` own draws,
  any legal knock. Later, any legal knock when an opponent has taken a card
  from the pile this hand or its last ``streak`` discards were all worth at
  most ``low_card`` (read from the hand's public log); otherwise only with
  deadwood at most ``quiet_max``.
* **Lay melds**: the first best arrangement.
"""

from numba import njit

from oklasim.strategy_api import (
    BIT,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    MAX_LOG_TURNS,
    NO_CARD,
    V_HAND,
    V_LOG_TURNS,
    V_MY_DRAWS,
    V_PLAYERS,
    V_SEAT,
    V_TAKEN,
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
    log_turn_nb,
    loose_cards_nb,
    melded_in_some_optimal_nb,
    min_deadwood_discards_nb,
    neighbours_nb,
    opponents_discards_nb,
    pile_top_nb,
    unseen_nb,
)

FAMILY = Family(
    name="counter",
    doc="Knocks early; later holds out for a low hand unless the opponent picks up from the pile or sheds low cards.",
    params=(
        Param("early_draws", 6, 0, 99, "during its first this many own draws, knock whenever legal", search=(0, 20)),
        Param("quiet_max", 3, 0, 10, "later, against a quiet opponent, knock only with deadwood at most this"),
        Param("streak", 2, 1, 10, "this many low discards in a row by the opponent: it is close, race it"),
        Param("low_card", 5, 1, 10, "a discard worth at most this counts as low"),
        Param("min_gain", 4, 1, 20, "take a pile card that lowers deadwood by at least this"),
        Param("slack", 2, 0, 10, "most deadwood points a discard may give up to throw next to the opponent's"),
        Param("value_weight", 0.7, 0, 5, "early discards: live partners a point of the card's value outweighs"),
    ),
)
EARLY_DRAWS, QUIET_MAX, STREAK, LOW_CARD, MIN_GAIN, SLACK, VALUE_WEIGHT = FAMILY.indexes(
    "early_draws", "quiet_max", "streak", "low_card", "min_gain", "slack", "value_weight"
)


@njit(cache=True)
def opponent_pressing_nb(view, params):
    """Whether an opponent took a pile card this hand or its last ``streak`` discards were all low."""
    me = view[V_SEAT]
    for seat in range(view[V_PLAYERS]):
        if seat != me and view[V_TAKEN + seat] != 0:
            return True
    low = 0
    for i in range(min(view[V_LOG_TURNS], MAX_LOG_TURNS) - 1, -1, -1):
        seat, _, discard = log_turn_nb(view, i)
        if seat == me or discard == NO_CARD:
            continue
        if card_value_nb(discard) > params[LOW_CARD]:
            return False
        low += 1
        if low >= params[STREAK]:
            return True
    return False


@njit(cache=True)
def shape_discard_nb(view, params, hand, allowed, thrown):
    """The early discard: the deadwood card with the fewest live partners, less the thrown cards next to it and
    ``value_weight`` per point of its value."""
    unseen = unseen_nb(view)
    best, best_score, best_key = NO_CARD, 1e18, -1
    rest = loose_cards_nb(hand, allowed)
    while rest:
        low = rest & -rest
        rest ^= low
        card = count_cards_nb(low - 1)
        score = (count_cards_nb(neighbours_nb(low) & unseen) - count_cards_nb(beside_nb(thrown, card))
                 - params[VALUE_WEIGHT] * card_value_nb(card))
        key = high_card_key_nb(card)
        if score < best_score or (score == best_score and key > best_key):
            best, best_score, best_key = card, score, key
    return best


@njit(cache=True)
def counter_discard_nb(view, params):
    hand = view[V_HAND]
    allowed = allowed_discards_nb(view)
    thrown = opponents_discards_nb(view)
    if view[V_MY_DRAWS] <= params[EARLY_DRAWS]:
        card = shape_discard_nb(view, params, hand, allowed, thrown)
        if card >= 0:
            return card
    least, _ = min_deadwood_discards_nb(hand, allowed)
    best, best_near, best_dw, best_key = NO_CARD, -1, 1 << 30, -1
    rest = allowed
    while rest:
        low = rest & -rest
        rest ^= low
        card = count_cards_nb(low - 1)
        dw = deadwood_nb(hand ^ low)
        if dw > least + params[SLACK]:
            continue
        near = count_cards_nb(beside_nb(thrown, card))
        key = high_card_key_nb(card)
        if near > best_near or (near == best_near and (dw < best_dw or (dw == best_dw and key > best_key))):
            best, best_near, best_dw, best_key = card, near, dw, key
    return best


@decide_kernel()
def decide_nb(kind, view, params):
    hand = view[V_HAND]
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        top = pile_top_nb(view)
        if top < 0:
            return 0
        with_top = hand | (BIT << top)
        if melded_in_some_optimal_nb(with_top, top):
            return 1
        after, _ = min_deadwood_discards_nb(with_top, hand)  # the taken card may not go straight back
        return 1 if deadwood_nb(hand) - after >= params[MIN_GAIN] else 0
    if kind == D_KNOCK:
        if view[V_MY_DRAWS] <= params[EARLY_DRAWS] or opponent_pressing_nb(view, params):
            return knock_if_at_most_nb(view, 10.0)
        return knock_if_at_most_nb(view, params[QUIET_MAX])
    if kind == D_DISCARD:
        return counter_discard_nb(view, params)
    return 0  # D_ARRANGE: the first best arrangement
