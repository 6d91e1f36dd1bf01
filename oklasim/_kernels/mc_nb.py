"""The body of the ``mc`` strategy: determinized Monte Carlo over one decision, from the seat's view row."""

from __future__ import annotations

import numpy as np
from numba import int64, njit, uint64

from .advise_bundles_nb import Question, Sampling, Strategies, no_guide_nb
from .advise_columns_nb import (
    C_ACTION,
    C_DISCARD,
    C_KIND,
    C_PRE,
    MAX_COLUMNS,
    N_CAND_FIELDS,
    PRE_NONE,
    PRE_PILE,
    PRE_TAKE,
    ROLLOUT,
    arrangement_columns_nb,
    candidates_nb,
    draw_columns_nb,
)
from .advise_latest_nb import latest_turn_nb, latest_turn_prior_nb, new_latest_evidence_nb
from .advise_log_nb import log_evidence_nb
from .advise_rollouts_nb import N_OUT, O_POINTS, no_evidence_nb, run_samples_nb
from .advise_worlds_nb import played_prior_nb
from .engine_nb import STATUS_SIZE
from .layout import (
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    MAX_SEATS,
    NO_CARD,
    V_DRAWS,
    V_FORBIDDEN,
    V_HAND,
    V_PLAYERS,
    V_RNG,
    V_SEAT,
    V_SIZE,
)
from .rng_nb import MC_WORLDS, next_state_nb, stream_state_nb

# -- parameters of the mc strategy (the order of its Family params) -----------------------
P_SAMPLES = 0
P_DISCARDS = 1
P_DRAWS = 2
P_CONTINUATION = 3
P_OPPONENT = 4
P_PRIOR = 5
P_WINDOW = 6
P_PLAYED_DRAWS = 7
P_ROULETTE = 8
N_PARAMS = 9  # all of mc's parameters: the P_* places above and no others
EXACT_WORLDS = 32  # worlds weighed exactly before the roulette's cutoff is set from the heaviest of them


@njit(cache=True)
def answer_nb(kind, view, column, memory):
    """The answer to decision ``kind`` that starts candidate ``column`` (``memory``: the view slot of mc's first
    memory slot)."""
    if kind == D_ARRANGE:
        return column[C_ACTION]
    if kind == D_DRAW:
        return 1 if column[C_PRE] == PRE_PILE else 0
    if kind == D_TAKE_UPCARD:
        return 1 if column[C_PRE] == PRE_TAKE else 0
    if kind == D_KNOCK and column[C_KIND] == ROLLOUT:
        # Play on: remember the discard chosen with it for the D_DISCARD that follows.
        view[memory] = column[C_DISCARD] + 1
        view[memory + 1] = view[V_DRAWS]
        return NO_CARD
    return column[C_DISCARD]


CONTINUE_SIMPLE, CONTINUE_GREEDY, CONTINUE_EXPERT = 0, 1, 2  # codes of mc's continuation and opponent
PRIOR_UNIFORM, PRIOR_PLAYED, PRIOR_LATEST_TURN, PRIOR_HISTORY = 0, 1, 2, 3  # codes of mc's prior


@njit(cache=True)
def search_params_nb(samples, discards, draws, prior, window, played_draws, roulette):
    """mc's parameters for a search as ``search`` makes it: expert playing on, the worlds drawn by ``prior``
    (``search``'s: the history, weighted by the hand's log); who plays the opponent's side is ``mc_decide_nb``'s
    ``model_codes``."""
    params = np.zeros(N_PARAMS)
    params[P_SAMPLES] = samples
    params[P_DISCARDS] = discards
    params[P_DRAWS] = draws
    params[P_CONTINUATION] = CONTINUE_EXPERT
    params[P_PRIOR] = prior
    params[P_WINDOW] = window
    params[P_PLAYED_DRAWS] = played_draws
    params[P_ROULETTE] = roulette
    return params


