"""search: expert's play, with each knock decided by search over the worlds the opponent's play leaves likely.

Where a knock is legal, it weighs knocking with each legal discard against
playing on: it samples ``samples`` worlds (the opponent's hand and the
stock) as ``oklasim advise --history`` does, from the hand's public log:
each world weighted by how likely the opponent model was to play its latest
``window`` turns as it did (its draws, its discards, the knocks it let pass;
each answer against the model counts ``slip``), its hand before them shaped
by at most ``played_draws`` least-deadwood stock draws. It settles each
knock by the showdown, plays the hand on with ``expert`` in both seats, and
takes the candidate with the most points on the weighted average.
``discards`` extends the search to that many discards at each discard
(expert's own and the most sensible others; another replaces expert's only
when it beats it by ``margin`` standard errors), ``draws=1`` to the draws
(taking the pile's top or not, ``expert`` playing on after either; the other
choice replaces expert's only when it beats it by ``margin`` standard
errors); elsewhere it plays as ``expert``. A knock decision is guarded the
same way, by ``knock_margin`` (1 by default; 0: the plain maximum): a knock
replaces ``expert``'s playing on, and anything ``expert``'s knock, only when
it beats it by that many standard errors. The opponent model is wrong
against players unlike it, and a small gain it predicts is often its error
(measured in ``experiments/knock_disagreements``). With
``min_effective_worlds`` above 0, a searched decision whose worlds' weights
leave fewer effective worlds than that (Kish's (sum w)^2 / sum w^2) keeps
``expert``'s answer: where the opponent's play fits a handful of worlds,
their means and standard errors are noise. Worlds come from its own
random stream, so any game replays from its seed. Two players only: with
more it plays as ``expert``. Built on ``mc`` (the same machinery, with
``prior=history``): the opponent model and the continuation are expert.
Where the log cannot be read (a board built from a position rather than
played), the opponent's latest turn, rebuilt from the pile, weighs the
worlds (``prior=latest_turn``).

The opponent model follows the opponent's style as the game's showdowns
show it (``V_STYLE``, read as ``expert`` reads it): an opponent whose chance
of holding hands it could knock with is below ``knocker_below`` is
modelled as ``expert`` knocking whenever legal (a player such as ``eaai``:
its "did not knock" then says its deadwood is above the limit), any other
as ``expert``. That chance has its own prior (``holding_prior`` worth
``holding_weight`` showdowns), not expert's: before any showdown the model
is ``expert``, whose "did not knock" is the likelier reading when nothing
is known, while expert's own switch starts from the timing that is safe
against ``eaai``. With ``knocker_holds=1`` (the default) the knocker is not
taken at its word: it declines a knock it could make with that same chance
of holding (at least ``slip``), so a player seen knocking early but holding
later in its hands (``counter`` of the outside panel) leaves the worlds
where it could knock in play; with 0 such a decline weighs ``slip``, as
any other answer against the model.

With ``model=2`` the opponent is instead modelled by a knock timing fitted
to the knocks and held hands the game's showdowns showed
(``opponents_knock_timing_nb``: knocking whenever legal up to some own
draw, after it only with deadwood up to some threshold): expert's play with
that timing, in the worlds' weights and in the rollouts alike. Its prior,
worth ``timing_weight`` showdowns, knocks whenever legal up to
``timing_switch`` draws and after them with deadwood up to
``timing_threshold``. Measured no better than the style switch: within one
game the showdowns show too little to move the fit far (docs/results.md).
``model=3`` models it as a mixture of four players, each world drawn for
one of them in proportion to its prior chance and weighed by its play:
``expert`` and ``expert`` knocking whenever legal (their chances the
showdowns' chance of holding, as ``model=1`` reads it, and one minus it),
each with its look-ahead, danger and gin weights or without them
(``expert_plain``: a player that throws its worst card and thinks no
further; chance ``plain_share``). The opponent's play this hand then
weighs the four apart, and the rollouts of each world are played by the
one drawn for it.
``model=4`` models it as a mixture of twelve ``rulebook`` players, a
family whose habits are all parameters: three knock timings (whenever
legal; whenever legal for three draws, then with deadwood up to 4; only
gin), two pile-pickup habits (what melds; anything that lowers deadwood)
and two discard habits (the highest deadwood; next to the opponent's
discards, up to 4 deadwood points given up). The timings' prior chances
are half of one minus the holding chance, a half, and half the holding
chance, the pickup and discard habits even; worlds as ``model=3``'s.
``model=5`` puts ``expert`` (prior chance ``expert_share``) beside model
4's twelve (the rest, shared as model 4 shares it), each played by its
own function in the worlds and rollouts.
With ``carry`` above 0, models 3 to 5 learn across the hands of a game
(and, for a seat that meets the same opponents game after game, across
games: ``SeatView(remember_opponents=True)``): each hand's searched
decisions leave each model's evidence (the mean weight of its worlds: the
likelihood of the opponent's play under it, over the best model's, each
searched window of turns moving it by a factor of about 1,000 at most;
each of the opponent's turns counted once, by the first decision whose
window holds only turns not counted yet), kept in the game memory, and
each later hand's prior chances are multiplied by the game's evidence to
the power ``carry`` (1: the posterior over the game; smaller: tempered,
the opponent being none of the models). The worlds are then split by
those chances too.
With ``fit_timing=1`` (models 4 and 5), the timings' chances come from the
game's showdowns instead: each knock short of gin and each hand held that
a showdown showed (its own draws and deadwood) weighs each timing by its
likelihood under it (a swerve ``timing_slip``), from the chances above
with ``holding_prior`` as the chance of holding; with ``carry``, the grid
then carries only the evidence of its pickup and discard habits (each
habit's likelihood averaged over the timings): the knocks a hand's worlds
see declined tell the timing worse than the showdowns.
``model=0`` models the opponent as ``expert`` throughout.

The advisor's calibration of the history model (the window, the played
draws, the slip) is in ``reports/advise_calibration``.
"""

