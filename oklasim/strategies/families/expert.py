# One file of some 900 lines, as every family: the registry loads a family from one file, and two versions of
# expert are compared by copying this file beside the other (benchmarks/bench_expert.py).
"""expert: card tracking, look-ahead discards and draws, a staged knock rule that adapts to the opponent's style.

Where the idea comes from: what the strongest published Gin Rummy programs
share (the EAAI-21 challenge entrants, MARJJ the winner among them: an
estimate of each card's chance to end in a meld, draws and discards chosen
by it, knocks in the first few turns only, then gin) and the defensive
advice of the gin books (do not feed the opponent's melds; what it threw,
it does not collect).

* **Card tracking** (``opponent_model_nb``): every unseen card gets a
  chance to be in the opponent's hand rather than the stock. The cards it
  took from the pile are in its hand for sure; unseen cards of their rank or
  of their suit within two ranks are *hot*, unseen cards next to a card it
  threw or passed are *cold*; the tiers are scaled so that the expected
  number of unknown cards in its hand is exact, and the rest is the stock.
* **What a hand is worth** (``hand_value_nb``): the cost of its deadwood,
  one point each plus ``steepness`` for each point up to the knock limit
  plus ``zone_extra`` (there undercuts are won and lost), less
  ``lookahead`` times the cost one more stock draw is expected to save
  (exact: every unseen card that melds with two cards of the hand is tried
  with the best discard after it) and ``gin_weight`` times the chance it
  goes gin. The look-ahead fades as the opponent nears the end of its hand
  (``lookahead_horizon``, ``pickup_weight``).
* **Discard**: among the cards within ``slack`` deadwood points of the
  least-deadwood discard, the one leaving the best hand, plus
  ``danger_weight`` times the chance the opponent can meld the card
  (``meld_chance_nb``). A branch and bound (``out_bound_nb``,
  ``out_table_nb``) gives the same answers as trying every discard, with
  every stage inlined into ``decide_nb`` and its tables on the stack.
* **Draw**: take the pile top when the best hand after taking it is worth
  more than the hand expected after a stock draw; a card a bound proves
  useless is set aside without a search (``never_taken_nb``).
* **Knock**: gin always. During the first ``early_draws`` own draws knock
  whenever legal; after ``gin_after_draws`` only gin; in between with
  deadwood at most ``late_threshold`` when the estimated undercut chance is
  at most ``max_undercut_risk``. With ``finish_points`` it knocks whenever
  legal when a win ends the game. Under the fiftieth-card rule the last
  discard is taken by the same rule.
* **The opponent's style** (``knock_timing_nb``): the game's showdowns so
  far (``V_STYLE``, public: its knocks short of gin, its gins, the hands it
  showed it could have knocked with and held) give the chance it plays for
  gin (``opponents_holding_nb``: a Beta posterior, ``holding_prior`` worth
  ``holding_weight`` showdowns). Above ``holder_above`` it is a *holder*,
  and the ``holder_*`` parameters replace the knock timing and the weight of
  a discard's danger: against a holder, knocking while it is still far from
  gin is worth more; against a player that knocks at once, holding for the
  undercut pays.
* **Lay melds**: the arrangement least exposed to layoffs (kit).

The defaults come from ``oklasim tune`` (``experiments/tune_expert_panel/``,
``experiments/tune_expert_games/``); ``benchmarks/expert_ablation.py``
measures what each part is worth. Presets: ``v1`` (the player before the
style switch), ``guarded`` (more weight on a discard's danger),
``early3_then_gin`` (knocks whenever legal in its first three own draws,
then only gin), ``expert_plain`` (the look-ahead, danger and card tracking
off). What they were measured to be worth: the measured results page of the
documentation (docs/results.md).
"""

import numpy as np
from numba import njit

from oklasim.strategy_api import (
    BIG_GIN,
    BIT,
    D_ARRANGE,
    D_CONFIRM_DISCARD,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    LONGEST_HAND_DRAWS,
    N_CARDS,
    N_RANKS,
    NO_CARD,
    R_HAND_SIZE,
    R_TARGET_SCORE,
    RANK_COLUMN,
    RANK_MASK,
    V_ASKED,
    V_BIG_GIN,
    V_DRAWS,
    V_HAND,
    V_KNOCK_DISCARDS,
    V_KNOCK_LIMIT,
    V_MY_DRAWS,
    V_PLAYERS,
    V_RULES,
    V_SCORES,
    V_SEAT,
    Family,
    Param,
    allowed_discards_nb,
    card_value_nb,
    count_cards_nb,
    deadwood_after_discard_fast_nb,
    deadwood_after_each_discard_nb,
    decide_kernel,
    high_card_key_nb,
    highest_card_nb,
    least_exposed_arrangement_nb,
    mask_value_nb,
    meld_outs_nb,
    min_deadwood_discards_nb,
    neighbours_nb,
    opponent_draws_nb,
    opponents_discards_nb,
    opponents_holding_nb,
    opponents_known_nb,
    pile_top_nb,
    stack_array_nb,
    undercut_risk_nb,
    unseen_nb,
)

NEVER = 99

DECIMAL = {"integer": False}  # weights whose range bounds happen to be whole numbers