@njit(cache=True)
def pick_continuation_nb(code, simple_fn, greedy_fn, expert_fn):
    if code == CONTINUE_EXPERT:
        return expert_fn
    return greedy_fn if code == CONTINUE_GREEDY else simple_fn


@njit(cache=True)
def mc_decide_nb(kind, view, params, simple_fn, greedy_fn, expert_fn, forced_fn, expert_params, opponent_models,
                 model_codes, model_prior, traits, memory, margins, slips, min_effective, model_evidence):
    """Determinized Monte Carlo: the candidate with the most points, averaged over sampled worlds.

    ``params``: samples per decision, sensible discards tried when playing
    on (0: only the continuation's own discard, and discards are left to
    it), whether draws are searched too (taking the pile's top or not, the
    continuation playing every decision after either; else the continuation
    strategy draws), the continuation strategy (0 = simple,
    1 = greedy, 2 = expert: the functions passed in those places, the
    deciding seat's playing with ``expert_params``; mc's own opponent
    parameter is not read here: the opponent is a mixture, row k of
    ``opponent_models`` played by the function of code ``model_codes[k]``
    with the prior chance ``model_prior[k]``, its worlds split among the
    rows in those shares, each weighed by and played with its row and
    function: ``model_blocks_nb``),
    and the prior of the worlds (0 = uniform, 1 = played: see ``sample_world_nb``;
    2 = as played and weighted by the opponent model's play of its latest
    turn, ``advise_latest_nb``, whose ``advise_history_nb`` traits per model
    code are ``traits``; 3 = weighted by its play of the hand's latest
    ``window`` turns, read from the hand's log, its stock draws before them
    at most ``played_draws`` least-deadwood draws: ``advise_log_nb``, the
    advisor's ``--history``; 2 where the log cannot be read), and ``roulette``
    (0: every world weighed exactly and played; above 0, the worlds after the
    first EXACT_WORLDS below that share of their heaviest are kept by chance,
    ``advise_history_nb.roulette_nb``). With more than two players it plays
    like its continuation strategy. ``memory``: the view slot of the first of mc's two memory slots (the discard
    chosen with a decision to play on, for the D_DISCARD that follows; ``Family.memory_start``). ``margins``:
    (margin, knock_margin), the standard errors by which another discard or draw must beat the continuation's own,
    and (above 0) by which a knock must beat the continuation's playing on, or playing on its knock, at a knock
    decision (``best_column_nb``).
    ``slips``: (slip, knock_slip), the chances the opponent strays from its model where its play weighs the worlds,
    at its knock decisions and at every other (``advise_history_nb``). ``min_effective``: where the worlds' weights
    leave fewer effective worlds than this (``effective_worlds_nb``), the continuation's own choice stands: the
    opponent's play then fits a handful of worlds, and their means and standard errors are noise that the margins
    cannot see (0: no such guard). ``model_evidence``: where worlds were weighed, set to each model's mean weight over
    its block (the likelihood of the opponent's play so far under that model, up to a factor common to all; -1
    where its block is empty); left as given where the decision was not searched.
    """
    me = view[V_SEAT]
    width = max(expert_params.shape[0], opponent_models.shape[1])
    rollout_params = np.zeros((MAX_SEATS, width), dtype=np.float64)
    cont_fn = pick_continuation_nb(params[P_CONTINUATION], simple_fn, greedy_fn, expert_fn)
    # Every seat's row, whichever function plays it: simple and greedy have no parameters, but a strategy passed in
    # the place of one may (benchmarks/oracle).
    rollout_params[me, : expert_params.shape[0]] = expert_params
    own = rollout_params[me]
    if view[V_PLAYERS] != 2:  # the worlds and the showdown assume one opponent
        return cont_fn(kind, view, own)
    if (kind == D_DRAW or kind == D_TAKE_UPCARD) and params[P_DRAWS] == 0:
        return cont_fn(kind, view, own)
    if kind == D_DISCARD and view[memory] > 0 and view[memory + 1] == view[V_DRAWS]:
        card = view[memory] - 1
        view[memory] = 0
        if view[V_HAND] >> card & 1 and card != view[V_FORBIDDEN]:
            return card
    max_continue = int64(params[P_DISCARDS])
    if kind == D_DISCARD and max_continue == 0:
        return cont_fn(kind, view, own)
    cand = np.zeros((MAX_COLUMNS, N_CAND_FIELDS), dtype=np.int64)
    reference = -1  # the column of the continuation's own choice, which the others must beat by the margin
    standing = -1  # the column of the continuation's own answer, kept where the worlds are too few (-1: none)
    if kind == D_ARRANGE:
        n = arrangement_columns_nb(view, cand)
    elif kind == D_DRAW or kind == D_TAKE_UPCARD:
        # Take or not, the continuation playing on after either: its own choice is the reference, as its discard
        # is after a draw.
        n = draw_columns_nb(view, kind, cand)
        if n == 2:  # (with the top not to be taken, the one column is answered below, unweighed)
            reference = standing = 0 if cont_fn(kind, view, own) == 1 else 1
    else:
        # After a draw, the continuation's own discard is always the first way to play on: the sensible discards
        # rank by deadwood alone, and a search restricted to them would give up what it knows (safety, what the
        # opponent collects).
        n = candidates_nb(view, kind, max(max_continue, 1), cont_fn(D_DISCARD, view, own), cand)
        reference = standing = first_rollout_nb(cand, n)
        if kind == D_KNOCK and (margins[1] > 0 or min_effective > 0):  # (else the continuation is not asked)
            standing = own_knock_column_nb(cand, n, cont_fn(D_KNOCK, view, own))
            if margins[1] > 0:
                reference = standing
    if n == 0:
        return cont_fn(kind, view, own)
    if cand[n - 1, C_ACTION] == 0:  # a single action: nothing to weigh
        return answer_nb(kind, view, cand[0], memory)
    state = next_state_nb(uint64(view[V_RNG]))
    view[V_RNG] = np.int64(state)
    key = np.int64(stream_state_nb(state, MC_WORLDS) >> uint64(1))
    samples = max(int64(params[P_SAMPLES]), 1)
    out = np.zeros((samples, n, N_OUT), dtype=np.int64)
    active = np.ones(n, dtype=np.int64)
    status = np.zeros(STATUS_SIZE, dtype=np.int64)
    prior = played_prior_nb(view, kind) if params[P_PRIOR] != PRIOR_UNIFORM else np.array([-1, 0, -1], dtype=np.int64)
    evidence = no_evidence_nb(V_SIZE)
    model_traits = np.int64(0)  # each block's own: run_model_blocks_nb
    read = False
    if params[P_PRIOR] == PRIOR_HISTORY:
        turns, snapshots, logged_prior, read = log_evidence_nb(view, int64(params[P_WINDOW]),
                                                               int64(params[P_PLAYED_DRAWS]))
        if read:
            prior = logged_prior
            if turns.shape[0] > 0:
                evidence = (turns, snapshots, slips, model_traits)
    if params[P_PRIOR] == PRIOR_LATEST_TURN or (params[P_PRIOR] == PRIOR_HISTORY and not read):
        turns, snapshots = new_latest_evidence_nb()
        opponent_draws = prior[0]  # its stock draws this hand, as the played prior counts them
        if latest_turn_nb(view, kind, opponent_draws, turns, snapshots):
            prior = latest_turn_prior_nb(view, opponent_draws)
            evidence = (turns, snapshots, slips, model_traits)
    # The first worlds of each model's block weighed exactly (its share of EXACT_WORLDS, rounded up); with
    # ``roulette``, the others below that share of the heaviest of them by Russian roulette (unbiased): most worlds
    # the history rules out are then dropped unplayed, for the same time.
    bounds, scales = model_blocks_nb(model_prior, samples)
    exact = bounds.copy()
    if params[P_ROULETTE] > 0:
        for k in range(model_prior.shape[0]):
            size = bounds[k + 1] - bounds[k]
            exact[k + 1] = bounds[k] + min((EXACT_WORLDS * size + samples - 1) // samples, size)
    weights = np.zeros(samples, dtype=np.float64)
    question = Question(view, kind, cand, n, active, game_mode=0)  # the points of the hand alone
    functions = (cont_fn, simple_fn, greedy_fn, expert_fn, forced_fn)
    models = (opponent_models, model_codes, traits)
    error = run_model_blocks_nb(rollout_params, models, functions, question, key, prior, evidence, 0.0,
                                bounds[:-1], exact[1:], scales, out, weights, status)
    if not error and params[P_ROULETTE] > 0:
        cutoff = params[P_ROULETTE] * weights.max()  # (the worlds not weighed yet weigh 0)
        error = run_model_blocks_nb(rollout_params, models, functions, question, key, prior, evidence,
                                    cutoff, exact[1:], bounds[1:], scales, out, weights, status)
    if not error:
        for k in range(model_prior.shape[0]):
            size = bounds[k + 1] - bounds[k]
            model_evidence[k] = weights[bounds[k] : bounds[k + 1]].sum() / (scales[k] * size) if size > 0 else -1.0
    if error or not (weights > 0).any():  # no world explains the opponent's play: play as the continuation
        return cont_fn(kind, view, own)
    if standing >= 0 and effective_worlds_nb(weights) < min_effective:
        return answer_nb(kind, view, cand[standing], memory)
    return answer_nb(kind, view, cand[best_column_nb(out, weights, cand, n, reference, margins)], memory)


@njit(cache=True)
def model_blocks_nb(model_prior, samples):
    """The worlds of each opponent model: block k is worlds ``bounds[k] .. bounds[k + 1] - 1``, its share of the
    ``samples`` its prior chance (largest remainders), and ``scales[k]`` (its chance over its share) turns the
    weights of its worlds into the mixture's: stratified by model, the weighted average is the mixture's."""
    n_models = model_prior.shape[0]
    total = model_prior.sum()
    sizes = np.zeros(n_models, dtype=np.int64)
    remainders = np.zeros(n_models, dtype=np.float64)
    for k in range(n_models):
        share = model_prior[k] / total * samples
        sizes[k] = int64(share)
        remainders[k] = share - sizes[k]
    for k in np.argsort(-remainders)[: samples - sizes.sum()]:
        sizes[k] += 1
    bounds = np.zeros(n_models + 1, dtype=np.int64)
    scales = np.zeros(n_models, dtype=np.float64)
    for k in range(n_models):
        bounds[k + 1] = bounds[k] + sizes[k]
        if sizes[k] > 0:
            scales[k] = model_prior[k] / total * samples / sizes[k]
    return bounds, scales


@njit(cache=True)
def run_model_blocks_nb(rollout_params, models, functions, question, key, prior, evidence, cutoff, starts, ends,
                        scales, out, weights, status):
    """Weigh and play worlds ``starts[k] .. ends[k] - 1`` of each model k (``models``: the opponent's rows, the code
    of the function playing each, the traits by code) for the opponent (``functions``: the continuation's, the three
    by code and the forced first decisions'), the roulette's ``cutoff`` on the mixture's weights (0: none), and scale
    their weights by ``scales[k]``; returns a status."""
    me = question.seat_view[V_SEAT]
    opponent_models, model_codes, traits = models
    cont_fn, simple_fn, greedy_fn, expert_fn, forced_fn = functions
    turns, snapshots, slips, _ = evidence
    for k in range(opponent_models.shape[0]):
        lo, hi = starts[k], ends[k]
        if hi <= lo:
            continue
        for seat in range(MAX_SEATS):
            if seat != me:
                rollout_params[seat, : opponent_models.shape[1]] = opponent_models[k]
        opp_fn = pick_continuation_nb(model_codes[k], simple_fn, greedy_fn, expert_fn)
        strategies = Strategies(params=rollout_params, me_fn=cont_fn, opp_fn=opp_fn, forced_fn=forced_fn)
        weighed_by = (turns, snapshots, slips, traits[model_codes[k]])
        sampling = Sampling(key, prior, weighed_by, cutoff=cutoff / scales[k], guide=no_guide_nb(), repeats=1)
        error = run_samples_nb(strategies, question, sampling, lo, hi, out[lo:hi], weights[lo:hi], status)
        if error:
            return error
        for s in range(lo, hi):
            if weights[s] > 0:
                weights[s] *= scales[k]
    return 0


@njit(cache=True)
def effective_worlds_nb(weights):
    """Kish's effective number of worlds, (sum w)^2 / sum w^2 over the worlds of positive weight (0 if none): how
    many equally weighted worlds the weighted average is worth."""
    total, squares = 0.0, 0.0
    for w in weights:
        if w > 0:
            total += w
            squares += w * w
    return total * total / squares if squares > 0 else 0.0


@njit(cache=True)
def first_rollout_nb(cand, n):
    """The first playing-on column after a draw (the continuation's own discard); -1 when there is none."""
    for c in range(n):
        if cand[c, C_KIND] == ROLLOUT and cand[c, C_PRE] == PRE_NONE:
            return c
    return -1


@njit(cache=True)
def own_knock_column_nb(cand, n, answer):
    """The column of the continuation's answer at a knock decision: its knock with that discard or, to NO_CARD, its
    first way to play on (declining, at the fiftieth card); -1 when there is none."""
    for c in range(n):
        if answer == NO_CARD and cand[c, C_KIND] == ROLLOUT:
            return c
        if answer != NO_CARD and cand[c, C_KIND] != ROLLOUT and cand[c, C_DISCARD] == answer:
            return c
    return -1


@njit(cache=True)
def best_column_nb(out, weights, cand, n, own, margins):
    """The candidate with the most points on the weighted average of the worlds, where another way to play on
    replaces the continuation's own (column ``own``; -1: none) only if it beats it by more than ``margin``
    standard errors of their paired difference: the ways to play on differ by less than their rollouts' noise, and
    the best of several noisy estimates is biased up, against the knocks and against the continuation's choice.
    ``margins`` = (margin, knock_margin): with knock_margin above 0, a knock replaces the continuation's playing
    on, and anything its knock, only by that many standard errors (the worlds and the rollouts model the opponent,
    and a choice against the continuation's pays only if the model is right: ask for a clear gain)."""
    margin, knock_margin = margins
    total_weight = 0.0  # a world the opponent's play rules out weighs 0 (its row is not written)
    for s in range(weights.shape[0]):
        if weights[s] > 0:
            total_weight += weights[s]
    best, best_mean = 0, -np.inf
    for c in range(n):
        mean = 0.0
        for s in range(weights.shape[0]):
            if weights[s] > 0:
                mean += weights[s] * out[s, c, O_POINTS]
        mean /= total_weight
        if own >= 0 and c != own:
            both_play_on = cand[c, C_KIND] == ROLLOUT and cand[own, C_KIND] == ROLLOUT
            if both_play_on and not beats_nb(out, weights, total_weight, c, own, margin):
                continue
            if not both_play_on and knock_margin > 0 and not beats_nb(out, weights, total_weight, c, own, knock_margin):
                continue
        if mean > best_mean:
            best, best_mean = c, mean
    return best


@njit(cache=True)
def beats_nb(out, weights, total_weight, c, own, margin):
    """Whether column ``c`` beats column ``own`` by more than ``margin`` standard errors of the weighted paired
    difference (the ratio estimator's)."""
    mean = 0.0
    for s in range(weights.shape[0]):
        if weights[s] > 0:
            mean += weights[s] * (out[s, c, O_POINTS] - out[s, own, O_POINTS])
    mean /= total_weight
    spread = 0.0
    for s in range(weights.shape[0]):
        if weights[s] > 0:
            gap = out[s, c, O_POINTS] - out[s, own, O_POINTS] - mean
            spread += (weights[s] * gap) ** 2
    return mean > margin * np.sqrt(spread) / total_weight