import itertools
from pathlib import Path

import numpy as np
from numba import njit

from oklasim._kernels import mc_nb as M
from oklasim._kernels.advise_latest_nb import DEFAULT_SLIP
from oklasim._kernels.advise_log_nb import DEFAULT_PLAYED_DRAWS, DEFAULT_WINDOW, opponent_turns_nb
from oklasim._kernels.linking import decide_function
from oklasim.strategies.registry import family_module, history_traits
from oklasim.strategy_api import (
    MAX_KNOCK_THRESHOLD,
    SHOWN_MAX_DRAWS,
    Family,
    Param,
    cache_depends_on,
    decide_kernel,
    knock_timing_log_likelihood_nb,
    opponents_holding_nb,
    opponents_knock_timing_nb,
    opponents_showings_nb,
)

HERE = Path(__file__).resolve().parent
MC = family_module(HERE / "mc.py")
# model 4's rulebook habits: knock timings, pile pickups and discards, a model for each combination.
TIMINGS = ({"early_draws": 99}, {"early_draws": 3, "late_threshold": 4}, {"early_draws": 0, "gin_after_draws": 0})
PICKUPS = ({"take_gain": 99}, {"take_gain": 1})
DISCARD_HABITS = ({"slack": 0, "safety_weight": 0}, {"slack": 4, "value_weight": 0.5, "safety_weight": 2})
N_TIMINGS = len(TIMINGS)
RULEBOOK_MODELS = N_TIMINGS * len(PICKUPS) * len(DISCARD_HABITS)
MAX_MODELS = 1 + RULEBOOK_MODELS  # the largest mixture: model 5's (model 3 has four)