FAMILY = Family(
    name="expert",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    confirms_discard=True,  # D_CONFIRM_DISCARD: the discard's branch and bound, stopped once the card asked loses
    memory=6,  # the MEMORY_* slots below
    doc="Tracks the opponent's cards, discards and draws by look-ahead and danger, knocks early then holds for gin.",
    params=(
        Param("lookahead", 4.6, 0, 8, "stock draws of expected saving a kept hand is credited with", **DECIMAL),
        Param("lookahead_horizon", 9, 1, 99, "opponent draws by which the look-ahead fades to 0 (99: it never fades)"),
        Param("pickup_weight", 1.7, 0, 5, "draws each card the opponent took from the pile counts for in that fading", **DECIMAL),
        Param("steepness", 3.7, 0, 10, "extra cost of each deadwood point in the steep zone", **DECIMAL),
        Param("zone_extra", 2, 0, 20, "the steep zone: deadwood up to the knock limit plus this (layoffs reach there)"),
        Param("gin_weight", 8.3, 0, 60, "points per unit of chance that one draw goes gin", **DECIMAL),
        Param("danger_weight", 4.2, 0, 30, "points per unit of chance that the opponent can meld a discard", **DECIMAL),
        Param("slack", 8, 0, 20, "most deadwood points a discard may give up for look-ahead or safety"),
        Param("hot_factor", 2.45, 1, 5, "how much likelier an unseen card next to a card the opponent took is", **DECIMAL),
        Param("cold_factor", 0.9, 0, 1, "how much likelier an unseen card next to an opponent's discard is", **DECIMAL),
        Param("early_draws", 2, 0, NEVER, "during the first this many own draws, knock whenever legal",
              search=(0, LONGEST_HAND_DRAWS)),
        Param("finish_points", 5, 0, 200, "knock whenever legal when this many points or fewer end the game for us"),
        Param("gin_after_draws", 2, 0, NEVER, "after this many own draws, only gin (99 = never)",
              search=(0, LONGEST_HAND_DRAWS)),
        Param("late_threshold", 10, 0, 10, "between the two: knock only with deadwood <= this"),
        Param("max_undercut_risk", 1, 0, 1, "and only when the undercut chance is <= this", **DECIMAL),
        Param("lay_safe", 1, 0, 1, "1 = lay the arrangement least exposed to layoffs, 0 = the first optimal one"),
        Param("holding_prior", 0, 0, 1, "chance an opponent holds a hand it could knock with, before any showdown",
              **DECIMAL),
        Param("holding_weight", 1, 0, 20, "showdowns that prior is worth", **DECIMAL),
        Param("holder_above", 0.25, 0, 1, "above this chance of holding, the opponent is a holder: the holder timing "
                                       "below replaces the four above (1 = never)", **DECIMAL),
        Param("holder_early_draws", 6, 0, NEVER, "against a holder: early_draws", search=(0, LONGEST_HAND_DRAWS)),
        Param("holder_gin_after_draws", 6, 0, NEVER, "against a holder: gin_after_draws",
              search=(0, LONGEST_HAND_DRAWS)),
        Param("holder_late_threshold", 10, 0, 10, "against a holder: late_threshold"),
        Param("holder_max_undercut_risk", 1, 0, 1, "against a holder: max_undercut_risk", **DECIMAL),
        Param("holder_danger_weight", 4.2, 0, 30, "against a holder: danger_weight", **DECIMAL),
    ),
    presets={
        "expert_plain": {"lookahead": 0, "gin_weight": 0, "danger_weight": 0, "slack": 0},
        # More games won against eaai, fewer points against players that hold for gin (docs/results.md).
        "guarded": {"danger_weight": 8},
        # The defaults when issue 35 opened, spelled out: the player stays available by name when they change.
        "v1": {"lookahead": 4.6, "lookahead_horizon": 9, "pickup_weight": 1.7, "steepness": 3.7, "zone_extra": 2,
               "gin_weight": 8.3, "danger_weight": 4.2, "slack": 8, "hot_factor": 2.45, "cold_factor": 0.9,
               "early_draws": 2, "finish_points": 5, "gin_after_draws": 2, "late_threshold": 10,
               "max_undercut_risk": 1, "lay_safe": 1, "holder_above": 1},
        # A panel style (issue 35): knocks whenever legal in its first three own draws, then only gin, whatever the
        # score (finish_points 0 never applies); draws and discards are expert's.
        "early3_then_gin": {"early_draws": 3, "gin_after_draws": 3, "finish_points": 0, "holder_above": 1},
    },
)

(LOOKAHEAD, LOOKAHEAD_HORIZON, PICKUP_WEIGHT, STEEPNESS, ZONE_EXTRA, GIN_WEIGHT, DANGER_WEIGHT, SLACK, HOT_FACTOR,
 COLD_FACTOR, EARLY_DRAWS, FINISH_POINTS, GIN_AFTER_DRAWS, LATE_THRESHOLD, MAX_UNDERCUT_RISK, LAY_SAFE, HOLDING_PRIOR,
 HOLDING_WEIGHT, HOLDER_ABOVE, HOLDER_EARLY_DRAWS, HOLDER_GIN_AFTER_DRAWS, HOLDER_LATE_THRESHOLD,
 HOLDER_MAX_UNDERCUT_RISK, HOLDER_DANGER_WEIGHT) = FAMILY.indexes(
    "lookahead", "lookahead_horizon", "pickup_weight", "steepness", "zone_extra", "gin_weight", "danger_weight",
    "slack", "hot_factor", "cold_factor", "early_draws", "finish_points", "gin_after_draws", "late_threshold",
    "max_undercut_risk", "lay_safe", "holding_prior", "holding_weight", "holder_above", "holder_early_draws",
    "holder_gin_after_draws", "holder_late_threshold", "holder_max_undercut_risk", "holder_danger_weight")

