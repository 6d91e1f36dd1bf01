"""snatcher: grabs the pile card whenever it helps at all, throws a useless stock card straight back, knocks at once.

The style it reconstructs: the pile-pickup habit of many casual players (a
face-up card that helps is a sure thing, the stock a gamble), with two
habits of quick social play that strong players warn against: a card just
drawn from the stock that fits nothing goes straight back, and a knock comes
the moment one is legal. It tells the opponent a lot (every pickup shows
what it collects) and never holds a hand for gin or an undercut.

* **Draw**: take the pile top when it lowers the hand's best deadwood (scored
  after the best discard other than the taken card), or when it is a low card
  (worth at most ``snatch_value``) touching a held card: of its rank, or of its
  suit one rank away.
* **Discard**: a card just drawn from the stock that is deadwood in some best
  arrangement and touches no held card goes straight back. Otherwise the
  highest card among those that are deadwood in some best arrangement and
  touch no held card; if every such card touches one, the highest of them;
  with none, the discard leaving the least deadwood.
* **Knock**: whenever legal, with the discard leaving the least deadwood (big
  gin when on offer).
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
    V_DRAWN,
    V_HAND,
    V_SEAT,
    V_TAKEN,
    Family,
    Param,
    allowed_discards_nb,
    always_melded_nb,
    beside_nb,
    best_discard_nb,
    best_knock_nb,
    card_value_nb,
    count_cards_nb,
    decide_kernel,
    high_card_key_nb,
    loose_cards_nb,
    pile_top_nb,
    take_lowers_deadwood_nb,
)

FAMILY = Family(
    name="snatcher",
    doc="Takes any pile card that helps, throws a useless stock card straight back, knocks whenever legal.",
    params=(Param("snatch_value", 4, 0, 10, "also take a pile card worth at most this that touches a held card"),),
)
(SNATCH_VALUE,) = FAMILY.indexes("snatch_value")


@njit(cache=True)
def touches_nb(hand, card):
    """Whether another held card is of ``card``'s rank or of its suit one rank away."""
    return beside_nb(hand & ~(BIT << card), card) != 0


@njit(cache=True)
def snatcher_discard_nb(view):
    hand = view[V_HAND]
    allowed = allowed_discards_nb(view)
    drawn = view[V_DRAWN]
    from_stock = drawn >= 0 and not (view[V_TAKEN + view[V_SEAT]] >> drawn) & 1
    if from_stock and (allowed >> drawn) & 1 and not always_melded_nb(hand, drawn) and not touches_nb(hand, drawn):
        return drawn
    lone, lone_key, any_card, any_key = NO_CARD, -1, NO_CARD, -1
    rest = loose_cards_nb(hand, allowed)
    while rest:
        low = rest & -rest
        rest ^= low
        card = count_cards_nb(low - 1)
        key = high_card_key_nb(card)
        if key > any_key:
            any_card, any_key = card, key
        if key > lone_key and not touches_nb(hand, card):
            lone, lone_key = card, key
    if lone >= 0:
        return lone
    return any_card if any_card >= 0 else best_discard_nb(hand, allowed)


@decide_kernel()
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        if take_lowers_deadwood_nb(view):
            return 1
        top = pile_top_nb(view)
        return 1 if top >= 0 and card_value_nb(top) <= params[SNATCH_VALUE] and touches_nb(view[V_HAND], top) else 0
    if kind == D_KNOCK:
        return best_knock_nb(view)
    if kind == D_DISCARD:
        return snatcher_discard_nb(view)
    return 0  # D_ARRANGE: the first best arrangement