FAMILY = Family(
    name="search",
    doc="expert's play; each knock searched over worlds weighted by the opponent's play this hand, expert in both seats.",
    params=(
        Param("samples", 4096, 1, 65536, "worlds drawn per searched decision (most dropped unplayed by the roulette)"),
        Param("discards", 0, 0, 11, "discards searched at each discard: expert's own and the most sensible others; "
                                    "0 or 1 = expert's own, unsearched"),
        Param("draws", 0, 0, 1, "1 = search the draw decisions too (take the pile's top or not, expert playing on "
                                 "after either; slower); 0 = draw as expert"),
        Param("knocker_below", 0.5, 0, 1, "model the opponent as knocking whenever legal when its chance of holding "
                                          "hands it could knock with is below this (0: never)", integer=False),
        Param("holding_prior", 0.5, 0, 1, "that chance before any showdown (from knocker_below up, the "
                                          "model starts as expert)", integer=False),
        Param("holding_weight", 2, 0, 20, "showdowns that prior is worth", integer=False),
        Param("window", DEFAULT_WINDOW, 0, 40, "the opponent's latest turns of the hand that weigh the worlds "
                                               "(0: all, its hand uniform: the exact posterior, fewer effective worlds)"),
        Param("played_draws", DEFAULT_PLAYED_DRAWS, 0, 20, "at most this many of its stock draws before them shape "
                                                           "its hand as least-deadwood draws"),
        Param("roulette", 0.1, 0, 1, "worlds below this share of the heaviest of the first ones weighed are kept by "
                                   "chance (unbiased) and most dropped unplayed; 0: every world weighed and played",
              integer=False),
        Param("margin", 2, 0, 10, "with discards or draws: another discard or draw replaces expert's only if it "
                                  "beats it by more than this many standard errors (paired, over the worlds)",
              integer=False),
        Param("model", 1, 0, 5, "the opponent model: 0 expert, 1 expert or a knocker by the showdowns' style "
                                "(knocker_below), 2 expert with a knock timing fitted to the showdowns, 3 a mixture "
                                "of expert and a knocker, each full or plain, 4 a mixture of rulebook players, 5 "
                                "expert beside them, the mixtures weighed by the opponent's play"),
        Param("timing_switch", 2, 0, SHOWN_MAX_DRAWS, "model 2 before any showdown: the own draws up to which the "
                                                      "opponent knocks whenever legal"),
        Param("timing_threshold", 0, 0, MAX_KNOCK_THRESHOLD, "model 2 before any showdown: the most deadwood it "
                                                             "knocks with after them (0: only gin)"),
        Param("timing_weight", 1, 0, 20, "model 2: showdowns that prior is worth", integer=False),
        Param("timing_slip", 0.1, 0.01, 0.49, "model 2: chance the opponent knocks or holds against its timing",
              integer=False),
        Param("slip", DEFAULT_SLIP, 0.0001, 0.49, "chance the opponent strays from its model at each decision that "
                                                  "weighs the worlds", integer=False),
        Param("knocker_holds", 1, 0, 1, "model 1: 1 = the knocker declines a knock with the chance the showdowns show "
                                        "it holding such hands (0: only by the slip)"),
        Param("knock_margin", 1, 0, 10, "a knock replaces expert's playing on, or playing on expert's knock, only if "
                                        "it beats it by more than this many standard errors (0: the plain maximum)",
              integer=False),
        Param("min_effective_worlds", 0, 0, 4096, "where the weights leave fewer effective worlds than this (Kish's "
                                                  "(sum w)^2 / sum w^2), expert's answer stands (0: no such guard)",
              integer=False),
        Param("plain_share", 0.5, 0, 1, "model 3: the prior chance the opponent plays as expert_plain (no look-ahead, "
                                        "danger or gin weights) rather than with them", integer=False),
        Param("expert_share", 0.5, 0, 1, "model 5: the prior chance the opponent plays as expert rather than as one "
                                         "of the rulebook players", integer=False),
        Param("fit_timing", 0, 0, 1, "models 4 and 5: 1 = the timings' chances from the likelihood of each showdown's "
                                     "knock or held hand under each (a swerve timing_slip), from a prior of "
                                     "holding_prior; 0 = from the showdowns' chance of holding alone"),
        Param("carry", 0, 0, 1, "models 3 to 5: how much the opponent's play in the game's earlier hands moves the "
                                "models' chances (1: the posterior carried whole from hand to hand; 0: each hand "
                                "starts from the prior)", integer=False),
    ),
    presets={"search_fast": {"samples": 512}},
    delegates=(MC.FAMILY,),  # it decides through mc's kernel, on its view
    memory=2,  # 1 once this hand's first decision has carried the last hand's evidence into the game's; the
    # opponent's turns this hand's evidence covers
    game_memory=2 * MAX_MODELS,  # per model: the log evidence of the game's earlier hands, and of this hand so far
)