# Its memory slots (``view[MEMORY + slot]``): the hand a discard kept, the outs of it remembered and what each out
# gains (``remember_outs_nb``); the hand after a take and the discard chosen for it, with the draw it follows
# (``TAKE_TURN``).
MEMORY = FAMILY.memory_start
MEMORY_KEPT, MEMORY_OUTS, MEMORY_GAINS_LOW, MEMORY_GAINS_HIGH, MEMORY_HAND, MEMORY_DISCARD = range(6)
GAIN_BITS = 6  # a gain of 64 deadwood points or more is not remembered: the next take works it out again
GAINS_PER_WORD = 64 // GAIN_BITS
MOST_REMEMBERED = 2 * GAINS_PER_WORD
# The discard chosen with a take is kept as card + TAKE_TURN * the hand's draws after the take: it answers that
# turn's discard only. A search that overrides a take (``search(draws=1)``) could otherwise meet the same hand again
# later, the card remembered then just taken and not to be discarded.
TAKE_TURN = 64
MOST_PARTNERS = N_CARDS  # the slot after the cards in the out table's partner values: the most of them
RECORDED = N_CARDS  # the slot after the cards in a row of gains (``hand_value_nb``): the outs recorded in it
TIERS = 5  # seen elsewhere, unseen in no tier, hot, cold, known (``partner_tier_nb``)
TABLE_SIZE = MOST_PARTNERS + 1  # named: stack_array_nb takes sizes as global names, not expressions
# Bounds are compared with this margin, so that rounding can never set aside the best discard.
BOUND_MARGIN = 1e-9


# Fields of the model tuple built once per decision by ``opponent_model_nb``.
M_UNSEEN = 0  # cards this seat has not seen
M_KNOWN = 1  # cards an opponent holds for sure (taken from the pile, not thrown back)
M_HOT = 2  # unseen cards next to a known one: likelier held
M_COLD = 3  # unseen cards next to an opponent's discard: less likely held
M_HELD_HOT = 4  # chance that an unseen card of the hot tier is held
M_HELD_COLD = 5  # ... of the cold tier
M_HELD_PLAIN = 6  # ... of neither tier
M_STOCK = 7  # expected number of unseen cards in the stock
M_LOOKAHEAD = 8  # stock draws credited now (fading with the opponent's draws)
M_STEEP_ZONE = 9  # deadwood up to this costs steeply: the knock limit plus zone_extra
M_STEEPNESS = 10
M_GIN_WEIGHT = 11  # the weights the search uses, here so that its inner functions take no array
M_DANGER_WEIGHT = 12


@njit(cache=True, inline="always")
def holder_nb(view, params):
    """True when the game's showdowns so far say the opponent holds hands it could knock with (``V_STYLE``)."""
    return opponents_holding_nb(view, params[HOLDING_PRIOR], params[HOLDING_WEIGHT]) > params[HOLDER_ABOVE]


@njit(cache=True, inline="always")
def opponent_model_nb(view, params):
    """The card-tracking model (fields ``M_*``): the chance each unseen card is in an opponent's hand, and more.

    An unseen card of the hot tier is held with chance ``p * hot factor``, of
    the cold tier with ``p * cold factor``, any other with ``p``; ``p`` makes
    the expected number of unknown cards held exact, and the rest of the
    unseen cards are the stock.
    """
    unseen = unseen_nb(view)
    known = opponents_known_nb(view)
    cold = neighbours_nb(opponents_discards_nb(view)) & unseen
    hot = neighbours_nb(known) & unseen & ~cold  # a card taken from the pile melds with two of its partners
    hot_f, cold_f = params[HOT_FACTOR], params[COLD_FACTOR]
    unknown_held = max((view[V_PLAYERS] - 1) * view[V_RULES + R_HAND_SIZE] - count_cards_nb(known), 0)
    n_unseen, n_hot, n_cold = count_cards_nb(unseen), count_cards_nb(hot), count_cards_nb(cold)
    weight = (n_unseen - n_hot - n_cold) + (hot_f * n_hot + cold_f * n_cold)
    p = unknown_held / weight if weight > 0 else 0.0
    stock = float(max(n_unseen - unknown_held, 0))
    # How far the opponent is through its hand: its draws, and each pickup from the pile counts extra.
    progress = opponent_draws_nb(view) + params[PICKUP_WEIGHT] * count_cards_nb(known)
    fading = max(0.0, 1.0 - progress / params[LOOKAHEAD_HORIZON])
    lookahead = params[LOOKAHEAD] * fading
    steep_zone = view[V_KNOCK_LIMIT] + params[ZONE_EXTRA]
    held_hot, held_cold, held_plain = min(p * hot_f, 1.0), min(p * cold_f, 1.0), min(p, 1.0)
    danger_weight = params[HOLDER_DANGER_WEIGHT] if holder_nb(view, params) else params[DANGER_WEIGHT]
    return (unseen, known, hot, cold, held_hot, held_cold, held_plain, stock, lookahead, steep_zone,
            params[STEEPNESS], params[GIN_WEIGHT], danger_weight)


@njit(cache=True, inline="always")
def flag_nb(count):
    """1.0 when ``count`` (an int >= 0) is above 0, else 0.0, with no branch.

    The decisions' hot loops weigh cards whose tiers, and outs whose gin,
    follow no pattern a branch predictor could learn; LLVM makes a branch of
    every choice between two floats on x86 (``x if c else 0.0``, even
    ``float(c)``) but leaves a float minimum as one instruction. A weight
    times a flag is the weight or 0 to the last bit.
    """
    return min(np.float64(count), 1.0)


