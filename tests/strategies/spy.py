"""spy: checks what a seat is shown (tests of the public record of 3-4 player hands).

check = 0: answers a0, a1, ... in order like ``script`` and stores view[watch] at its n-th
decision in memory slot n + 1 (slot 0 counts the decisions), for the test to read.
check = 1: plays at random and answers -9 (illegal: the run stops) when its view is
inconsistent: own pick-ups and discards not in V_TAKEN / V_DISCARDED of its seat, the
passes not a run from the dealer's left, the pile or other seats' slots out of place.
"""

from numba import njit

from oklasim.strategy_api import (
    BIG_GIN,
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    DECIDE_SIGNATURE,
    MAX_SEATS,
    NO_CARD,
    V_BIG_GIN,
    V_DEALER,
    V_DISCARDED,
    V_HAND,
    V_KNOCK_DISCARDS,
    V_LAST_CHANCE,
    V_MEMORY,
    V_PASSED,
    V_PILE,
    V_PILE_MASK,
    V_PILE_SIZE,
    V_PLAYERS,
    V_SEAT,
    V_SIZE,
    V_TAKEN,
    V_UPCARD,
    Family,
    Param,
    allowed_discards_nb,
    rand_below_nb,
    random_card_nb,
)

FAMILY = Family(
    name="spy",
    doc="Test strategy: scripted answers logging view[watch] (check=0), or random play refusing an inconsistent view.",
    params=tuple(Param(f"a{i}", -1, -1, 52, f"answer number {i}") for i in range(12))
    + (Param("watch", 0, 0, V_SIZE - 1, "view slot to log"), Param("check", 0, 0, 1, "1 = random play, checks")),
)
ONE = 1


@njit(DECIDE_SIGNATURE, cache=True)
def decide_nb(kind, view, params):
    if params[13] == 0:
        step = view[V_MEMORY]
        view[V_MEMORY] = step + 1
        if step < 7:
            view[V_MEMORY + 1 + step] = view[int(params[12])]
        return int(params[step]) if step < 12 else -1
    me, players, hand = view[V_SEAT], view[V_PLAYERS], view[V_HAND]
    pile, passes, discarded = 0, 0, 0
    for k in range(view[V_PILE_SIZE]):
        pile |= ONE << view[V_PILE + k]
    for seat in range(MAX_SEATS):
        passes += view[V_PASSED + seat]
        discarded |= view[V_DISCARDED + seat]
        if seat >= players and view[V_TAKEN + seat] | view[V_DISCARDED + seat] | view[V_PASSED + seat] != 0:
            return -9
    for k in range(passes):
        if view[V_PASSED + (view[V_DEALER] + 1 + k) % players] != 1:
            return -9
    public = discarded | ONE << view[V_UPCARD]
    ok = pile == view[V_PILE_MASK] and pile & ~public == 0 and view[V_TAKEN + me] == view[V_MEMORY + 1]
    ok = ok and view[V_DISCARDED + me] == view[V_MEMORY + 2]
    if not ok or (view[V_LAST_CHANCE] == 0 and (hand & pile != 0 or hand & public & ~view[V_TAKEN + me] != 0)):
        return -9
    answer = NO_CARD
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        answer = rand_below_nb(view, 2)
        if answer == 1:
            view[V_MEMORY + 1] |= ONE << view[V_PILE + view[V_PILE_SIZE] - 1]
    elif kind == D_KNOCK and (view[V_LAST_CHANCE] or rand_below_nb(view, 4) == 0):
        answer = random_card_nb(view, view[V_KNOCK_DISCARDS]) if view[V_KNOCK_DISCARDS] else BIG_GIN
        if view[V_BIG_GIN] and rand_below_nb(view, 2) == 0:
            answer = BIG_GIN
        if view[V_LAST_CHANCE]:
            view[V_MEMORY + 1] |= ONE << view[V_PILE + view[V_PILE_SIZE] - 1]
    elif kind == D_DISCARD:
        answer = random_card_nb(view, allowed_discards_nb(view))
    elif kind == D_ARRANGE:
        answer = 0
    if (kind == D_KNOCK or kind == D_DISCARD) and 0 <= answer < 52:
        view[V_MEMORY + 2] |= ONE << answer
    return answer
