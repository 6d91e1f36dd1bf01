"""eaai: the baseline player of the EAAI 2021 Gin Rummy challenge.

Where the idea comes from: ``SimpleGinRummyPlayer``, the example player Todd
Neller et al. shipped with the EAAI-21 Undergraduate Research Challenge
(Gin Rummy, Gettysburg College), which every entrant had to beat. Its policy:
"draw the face-up card only if it becomes part of a meld, otherwise draw
face down; discard a random card among those leaving minimal deadwood (never
the face-up card just drawn, never repeating a draw/discard pair); knock as
early as possible".

Here:

* **Draw**: take the upcard or the pile top only if it completes a meld.
  ``take_rule`` 0 (default) reads that as "the card sits in a meld of an
  optimal arrangement of hand + card" (kit: ``melded_in_some_optimal_nb``);
  1 is the original code's test, "the card is part of any meld of hand +
  card" (kit: ``in_any_meld_nb``), which also takes cards whose meld the
  best arrangement would not use.
* **Discard**: among the cards leaving the least deadwood, the highest
  (``tie_break`` 0) or a random one from the seat's stream (1, as the
  original). Like the original it never throws back a card it just took
  from the pile (even where the rules would allow it) and, with
  ``no_repeat``, never repeats a (card drawn, card discarded) pair within a
  hand (remembered in its eight memory slots, up to 40 pairs), which stops
  endless swaps.
* **Knock**: as soon as the discard it would make leaves a legal knock;
  big gin when on offer (not in the EAAI rules, which have no big gin).
* **Lay melds**: the first optimal arrangement (``tie_break`` 0) or a random
  one (1, as the original).

What its presets were measured to be worth: the measured results page of the
documentation (docs/results.md).
"""

from numba import njit

from oklasim.strategy_api import (
    BIG_GIN,
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    N_CARDS,
    NO_CARD,
    V_BIG_GIN,
    V_DRAWN,
    V_HAND,
    V_KNOCK_DISCARDS,
    V_N_ARRANGEMENTS,
    V_SEAT,
    V_TAKEN,
    Family,
    Param,
    allowed_discards_nb,
    decide_kernel,
    highest_card_nb,
    in_any_meld_nb,
    melded_in_some_optimal_nb,
    min_deadwood_discards_nb,
    pile_top_nb,
    rand_below_nb,
    random_card_nb,
)

FAMILY = Family(
    name="eaai",
    doc="EAAI-21 challenge baseline: take a card only if it melds, discard to least deadwood, knock at once.",
    params=(
        Param.choice("tie_break", "random", ("highest", "random"), "equal discards and arrangements: the highest "
                                                                    "card (the first one), or a random one"),
        Param.choice("take_rule", "optimal", ("optimal", "any_meld"), "take a card if it is melded in an optimal "
                                                                      "arrangement, or in any meld (the original)"),
        Param("no_repeat", 1, 0, 1, "1 = never repeat a (drawn, discarded) pair within a hand, as the original"),
    ),
    presets={
        "original": {"take_rule": "any_meld"},
        "deterministic": {"tie_break": "highest"},
    },
    memory=8,  # the (card drawn, card discarded) pairs of the hand, PAIRS_PER_SLOT to a slot
)
MEMORY, MEMORY_SLOTS = FAMILY.memory_start, FAMILY.memory

TIE_BREAK, TAKE_RULE, NO_REPEAT = FAMILY.indexes("tie_break", "take_rule", "no_repeat")

PAIR_BITS = 12
PAIRS_PER_SLOT = 5
PAIR_MASK = (1 << PAIR_BITS) - 1


@njit(cache=True)
def repeated_discards_nb(view, drawn):
    """Mask of the discards this seat already made after drawing ``drawn`` this hand."""
    mask = 0
    for slot in range(MEMORY_SLOTS):
        word = view[MEMORY + slot]
        for k in range(PAIRS_PER_SLOT):
            code = (word >> (PAIR_BITS * k)) & PAIR_MASK
            if code == 0:
                return mask
            code -= 1
            if code // N_CARDS == drawn:
                mask |= 1 << (code % N_CARDS)
    return mask


@njit(cache=True)
def remember_pair_nb(view, drawn, discard):
    """Store the pair in the first free 12-bit field of its memory (once full, stop recording)."""
    for slot in range(MEMORY_SLOTS):
        word = view[MEMORY + slot]
        for k in range(PAIRS_PER_SLOT):
            if (word >> (PAIR_BITS * k)) & PAIR_MASK == 0:
                view[MEMORY + slot] = word | ((drawn * N_CARDS + discard + 1) << (PAIR_BITS * k))
                return


@njit(cache=True)
def pick_nb(view, params, found):
    return highest_card_nb(found) if params[TIE_BREAK] == 0 else random_card_nb(view, found)


@njit(cache=True)
def eaai_discard_nb(view, params):
    """The original's discard: least deadwood, not the card just taken from the pile, no repeated pair."""
    hand = view[V_HAND]
    allowed = allowed_discards_nb(view)
    drawn = view[V_DRAWN]
    if drawn >= 0 and (view[V_TAKEN + view[V_SEAT]] >> drawn) & 1:
        # Drawn now and in our pile pickups: it came from the pile (a stock card was never in the pile).
        allowed &= ~(1 << drawn)
    candidates = allowed
    if params[NO_REPEAT] and drawn >= 0:
        fresh = allowed & ~repeated_discards_nb(view, drawn)
        if fresh:
            candidates = fresh
    _, found = min_deadwood_discards_nb(hand, candidates)
    return pick_nb(view, params, found)


@decide_kernel()
def decide_nb(kind, view, params):
    hand = view[V_HAND]
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        top = pile_top_nb(view)
        if top < 0:
            return 0
        if params[TAKE_RULE] == 0:
            return 1 if melded_in_some_optimal_nb(hand | (1 << top), top) else 0
        return 1 if in_any_meld_nb(hand, top) else 0
    if kind == D_KNOCK:
        if view[V_BIG_GIN]:
            return BIG_GIN
        options = view[V_KNOCK_DISCARDS]
        card = eaai_discard_nb(view, params)
        if (options >> card) & 1:
            return card
        return NO_CARD
    if kind == D_DISCARD:
        card = eaai_discard_nb(view, params)
        if params[NO_REPEAT] and view[V_DRAWN] >= 0:
            remember_pair_nb(view, view[V_DRAWN], card)
        return card
    if kind == D_ARRANGE:
        return 0 if params[TIE_BREAK] == 0 else rand_below_nb(view, view[V_N_ARRANGEMENTS])
    return NO_CARD