@njit(cache=True, inline="always")
def held_chance_nb(card_bit, model):
    """Chance that a card is in an opponent's hand: 1 when known there, 0 when seen elsewhere.

    The tiers are disjoint (hot and cold cards are unseen, never known): one
    term at most is not 0, so the sum is that tier's chance to the last bit.
    """
    hot, cold = flag_nb(model[M_HOT] & card_bit), flag_nb(model[M_COLD] & card_bit)
    plain = flag_nb(model[M_UNSEEN] & card_bit) - hot - cold
    return (hot * model[M_HELD_HOT] + cold * model[M_HELD_COLD] + plain * model[M_HELD_PLAIN]
            + flag_nb(model[M_KNOWN] & card_bit))


@njit(cache=True, inline="always")
def cost_nb(deadwood, model):
    """What a deadwood count costs: one point each, plus the steepness for each point of the steep zone."""
    return deadwood + model[M_STEEPNESS] * min(deadwood, model[M_STEEP_ZONE])


@njit(cache=True, inline="always")
def stock_chance_nb(card_bit, model):
    """Chance that the next stock card is this unseen card."""
    return (1.0 - held_chance_nb(card_bit, model)) / model[M_STOCK]


@njit(cache=True, inline="always")
def saving_after_nb(after, dw, now, card, model, table):
    """(cost saved, gin chance) that the out ``card`` adds to a hand of deadwood ``dw`` costing ``now``,
    ``after`` being the deadwood once it is drawn and the best card discarded."""
    if after >= dw:
        return 0.0, 0.0
    chance = table[0][card]
    return chance * (now - cost_nb(after, model)), chance * (1.0 - flag_nb(after))


@njit(cache=True, inline="always")
def remembered_gain_nb(known, low, high, bit):
    """The gain of the out ``bit`` (one of ``known``) packed by ``remember_outs_nb`` in two words."""
    index = count_cards_nb(known & (bit - 1))
    word = low if index < GAINS_PER_WORD else high
    return (word >> (GAIN_BITS * (index % GAINS_PER_WORD))) & ((1 << GAIN_BITS) - 1)


@njit(cache=True, inline="always")
def record_gain_nb(gains, card, bit, dw, after):
    """Note in a row of ``gains`` what the out ``card`` (``bit``) takes off ``dw``: ``after`` is left."""
    if gains is not None:
        gains[card] = max(dw - after, 0)
        gains[RECORDED] |= bit


@njit(cache=True, inline="always")
def draw_saving_nb(hand, dw, model, table, known=0, low=0, high=0, gains=None):
    """(expected cost saved by one stock draw, chance it goes gin) for a 10-card hand of deadwood ``dw``.

    Only cards melding with two cards of the hand count, each tried with the
    best discard after it. A card melding with nothing can only replace the
    hand's worst card; crediting that favours keeping high cards to replace
    later, which measured 1.7 points/hand worse against ``eaai``.
    The outs ``known`` take their gain from ``low`` and ``high``
    (``remembered_outs_nb``) rather than from the deadwood kernel. Given a
    row of ``gains``: every out's gain, as ``hand_value_nb`` records them.
    """
    saving, gin = 0.0, 0.0
    if gains is not None:
        gains[RECORDED] = 0
    if model[M_STOCK] <= 0:
        return saving, gin
    now = cost_nb(dw, model)
    outs = meld_outs_nb(hand) & model[M_UNSEEN]
    while outs:
        bit = outs & -outs
        outs ^= bit
        card = count_cards_nb(bit - 1)
        if known & bit:
            after = dw - remembered_gain_nb(known, low, high, bit)
        else:
            after = deadwood_after_discard_fast_nb(hand | bit)
        record_gain_nb(gains, card, bit, dw, after)
        out_saving, out_gin = saving_after_nb(after, dw, now, card, model, table)
        saving += out_saving
        gin += out_gin
    return saving, gin


@njit(cache=True, inline="always")
def meld_partners_value_nb(hand, card):
    """Most value of ``hand``'s cards that one meld with ``card`` (not in ``hand``) can hold besides it.

    A set holds cards of its rank; a run, cards of its suit joined to it
    through consecutive ranks. Bit-parallel: no loops, no branches.
    """
    rank, suit = card % N_RANKS, card // N_RANKS
    same_rank = card_value_nb(card) * count_cards_nb(hand & (RANK_COLUMN << rank))
    pattern = (hand >> (suit * N_RANKS)) & RANK_MASK
    up = pattern >> (rank + 1)
    above = ((up ^ (up + 1)) >> 1) << (rank + 1)  # the ones just above the rank
    gaps = ~pattern & ((BIT << rank) - 1)  # below the rank, smeared down from the highest gap
    gaps |= gaps >> 1
    gaps |= gaps >> 2
    gaps |= gaps >> 4
    gaps |= gaps >> 8
    below = ((BIT << rank) - 1) & ~gaps
    return max(same_rank, mask_value_nb(above | below))


@njit(cache=True, inline="always")
def highest_value_nb(hand):
    """The value of the highest card of a non-empty hand."""
    ranks = (hand | hand >> N_RANKS | hand >> 2 * N_RANKS | hand >> 3 * N_RANKS) & RANK_MASK
    top = N_RANKS - 1
    while top > 0 and not ranks >> top & 1:
        top -= 1
    return card_value_nb(top)


@njit(cache=True, inline="always")
def deadwood_floor_nb(hand, dw):
    """At most the deadwood of ``hand`` (deadwood ``dw``) less any one card: a card removed saves at most its value."""
    return dw - highest_value_nb(hand)


@njit(cache=True, inline="always")
def scratch_nb():
    """A decision's per-card tables, in its stack frame (``stack_array_nb``): no allocation, no reference counts.

    (out table: chances, partners), (candidate table: deadwood left, floors,
    bounds, dangers), two rows of gains (``best_kept_hand_nb``); all filled
    only at the cards they are about, and at ``MOST_PARTNERS`` / ``RECORDED``.
    """
    reals = stack_array_nb(4, N_CARDS, np.float64)
    counts = stack_array_nb(4, TABLE_SIZE, np.int64)
    return (reals[0], counts[0]), (counts[1], reals[1], reals[2], reals[3]), counts[2:]