(SAMPLES, DISCARDS, DRAWS, KNOCKER_BELOW, HOLDING_PRIOR, HOLDING_WEIGHT, WINDOW, PLAYED_DRAWS, ROULETTE, MARGIN,
 MODEL, TIMING_SWITCH, TIMING_THRESHOLD, TIMING_WEIGHT, TIMING_SLIP, SLIP, KNOCKER_HOLDS,
 KNOCK_MARGIN, MIN_EFFECTIVE_WORLDS, PLAIN_SHARE, EXPERT_SHARE, FIT_TIMING, CARRY) = FAMILY.indexes(
    "samples", "discards", "draws", "knocker_below", "holding_prior", "holding_weight", "window", "played_draws",
    "roulette", "margin", "model", "timing_switch", "timing_threshold", "timing_weight", "timing_slip",
    "slip", "knocker_holds", "knock_margin", "min_effective_worlds", "plain_share", "expert_share", "fit_timing",
    "carry")
MODEL_EXPERT, MODEL_STYLE, MODEL_TIMING, MODEL_MIXTURE, MODEL_RULEBOOK, MODEL_BESIDE = 0, 1, 2, 3, 4, 5

X = MC.EXPERT_MODULE
# The opponent model of a player that knocks whenever it can: expert's play with every knock taken.
KNOCKER_PARAMS = MC.EXPERT_PARAMS.copy()
KNOCKER_PARAMS[X.EARLY_DRAWS] = KNOCKER_PARAMS[X.HOLDER_EARLY_DRAWS] = X.NEVER
# [S, T]: expert knocking whenever legal up to S own draws and after them with deadwood at most T (the undercut risk
# ignored), whoever it plays. S = SHOWN_MAX_DRAWS knocks at any draw.
TIMED_PARAMS = np.tile(MC.EXPERT_PARAMS, (SHOWN_MAX_DRAWS + 1, MAX_KNOCK_THRESHOLD + 1, 1))
for switch, threshold in np.ndindex(TIMED_PARAMS.shape[:2]):
    timed = TIMED_PARAMS[switch, threshold]
    timed[[X.EARLY_DRAWS, X.HOLDER_EARLY_DRAWS]] = X.NEVER if switch == SHOWN_MAX_DRAWS else switch
    timed[[X.GIN_AFTER_DRAWS, X.HOLDER_GIN_AFTER_DRAWS]] = X.NEVER
    timed[[X.LATE_THRESHOLD, X.HOLDER_LATE_THRESHOLD]] = threshold
    timed[[X.MAX_UNDERCUT_RISK, X.HOLDER_MAX_UNDERCUT_RISK]] = 1
# model 3's players, a row each: expert, the knocker, and both plain (expert_plain's weights).
PLAIN = X.FAMILY.presets["expert_plain"]
MIXTURE = np.array([MC.EXPERT_PARAMS, KNOCKER_PARAMS, MC.EXPERT_PARAMS, KNOCKER_PARAMS])
MIXTURE[2:, list(X.FAMILY.indexes(*PLAIN))] = list(PLAIN.values())
# model 4's players: rulebook's knock timings x pile pickups x discards, a row each (timing first).
RULEBOOK_FILE = HERE / "rulebook.py"
RULEBOOK = family_module(RULEBOOK_FILE)
RULEBOOK_PLAYER = decide_function(RULEBOOK.decide_nb)
RULEBOOK_GRID = np.tile(RULEBOOK.FAMILY.defaults(), (RULEBOOK_MODELS, 1))
for row, habits in zip(RULEBOOK_GRID, itertools.product(TIMINGS, PICKUPS, DISCARD_HABITS)):
    for values in habits:
        row[list(RULEBOOK.FAMILY.indexes(*values))] = list(values.values())
