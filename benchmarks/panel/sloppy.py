"""sloppy: a beginner's sensible plan, played with a beginner's slips.

The style it reconstructs: the human beginner of the how-to-play guides and
of casual online tables, who knows the plan (take a card that makes a meld,
throw high deadwood, knock when you can) but does not carry it out every
time: it overlooks a meld on the pile, throws a high card that is not the
best one to throw, forgets to knock, and likes a pair more than it should.
Its slips are drawn from its own seat's random stream (the kit's
``rand_unit_nb``), so that a seed replays them exactly.

* **Draw**: take the pile top when it sits in a meld of some best arrangement
  of the hand with it, unless it overlooks it (chance ``oversight``); take a
  card that pairs a held card (its rank) with chance ``pair_love``; otherwise
  the stock.
* **Discard**: with chance ``noise`` a random card among its (up to) three
  highest cards that are deadwood in some best arrangement; otherwise the
  highest of them; with none, the discard leaving the least deadwood.
* **Knock**: gin (and big gin) always; any other legal knock, except with
  chance ``miss_knock``, when it plays on.
* **Lay melds**: the first best arrangement.
"""

from numba import njit

from oklasim.strategy_api import (
    BIT,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    N_RANKS,
    N_SUITS,
    V_HAND,
    Family,
    Param,
    allowed_discards_nb,
    best_discard_nb,
    card_index_nb,
    decide_kernel,
    knock_if_at_most_nb,
    loose_cards_nb,
    melded_in_some_optimal_nb,
    pile_top_nb,
    rand_below_nb,
    rand_unit_nb,
    rank_count_nb,
    rank_of_nb,
)

FAMILY = Family(
    name="sloppy",
    doc="A beginner's plan with slips: overlooks melds, throws a wrong high card, forgets to knock, loves pairs.",
    params=(
        Param("oversight", 0.25, 0, 1, "chance it overlooks a pile card that would meld"),
        Param("pair_love", 0.5, 0, 1, "chance it takes a pile card that pairs a held card"),
        Param("noise", 0.35, 0, 1, "chance its discard is a random one of its three highest deadwood cards"),
        Param("miss_knock", 0.25, 0, 1, "chance it plays on instead of a legal knock short of gin"),
    ),
)
OVERSIGHT, PAIR_LOVE, NOISE, MISS_KNOCK = FAMILY.indexes("oversight", "pair_love", "noise", "miss_knock")
CHOICES = 3  # how many of its highest deadwood cards a noisy discard picks among


@njit(cache=True)
def sloppy_discard_nb(view, params):
    hand = view[V_HAND]
    allowed = allowed_discards_nb(view)
    loose = loose_cards_nb(hand, allowed)
    top = [-1, -1, -1]  # its highest deadwood cards, highest first
    found = 0
    for rank in range(N_RANKS - 1, -1, -1):
        for suit in range(N_SUITS - 1, -1, -1):
            card = card_index_nb(rank, suit)
            if found < CHOICES and loose & (BIT << card):
                top[found] = card
                found += 1
    if found == 0:
        return best_discard_nb(hand, allowed)
    if rand_unit_nb(view) < params[NOISE]:
        return top[rand_below_nb(view, found)]
    return top[0]


@decide_kernel()
def decide_nb(kind, view, params):
    hand = view[V_HAND]
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        top = pile_top_nb(view)
        if top < 0:
            return 0
        if melded_in_some_optimal_nb(hand | (BIT << top), top) and rand_unit_nb(view) >= params[OVERSIGHT]:
            return 1
        if rank_count_nb(hand, rank_of_nb(top)) > 0 and rand_unit_nb(view) < params[PAIR_LOVE]:
            return 1
        return 0
    if kind == D_KNOCK:
        gin = knock_if_at_most_nb(view, 0.0)
        if gin >= 0 or rand_unit_nb(view) < params[MISS_KNOCK]:
            return gin  # gin, big gin, or (a slip) play on
        return knock_if_at_most_nb(view, 10.0)
    if kind == D_DISCARD:
        return sloppy_discard_nb(view, params)
    return 0  # D_ARRANGE: the first best arrangement