@njit(cache=True, inline="always")
def out_table_nb(hand, model, table):
    """For each unseen card melding with two cards of ``hand``: its ``stock_chance_nb`` and ``meld_partners_value_nb``.

    A decision's kept hands are ``hand`` less a card, so their outs are
    among these: each is worked out once per decision rather than once per
    kept hand. ``table`` is two arrays indexed by card, filled at those cards
    only, and ``partners[MOST_PARTNERS]`` the most of those partner values.
    """
    chances, partners = table
    partners[MOST_PARTNERS] = 0
    if model[M_STOCK] > 0:
        outs = meld_outs_nb(hand) & model[M_UNSEEN]
        while outs:
            bit = outs & -outs
            outs ^= bit
            card = count_cards_nb(bit - 1)
            chances[card] = stock_chance_nb(bit, model)
            partners[card] = meld_partners_value_nb(hand, card)
            partners[MOST_PARTNERS] = max(partners[MOST_PARTNERS], partners[card])


@njit(cache=True, inline="always")
def out_bound_nb(dw, floor, now, card, model, table):
    """At least what drawing the out ``card`` takes off a hand's value (``hand_value_nb``), at no kernel call.

    The deadwood after drawing it and discarding is at least ``floor``
    (``deadwood_floor_nb``) less the value a meld with the out takes out of
    the hand (only that meld's other cards can leave the deadwood), at most
    the ``out_table_nb`` value for the hand the decision started from, which
    holds this one. The weights are non-negative (their ranges start at 0).
    """
    after = max(floor - table[1][card], 0)
    if after >= dw:
        return 0.0
    gin = model[M_GIN_WEIGHT] * (1.0 - flag_nb(after))
    return table[0][card] * (model[M_LOOKAHEAD] * (now - cost_nb(after, model)) + gin)


@njit(cache=True, inline="always")
def draw_bound_nb(hand, dw, model, table):
    """At least what the look-ahead and gin terms take off a hand's value: the sum of ``out_bound_nb``."""
    if model[M_STOCK] <= 0:
        return 0.0
    now, floor = cost_nb(dw, model), deadwood_floor_nb(hand, dw)
    if model[M_LOOKAHEAD] == 0.0 and floor > table[1][MOST_PARTNERS]:
        return 0.0  # the look-ahead has faded and no out can go gin: every out's bound is 0
    bound = 0.0
    outs = meld_outs_nb(hand) & model[M_UNSEEN]
    while outs:
        bit = outs & -outs
        outs ^= bit
        bound += out_bound_nb(dw, floor, now, count_cards_nb(bit - 1), model, table)
    return bound


@njit(cache=True, inline="always")
def hand_value_nb(hand, dw, model, table, give_up=np.inf, bound=0.0, gains=None, known=0, low=0, high=0):
    """Cost of a 10-card hand's deadwood ``dw`` less what the coming stock draws should save (lower is better).

    Given ``give_up`` and ``bound`` (``draw_bound_nb`` of the hand): infinity
    as soon as the value is sure to be above ``give_up``, each out not yet
    tried counted at its ``out_bound_nb``; that spares most kernel calls of
    a search. The value, when returned, is the same number either way.
    Once the look-ahead has faded to 0, only gin counts: outs that cannot
    go gin (``out_bound_nb``'s floor above 0) need no kernel call.
    Given a row of ``gains``: the deadwood each out tried takes off ``dw``
    (0 when none) at its card, and the outs tried at ``RECORDED``. The outs
    ``known`` take theirs from ``low`` and ``high`` (``remember_outs_nb``).
    """
    if gains is not None:
        gains[RECORDED] = 0
    saving, gin = 0.0, 0.0
    now, floor = cost_nb(dw, model), deadwood_floor_nb(hand, dw)
    lookahead, gin_weight = model[M_LOOKAHEAD], model[M_GIN_WEIGHT]
    if model[M_STOCK] > 0:
        outs = meld_outs_nb(hand) & model[M_UNSEEN]
        while outs:
            bit = outs & -outs
            outs ^= bit
            card = count_cards_nb(bit - 1)
            if give_up < np.inf:
                bound -= out_bound_nb(dw, floor, now, card, model, table)
            if lookahead == 0.0 and floor > table[1][card]:
                continue
            if known & bit:
                after = dw - remembered_gain_nb(known, low, high, bit)
            else:
                after = deadwood_after_discard_fast_nb(hand | bit)
            record_gain_nb(gains, card, bit, dw, after)
            out_saving, out_gin = saving_after_nb(after, dw, now, card, model, table)
            saving += out_saving
            gin += out_gin
            if now - lookahead * saving - gin_weight * gin - bound > give_up:
                return np.inf
    return now - lookahead * saving - gin_weight * gin


@njit(cache=True, inline="always")
def partner_tier_nb(suit, rank, model):
    """The tier of the card of ``rank`` in ``suit``, as an index into ``meld_chance_nb``'s chances: 0 seen
    elsewhere or off the ends of the suit, 1 unseen in no tier, 2 hot, 3 cold, 4 known (the tiers are disjoint)."""
    inside = np.int64(0 <= rank < N_RANKS)
    at = suit * N_RANKS + min(max(rank, 0), N_RANKS - 1)
    code = ((model[M_UNSEEN] >> at & 1) + (model[M_HOT] >> at & 1) + 2 * (model[M_COLD] >> at & 1)
            + 4 * (model[M_KNOWN] >> at & 1))
    return code * inside