RULES_PER_TIMING = len(PICKUPS) * len(DISCARD_HABITS)


def showdown_timing(values):
    """A rulebook knock timing as the showdowns read one (``opponents_knock_timing_nb``'s): the own draws up to which
    it knocks whenever legal, and the most deadwood it knocks with after them."""
    played = dict(zip((p.name for p in RULEBOOK.FAMILY.params), RULEBOOK.FAMILY.defaults()), **values)
    threshold = 0 if played["gin_after_draws"] == 0 else played["late_threshold"]
    return min(played["early_draws"], SHOWN_MAX_DRAWS), threshold


TIMING_SHOWN = np.array([showdown_timing(values) for values in TIMINGS], dtype=np.int64)
# model 5's players: expert, then the grid's (each row padded to the longer); by the code of the function playing it.
BESIDE = np.zeros((MAX_MODELS, max(len(MC.EXPERT_PARAMS), RULEBOOK_GRID.shape[1])))
BESIDE[0, : len(MC.EXPERT_PARAMS)] = MC.EXPERT_PARAMS
BESIDE[1:, : RULEBOOK_GRID.shape[1]] = RULEBOOK_GRID
BESIDE_CODES = np.array([M.CONTINUE_EXPERT] + [M.CONTINUE_GREEDY] * RULEBOOK_MODELS, dtype=np.int64)
RULEBOOK_CODES = BESIDE_CODES[1:].copy()
EXPERT_CODES = np.full(len(MIXTURE), M.CONTINUE_EXPERT, dtype=np.int64)  # model 3's, and the first for models 0 to 2
# By model code, what each opponent's family declares for weighing its play: rulebook's in greedy's place, where it
# plays (mc_nb picks the opponent's function by that code; the continuation is expert's).
RULEBOOK_TRAITS = MC.TRAITS.copy()
RULEBOOK_TRAITS[M.CONTINUE_GREEDY] = history_traits(RULEBOOK.FAMILY)
# With carry: each model's log evidence (the likelihood of the opponent's play under it, over the best model's) from
# the game's earlier hands, and from this hand as its latest searched decision weighed it; in fixed point (the view
# holds integers). A hand moves a model's log odds by FLOOR at most: the opponent is none of the models, and a model
# one hand rules out may still be the nearest over the game.
GAME_EVIDENCE = FAMILY.game_memory_start
HAND_EVIDENCE = GAME_EVIDENCE + MAX_MODELS
HAND_FOLDED = FAMILY.memory_start
COUNTED_TURNS = HAND_FOLDED + 1
LOG_SCALE = 10_000
FLOOR = -7.0