@njit(cache=True, inline="always")
def meld_chance_nb(card, model):
    """Chance that the opponent holds two cards making a meld with ``card``, the partners held independently.

    A set needs two of the three other cards of the rank; a run two
    neighbours in a row of its suit (ranks -2 -1, -1 +1 or +1 +2). Each
    partner's chance is looked up by its tier (``partner_tier_nb``): the
    number ``held_chance_nb`` gives, in integer steps and one load.
    """
    rank, suit = card % N_RANKS, card // N_RANKS
    chances = stack_array_nb(1, TIERS, np.float64)[0]
    chances[0], chances[1], chances[2] = 0.0, model[M_HELD_PLAIN], model[M_HELD_HOT]
    chances[3], chances[4] = model[M_HELD_COLD], 1.0
    a = chances[partner_tier_nb((suit + 1) % 4, rank, model)]
    b = chances[partner_tier_nb((suit + 2) % 4, rank, model)]
    c = chances[partner_tier_nb((suit + 3) % 4, rank, model)]
    no_set = 1.0 - (a * b + a * c + b * c - 2.0 * a * b * c)
    m2, m1 = chances[partner_tier_nb(suit, rank - 2, model)], chances[partner_tier_nb(suit, rank - 1, model)]
    p1, p2 = chances[partner_tier_nb(suit, rank + 1, model)], chances[partner_tier_nb(suit, rank + 2, model)]
    # No run: neither neighbour held, or only the one below without rank -2, or only the one above without +2.
    no_run = (1.0 - m1) * (1.0 - p1) + m1 * (1.0 - p1) * (1.0 - m2) + (1.0 - m1) * p1 * (1.0 - p2)
    return 1.0 - no_set * no_run


@njit(cache=True, inline="always")
def danger_nb(card, model):
    """What discarding ``card`` adds to a hand's worth: the danger weight times the opponent's chance to meld it."""
    return model[M_DANGER_WEIGHT] * meld_chance_nb(card, model) if model[M_DANGER_WEIGHT] != 0 else 0.0


@njit(cache=True, inline="always")
def within_slack_nb(hand, allowed, slack, dws):
    """The discards among ``allowed`` within ``slack`` deadwood points of the least, as a mask; fills ``dws`` (the
    deadwood left) at every card of ``hand``."""
    deadwood_after_each_discard_nb(hand, dws)
    least = 1 << 30
    rest = allowed & hand
    while rest:
        bit = rest & -rest
        rest ^= bit
        least = min(least, dws[count_cards_nb(bit - 1)])
    found = np.int64(0)
    rest = allowed & hand
    while rest:
        bit = rest & -rest
        rest ^= bit
        if dws[count_cards_nb(bit - 1)] <= least + slack:
            found |= bit
    return found


@njit(cache=True, inline="always")
def bound_candidates_nb(hand, found, model, table, candidates):
    """At the candidates ``found`` (``within_slack_nb``, its deadwood left in ``candidates``): a floor, a lower bound
    on the worth of the kept hand (its cost less its ``draw_bound_nb``, the bound; the danger joins it in the
    search), the bound, and a danger of 0 until then; ``table`` is ``hand``'s."""
    dws, floors, bounds, dangers = candidates
    rest = found
    while rest:
        bit = rest & -rest
        rest ^= bit
        card = count_cards_nb(bit - 1)
        bounds[card] = draw_bound_nb(hand ^ bit, dws[card], model, table)
        floors[card] = cost_nb(dws[card], model) - bounds[card]
        dangers[card] = 0.0


@njit(cache=True, inline="always")
def discard_candidates_nb(hand, allowed, model, slack, table, candidates):
    """The discards among ``allowed`` within ``slack`` deadwood points of the least, as a mask, with their
    ``candidates`` table filled (``within_slack_nb``, ``bound_candidates_nb``); ``table`` is ``hand``'s."""
    found = within_slack_nb(hand, allowed, slack, candidates[0])
    bound_candidates_nb(hand, found, model, table, candidates)
    return found


@njit(cache=True, inline="always")
def lowest_floor_nb(cards, floors):
    """(card, floor, next floor): the lowest floor among ``cards`` (a non-empty mask), ties: the lowest card;
    the lowest floor of the others (infinity when none).

    Minima and an integer choice, no branch: which floor is lower follows no
    pattern (``flag_nb``). A lower floor passes the old lowest on as
    the next one, as the larger of the two.
    """
    best_card, best, runner_up = NO_CARD, np.inf, np.inf
    while cards:
        bit = cards & -cards
        cards ^= bit
        card = count_cards_nb(bit - 1)
        floor = floors[card]
        best_card = card if (floor < best) | (best_card == NO_CARD) else best_card
        runner_up = min(runner_up, max(best, floor))
        best = min(best, floor)
    return best_card, best, runner_up


@njit(cache=True, inline="always")
def best_kept_hand_nb(hand, found, candidates, model, table, gains, remembered, ceiling=np.inf, asked=None):
    """(card, worth): of the candidates ``found`` (``discard_candidates_nb``), the discard leaving the best hand.

    Branch and bound with the answer of trying every discard: they are tried
    from the lowest floor up, and the search ends at the first floor above
    the best worth found or above ``ceiling``, a worth the caller needs to
    beat (the answer is exact whenever the best worth is at most it). A
    candidate's danger is worked out when it first comes up, then it goes
    back in line with the danger in its floor (or on, when still first):
    most never come up.
    Of the two rows of ``gains``, the first ends with those of the best hand
    (``hand_value_nb``); the second is scratch. A kept hand that is the one
    ``remembered`` (``remembered_outs_nb``) takes its known outs' gains from it.
    Given the card ``asked`` (``D_CONFIRM_DISCARD``, one of ``found``): NO_CARD
    as soon as it cannot be the answer (a candidate tried beats its floor or
    its worth), else the same answer as without it.
    """
    dws, floors, bounds, dangers = candidates
    best, best_card, best_key = 1e18, NO_CARD, -1
    asked_tried = False
    weighed = found if model[M_DANGER_WEIGHT] == 0 else np.int64(0)  # candidates whose floor holds their danger
    while found:
        card, floor, runner_up = lowest_floor_nb(found, floors)
        bar = min(best, ceiling) + BOUND_MARGIN
        if floor > bar:
            break
        bit = BIT << card
        if not weighed & bit:
            weighed |= bit
            dangers[card] = danger_nb(card, model)
            floors[card] += dangers[card]
            if not floors[card] < runner_up:
                continue  # back in line; still below every other floor, it comes up again at once
            if floors[card] > bar:
                break
        found ^= bit
        kept = hand ^ bit
        known = remembered[1] if kept == remembered[0] else 0
        worth = hand_value_nb(kept, dws[card], model, table, bar - dangers[card], bounds[card], gains[1], known,
                              remembered[2], remembered[3])
        worth += dangers[card]
        key = high_card_key_nb(card)  # ties: the highest card
        if worth < best or (worth == best and key > best_key):
            best, best_card, best_key = worth, card, key
            copy_gains_nb(gains[1], gains[0])
        if asked is not None:
            asked_tried |= card == asked
            if best_card != asked and (asked_tried or best < floors[asked] - BOUND_MARGIN):
                return NO_CARD, best
    return best_card, best


@njit(cache=True, inline="always")
def copy_gains_nb(source, target):
    """Copy a row of gains: at the outs it recorded only."""
    outs = source[RECORDED]
    target[RECORDED] = outs
    while outs:
        bit = outs & -outs
        outs ^= bit
        card = count_cards_nb(bit - 1)
        target[card] = source[card]


@njit(cache=True, inline="always")
def remember_outs_nb(view, kept, gains):
    """Keep in ``view`` the gains of the outs of ``kept``, the hand just kept (``hand_value_nb``), packed.

    The next take asks what a stock draw saves that same hand (``draw_saving_nb``):
    the deadwood after each out does not depend on the model, so the outs the
    search tried need no kernel call there.
    """
    outs, known, count, low, high = gains[RECORDED], np.int64(0), 0, np.int64(0), np.int64(0)
    while outs and count < MOST_REMEMBERED:
        bit = outs & -outs
        outs ^= bit
        gain = gains[count_cards_nb(bit - 1)]
        if gain >> GAIN_BITS:
            continue
        field = gain << (GAIN_BITS * (count % GAINS_PER_WORD))
        if count < GAINS_PER_WORD:
            low |= field
        else:
            high |= field
        known |= bit
        count += 1
    view[MEMORY + MEMORY_KEPT] = kept
    view[MEMORY + MEMORY_OUTS] = known
    view[MEMORY + MEMORY_GAINS_LOW] = low
    view[MEMORY + MEMORY_GAINS_HIGH] = high


@njit(cache=True, inline="always")
def remembered_outs_nb(view):
    """(kept hand, its outs known, low, high) as ``remember_outs_nb`` left them (all 0 at a deal)."""
    return (view[MEMORY + MEMORY_KEPT], view[MEMORY + MEMORY_OUTS], view[MEMORY + MEMORY_GAINS_LOW],
            view[MEMORY + MEMORY_GAINS_HIGH])


@njit(cache=True, inline="always")
def discard_nb(view, params, asked=None):
    """The discard; given the card ``asked``, that card when it is the discard, else maybe NO_CARD sooner
    (``best_kept_hand_nb``), and nothing remembered."""
    if view[MEMORY + MEMORY_HAND] == view[V_HAND] and view[MEMORY + MEMORY_DISCARD] // TAKE_TURN == view[V_DRAWS]:
        return view[MEMORY + MEMORY_DISCARD] % TAKE_TURN
    hand = view[V_HAND]
    table, candidates, gains = scratch_nb()
    found = within_slack_nb(hand, allowed_discards_nb(view), params[SLACK], candidates[0])
    if asked is not None and not found >> asked & 1:
        return NO_CARD  # not a candidate: neither the model nor the bounds are needed to say so
    model = opponent_model_nb(view, params)
    out_table_nb(hand, model, table)
    bound_candidates_nb(hand, found, model, table, candidates)
    # The stock card thrown back leaves the hand kept last turn: the outs remembered for it count.
    card, _ = best_kept_hand_nb(hand, found, candidates, model, table, gains, remembered_outs_nb(view), asked=asked)
    if asked is None and card != NO_CARD:
        remember_outs_nb(view, hand ^ BIT << card, gains[0])
    return card