with cache_depends_on(MC.SIMPLE_FILE, MC.GREEDY_FILE, MC.EXPERT_FILE, HERE / "mc.py", RULEBOOK_FILE):

    @njit(cache=True)
    def opponent_models_nb(view, params):
        """The opponent models, by the model chosen: the parameters the opponent's function plays with in the worlds
        and rollouts (expert's, rulebook's for model 4, both for model 5), a row per model, the code of the function
        playing each (rulebook in greedy's place), their prior chances, and the slip at knock decisions."""
        if params[MODEL] == MODEL_MIXTURE:
            holding = opponents_holding_nb(view, params[HOLDING_PRIOR], params[HOLDING_WEIGHT])
            full, plain = 1 - params[PLAIN_SHARE], params[PLAIN_SHARE]
            prior = np.array([holding * full, (1 - holding) * full, holding * plain, (1 - holding) * plain])
            return MIXTURE, EXPERT_CODES, prior, params[SLIP]
        if params[MODEL] == MODEL_RULEBOOK or params[MODEL] == MODEL_BESIDE:
            rules = np.repeat(timing_chances_nb(view, params), RULES_PER_TIMING)
            if params[MODEL] == MODEL_RULEBOOK:
                return RULEBOOK_GRID, RULEBOOK_CODES, rules, params[SLIP]
            prior = np.concatenate((np.full(1, params[EXPERT_SHARE]), (1 - params[EXPERT_SHARE]) * rules / rules.sum()))
            return BESIDE, BESIDE_CODES, prior, params[SLIP]
        opponent, knock_slip = opponent_model_nb(view, params)
        return opponent.reshape(1, -1), EXPERT_CODES[:1], np.ones(1), knock_slip

    @njit(cache=True)
    def timing_chances_nb(view, params):
        """The prior chances of model 4's knock timings (whenever legal; early, then up to 4; only gin): half of one
        minus the showdowns' chance of holding, a half, half that chance; with fit_timing, from those chances
        before any showdown, times the likelihood of the game's showings under each timing."""
        if params[FIT_TIMING] == 0:
            holding = opponents_holding_nb(view, params[HOLDING_PRIOR], params[HOLDING_WEIGHT])
            return np.array([1 - holding, 1.0, holding])
        holding = params[HOLDING_PRIOR]
        logs = np.zeros(TIMING_SHOWN.shape[0])
        keep, swerve = np.log(1.0 - params[TIMING_SLIP]), np.log(params[TIMING_SLIP])
        for showing in opponents_showings_nb(view):
            for t in range(TIMING_SHOWN.shape[0]):
                logs[t] += knock_timing_log_likelihood_nb(TIMING_SHOWN[t, 0], TIMING_SHOWN[t, 1], showing, keep, swerve)
        return np.array([1 - holding, 1.0, holding]) * np.exp(logs - logs.max())

    @njit(cache=True)
    def opponent_model_nb(view, params):
        """The opponent model of models 0 to 2: expert's parameters for the opponent in the worlds and rollouts,
        and its slip at knock decisions (with knocker_holds, a knocker's is the chance the showdowns show it holding
        hands it could knock with: a player that knocks early and holds later is no plain knocker)."""
        if params[MODEL] == MODEL_TIMING:
            switch, threshold = opponents_knock_timing_nb(view, int(params[TIMING_SWITCH]),
                                                          int(params[TIMING_THRESHOLD]), params[TIMING_WEIGHT],
                                                          params[TIMING_SLIP])
            return TIMED_PARAMS[switch, threshold], params[SLIP]
        if params[MODEL] == MODEL_STYLE:
            holding = opponents_holding_nb(view, params[HOLDING_PRIOR], params[HOLDING_WEIGHT])
            if holding < params[KNOCKER_BELOW]:
                return KNOCKER_PARAMS, max(holding, params[SLIP]) if params[KNOCKER_HOLDS] else params[SLIP]
        return MC.EXPERT_PARAMS, params[SLIP]

    @njit(cache=True)
    def carried_prior_nb(view, prior, carry, grid_from):
        """The models' prior chances times their evidence from the game's earlier hands to the power ``carry``; at
        the hand's first decision, the last hand's evidence first joins the game's. With ``grid_from`` at 0 or
        above, the rulebook grid's rows from there on carry their habits' evidence alone (``habit_evidence_nb``):
        their knock timings are the showdowns' to weigh (fit_timing)."""
        if view[HAND_FOLDED] == 0:
            for k in range(MAX_MODELS):
                view[GAME_EVIDENCE + k] += view[HAND_EVIDENCE + k]
                view[HAND_EVIDENCE + k] = 0
            view[HAND_FOLDED] = 1
        logs = view[GAME_EVIDENCE : GAME_EVIDENCE + prior.shape[0]] / LOG_SCALE
        if grid_from >= 0:
            habit_evidence_nb(logs, grid_from)
        logs *= carry
        return prior * np.exp(logs - logs.max())

    @njit(cache=True)
    def habit_evidence_nb(logs, first):
        """Replace the log evidence of the grid's rows (``logs[first:]``, timing first) by that of their pickup and
        discard habits, the log of its likelihood's mean over the timings: the few knocks a hand's worlds see the
        opponent decline tell its timing worse than the showdowns do (a game against each grid player: the timing
        right 35 times in 40 by the showdowns, 27 with the hands' evidence too)."""
        top = logs[first : first + RULEBOOK_MODELS].max()
        for habit in range(RULES_PER_TIMING):
            mean = 0.0
            for timing in range(N_TIMINGS):
                mean += np.exp(logs[first + timing * RULES_PER_TIMING + habit] - top) / N_TIMINGS
            for timing in range(N_TIMINGS):
                logs[first + timing * RULES_PER_TIMING + habit] = top + np.log(mean)

    @njit(cache=True)
    def remember_hand_nb(view, evidence, turns, window):
        """Add a searched decision's evidence (``mc_decide_nb``'s ``model_evidence``; below 0: not weighed) to this
        hand's where it weighed only turns no earlier decision's evidence covered, so that each of the opponent's
        turns counts once: ``turns``, the opponent's turns of the hand so far, of which the decision weighed the
        latest ``window`` (0: all of them, its evidence then the hand's whole). Each model's log over the best's, at
        least FLOOR; a model whose block was empty gets the others' mean."""
        best = evidence.max()
        if best <= 0 or turns < 0:  # not searched, no world explains the opponent's play, or no log: nothing learnt
            return
        if window > 0 and turns - view[COUNTED_TURNS] < window:
            return  # some of its turns are already counted: wait for a window of new ones
        logs = np.zeros(evidence.shape[0])
        known = 0
        for k in range(evidence.shape[0]):
            if evidence[k] >= 0:
                logs[k] = max(np.log(evidence[k] / best), FLOOR) if evidence[k] > 0 else FLOOR
                known += 1
        mean = logs.sum() / known
        for k in range(evidence.shape[0]):
            log = round((logs[k] if evidence[k] >= 0 else mean) * LOG_SCALE)
            view[HAND_EVIDENCE + k] = log if window == 0 else view[HAND_EVIDENCE + k] + log
        view[COUNTED_TURNS] = turns

    @njit(cache=True)
    def in_greedys_place_nb(by_rulebook):
        return RULEBOOK_PLAYER() if by_rulebook else MC.GREEDY()

    @decide_kernel()
    def decide_nb(kind, view, params):
        by_rulebook = params[MODEL] == MODEL_RULEBOOK or params[MODEL] == MODEL_BESIDE
        as_mc = M.search_params_nb(params[SAMPLES], params[DISCARDS], params[DRAWS], M.PRIOR_HISTORY, params[WINDOW],
                                   params[PLAYED_DRAWS], params[ROULETTE])
        models, codes, prior, knock_slip = opponent_models_nb(view, params)
        carries = params[CARRY] > 0 and models.shape[0] > 1
        if carries:
            grid_from = -1 if not (by_rulebook and params[FIT_TIMING]) else models.shape[0] - RULEBOOK_MODELS
            prior = carried_prior_nb(view, prior, params[CARRY], grid_from)
        traits = RULEBOOK_TRAITS if by_rulebook else MC.TRAITS
        evidence = np.full(models.shape[0], -1.0)
        answer = M.mc_decide_nb(kind, view, as_mc, MC.SIMPLE(), in_greedys_place_nb(by_rulebook), MC.EXPERT(),
                                MC.FORCED(), MC.EXPERT_PARAMS, models, codes, prior, traits, MC.MEMORY,
                                (params[MARGIN], params[KNOCK_MARGIN]), (params[SLIP], knock_slip),
                                params[MIN_EFFECTIVE_WORLDS], evidence)
        if carries:
            remember_hand_nb(view, evidence, opponent_turns_nb(view), params[WINDOW])
        return answer