@njit(cache=True, inline="always")
def never_taken_nb(hand, top, model):
    """True when no hand kept after taking ``top`` can beat a stock draw (``take_nb``), at no search.

    So when ``top`` is isolated (no card of ``hand`` of its rank, none of
    its suit within two ranks), worth at least every card of ``hand``, the
    look-ahead times the chance of drawing an out of ``hand`` is at most 1,
    and ``hand`` has deadwood. Replacing any card ``c`` by ``top`` raises
    the cost of the deadwood by some ``D >= 0``; every out of the kept hand
    is an out of ``hand`` and leaves at least the deadwood it leaves
    ``hand``. So the kept hand's look-ahead saving is at most ``hand``'s
    plus ``D`` times that chance, its gin chance at most ``hand``'s, and
    its worth (a danger adds to it) at least ``hand``'s value: what a stock
    draw is worth plus one draw's saving, never below it. The test checks
    it by brute force. (About a fifth of the draws, in recorded expert
    games.)
    """
    if neighbours_nb(hand) >> top & 1 or card_value_nb(top) < highest_value_nb(hand) or model[M_STOCK] <= 0:
        return False
    # With ``top`` isolated, discarding it is the best discard: the deadwood of ``hand`` in one fast call.
    if deadwood_after_discard_fast_nb(hand | BIT << top) == 0:
        return False
    chance = 0.0
    outs = meld_outs_nb(hand) & model[M_UNSEEN]
    while outs:
        bit = outs & -outs
        outs ^= bit
        chance += stock_chance_nb(bit, model)
    return model[M_LOOKAHEAD] * chance <= 1.0


@njit(cache=True, inline="always")
def take_nb(view, params):
    """1 when the best hand after taking the pile top beats the hand expected after a stock draw."""
    top = pile_top_nb(view)
    if top < 0:
        return 0
    hand = view[V_HAND]
    taken = hand | (BIT << top)
    model = opponent_model_nb(view, params)
    if never_taken_nb(hand, top, model):
        return 0
    table, candidates, gains = scratch_nb()
    out_table_nb(taken, model, table)  # the outs of the hand now are among the taken hand's
    # The taken card may not go straight back (under the default rules): weigh the other discards only.
    found = discard_candidates_nb(taken, hand, model, params[SLACK], table, candidates)
    dw = candidates[0][top]  # the taken hand less the card taken
    now = cost_nb(dw, model)
    # After a stock draw the hand is worth at most its cost now: no kept hand can beat that, no take.
    if lowest_floor_nb(found, candidates[1])[1] > now + BOUND_MARGIN:
        return 0
    # After a stock draw: the hand now less one draw's expected saving.
    remembered = remembered_outs_nb(view)
    known = remembered[1] if remembered[0] == hand else 0
    saving, gin = draw_saving_nb(hand, dw, model, table, known, remembered[2], remembered[3], gains[0])
    after_draw = now - (model[M_LOOKAHEAD] + 1.0) * saving - params[GIN_WEIGHT] * gin
    # Every out of the hand now has its gain: for the discard after a stock draw, which may keep this hand.
    remember_outs_nb(view, hand, gains[0])
    remembered = remembered_outs_nb(view)
    card, taken_worth = best_kept_hand_nb(taken, found, candidates, model, table, gains, remembered, after_draw)
    if taken_worth >= after_draw:
        return 0
    # The discard that follows sees the same model: remember the answer rather than search again.
    view[MEMORY + MEMORY_HAND] = taken
    view[MEMORY + MEMORY_DISCARD] = card + TAKE_TURN * (view[V_DRAWS] + 1)
    remember_outs_nb(view, taken ^ BIT << card, gains[0])
    return 1


@njit(cache=True, inline="always")
def game_point_nb(view, params):
    """True when a win ends the game for us: then any legal knock will do."""
    return view[V_RULES + R_TARGET_SCORE] - view[V_SCORES + view[V_SEAT]] <= params[FINISH_POINTS]


@njit(cache=True, inline="always")
def knock_timing_nb(view, params):
    """(early_draws, gin_after_draws, late_threshold, max_undercut_risk): the holder timing when the game's
    showdowns so far say the opponent holds hands it could knock with, else the plain one."""
    if holder_nb(view, params):
        return (params[HOLDER_EARLY_DRAWS], params[HOLDER_GIN_AFTER_DRAWS], params[HOLDER_LATE_THRESHOLD],
                params[HOLDER_MAX_UNDERCUT_RISK])
    return params[EARLY_DRAWS], params[GIN_AFTER_DRAWS], params[LATE_THRESHOLD], params[MAX_UNDERCUT_RISK]


@njit(cache=True, inline="always")
def knock_nb(view, params):
    if view[V_BIG_GIN]:
        return BIG_GIN
    draws = view[V_MY_DRAWS]
    early_draws, gin_after_draws, late_threshold, max_undercut_risk = knock_timing_nb(view, params)
    anyway = draws <= early_draws or game_point_nb(view, params)
    holding_for_gin = not anyway and draws > gin_after_draws
    if holding_for_gin and deadwood_after_discard_fast_nb(view[V_HAND]) > 0:
        return NO_CARD  # no discard goes gin: one kernel call rather than one per discard
    least, found = min_deadwood_discards_nb(view[V_HAND], view[V_KNOCK_DISCARDS])
    if least > 0 and not anyway:
        if draws > gin_after_draws or least > late_threshold:
            return NO_CARD
        if undercut_risk_nb(view, least) > max_undercut_risk:
            return NO_CARD
    return highest_card_nb(found)


# numpy's error model: no zero-division check at every division of the inlined stages (each divisor is guarded
# or a parameter range above 0). Same decisions (expert_fingerprint.py), 1.01-1.05x the hands per second.
@decide_kernel(error_model="numpy")
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return take_nb(view, params)
    if kind == D_KNOCK:
        return knock_nb(view, params)
    if kind == D_DISCARD:
        return discard_nb(view, params)
    if kind == D_CONFIRM_DISCARD:
        asked = view[V_ASKED]
        return 1 if 0 <= asked < N_CARDS and discard_nb(view, params, asked) == asked else 0
    if kind == D_ARRANGE:
        return least_exposed_arrangement_nb(view) if params[LAY_SAFE] else 0
    return NO_CARD
