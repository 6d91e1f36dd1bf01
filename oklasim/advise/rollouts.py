"""The Monte Carlo: sample worlds in batches, play every open candidate in them, stop when the answer is clear."""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from statistics import NormalDist

import numpy as np

from oklasim._kernels import advise_columns_nb as C
from oklasim._kernels import advise_rollouts_nb as R
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.advise.request import FieldError, Request
from oklasim.advise.result import Advice, Candidate
from oklasim.advise.worlds import Guide, worlds_for
from oklasim.analysis.stats import Estimate
from oklasim.errors import OklasimError
from oklasim.game.cards import format_card, format_hand
from oklasim.sim.engine import IllegalDecision, raise_illegal, stream_key
from oklasim.strategies.registry import Strategy, resolve
from oklasim.strategy_api import parameter_matrix

# The advisor's clock, for its time budget and the times it reports; read through this name so that a test can
# give it a fake one (tests/advisor_clock.py).
clock = time.perf_counter

FIRST_BATCH = 8  # small, to time a slow opponent before committing to a batch; then x4 per batch
GROWTH = 4
MIN_ESS = 20  # effective worlds an estimate needs before it is given an interval
# Effective worlds the leading action needs before the sampling stops short of the time budget, an action is
# dropped, or a recommendation given: with fewer, a few heavy worlds carry the weight, and the spread seen among
# them says little of the spread there is (the interval's own error is then a tenth or more of its width).
RECOMMEND_ESS = 200
BATCH_CAP = {False: 8192, True: 1024}  # worlds per batch, without / with the game played on
# Worlds weighing less than this share of the heaviest seen in earlier batches are played by Russian roulette
# (``advise_history_nb``). A tenth keeps the worlds explained about as well as the best (they differ through the
# cards the opponent may have drawn) and plays a world one slip behind once in 10 at slip 0.01 (1 in 33 at the
# default 0.003).
# Measured on bench_advise's situations against expert: the effective sample per world sampled is within 4% of
# that at a share of 0.01 (and within noise of full weighting) while 3-12% of the worlds are rolled out; the
# effective worlds per second are best at a tenth or a third (0.01 or 0.03 roll out 2-7 times more worlds; a share
# of 1 loses up to 40% of the effective sample).
ROULETTE_SHARE = 0.1
# Repeats of a world weighed by the history: its hidden hands played out with several stock orders (exact: the
# stock given the hands is uniform, whatever the history). A repeat costs the world's rollouts but no weighing and
# removes part of the variance within a hand. With B and W an action's variance between hands and within a hand, a
# the cost of weighing a world drawn, p the share of the worlds drawn that are played and r the cost of one
# column's rollout, K repeats of n columns give precision per second in proportion to
# 1 / ((B + W / K) (a + p n r K)), best at K = sqrt((W / B) (a / r) / (p n)). Measured (bench_advise.py --split,
# 8 situations against expert, 100,000 worlds each): W / B about 1 or more for the action of the largest variance
# (often 3-10), r / a 0.2-2.4 (median about 1); so K = sqrt(REPEAT_SCALE / (p n)), p from the batches so far and n
# the columns played out now: counts known before the batch, never timings, so that the same seed gives the same
# answer. It picks the best K of 1, 2, 4, 8 or one within 10% of it in each of the 8 (K = 1 where a tenth or more
# of the worlds are played; x1.5-x3.5 precision per second where fewer than 1% are).
REPEAT_SCALE = 1.0
MAX_REPEATS = 8  # the gain flattens past 4-8 while its cost grows


UNTIMED_SAMPLES = 200_000  # the sample budget when neither budget is given; with a time budget, the plan of looks


def batch_bounds(max_samples: int, game_mode: bool):
    """The worlds ``(lo, hi)`` of each batch when the whole budget is drawn: growing by GROWTH up to the cap."""
    done, batch = 0, FIRST_BATCH
    while done < max_samples:
        size = min(batch, max_samples - done)
        yield done, done + size
        done += size
        batch = min(batch * GROWTH, BATCH_CAP[game_mode])


def planned_looks(max_samples: int, game_mode: bool) -> int:
    """Batches (looks at the data) the sample budget allows: the separation test is corrected for all of them."""
    return sum(1 for _ in batch_bounds(max_samples, game_mode))


def repeats_for(conditioned: bool, drawn: int, played: int, rollouts: int) -> int:
    """Repeats per world of the next batch, after ``drawn`` worlds of which ``played`` were played, with
    ``rollouts`` columns to play out: 1 without a history (no weighing to spare) or before any world is known."""
    if not conditioned or drawn == 0 or rollouts == 0:
        return 1
    if played == 0:  # only weighing so far: a repeat costs next to nothing
        return MAX_REPEATS
    return min(MAX_REPEATS, max(1, round(math.sqrt(REPEAT_SCALE * drawn / (played * rollouts)))))


METRICS = {"points": R.O_POINTS, "win": R.O_WIN}
DRAW_NAMES = {C.PRE_NONE: None, C.PRE_PILE: "pile", C.PRE_TAKE: "upcard", C.PRE_STOCK: "stock", C.PRE_PASS: "pass",
              C.PRE_DECLINE: None}


class _Tally:
    """Weighted running sums per column, and per pair of columns over the worlds both were played in.

    World s weighs w_s (1 unless a history weights the worlds); x_s is the
    mean of its repeats (the same hidden hands played out with several stock
    orders: one cluster, one observation). A mean is sum(w x) / sum(w); its
    variance, sum(w^2 (x - mean)^2) / sum(w)^2 (the usual one with equal
    weights, and wide when a few worlds carry the weight). Worlds of weight 0
    (not played) add nothing, and are not counted as played.
    """

    def __init__(self, columns: int) -> None:
        shape = (len(METRICS), columns)
        self.n = np.zeros(columns)  # worlds played
        self.w = np.zeros(columns)  # their total weight
        self.w2 = np.zeros(columns)
        self.sum = np.zeros(shape)  # sum of w x
        self.sum2 = np.zeros(shape)  # sum of w^2 x
        self.sq2 = np.zeros(shape)  # sum of w^2 x^2
        self.pair_w = np.zeros((columns, columns))
        self.pair_w2 = np.zeros((columns, columns))
        self.pair_sum = np.zeros(shape + (columns,))
        self.pair_sum2 = np.zeros(shape + (columns,))
        self.pair_sq2 = np.zeros(shape + (columns,))
        self.cross2 = np.zeros(shape + (columns,))  # sum of w^2 x_j x_k
        self.outcomes = np.zeros((columns, 3))  # weighted shares: I score the hand, an opponent does, nobody
        self.undercuts = np.zeros(columns)

    def add(self, out: np.ndarray, active: np.ndarray, weights: np.ndarray, repeats: int) -> None:
        """Worlds whose ``out`` rows sum ``repeats`` playings each."""
        mask = active.astype(np.float64)
        both = np.outer(mask, mask)
        w, w2 = weights[:, None], weights[:, None] ** 2
        share = out / repeats  # per world: the mean of its repeats
        for m, index in enumerate(METRICS.values()):
            x = share[:, :, index] * mask
            s, s2, q2 = (w * x).sum(axis=0), (w2 * x).sum(axis=0), (w2 * x * x).sum(axis=0)
            self.sum[m] += s
            self.sum2[m] += s2
            self.sq2[m] += q2
            self.pair_sum[m] += s[:, None] * mask[None, :]
            self.pair_sum2[m] += s2[:, None] * mask[None, :]
            self.pair_sq2[m] += q2[:, None] * mask[None, :]
            self.cross2[m] += x.T @ (w2 * x)
        self.n += np.count_nonzero(weights) * mask
        self.w += weights.sum() * mask
        self.w2 += (weights**2).sum() * mask
        self.pair_w += weights.sum() * both
        self.pair_w2 += (weights**2).sum() * both
        won, lost = share[:, :, R.O_WON], share[:, :, R.O_LOST]
        for code, part in enumerate((won, lost, 1 - won - lost)):
            self.outcomes[:, code] += (part * w * mask).sum(axis=0)
        self.undercuts += (share[:, :, R.O_UNDERCUT] * w * mask).sum(axis=0)

    def mean(self, metric: int, c: int) -> float:
        return self.sum[metric, c] / self.w[c] if self.w[c] > 0 else 0.0

    def ess(self, c: int) -> float:
        """Effective sample size of column c: the worlds of equal weight that would be worth as much."""
        return self.w[c] ** 2 / self.w2[c] if self.w2[c] > 0 else 0.0

    def estimate(self, metric: int, c: int, z: float) -> Estimate:
        mean = self.mean(metric, c)
        squares = self.sq2[metric, c] - 2 * mean * self.sum2[metric, c] + mean * mean * self.w2[c]
        return _interval(mean, squares, self.w[c], self.ess(c), z)

    def difference(self, metric: int, j: int, k: int, z: float) -> Estimate:
        """Column j minus column k over their common worlds."""
        weight = self.pair_w[j, k]
        mean = (self.pair_sum[metric, j, k] - self.pair_sum[metric, k, j]) / weight if weight > 0 else 0.0
        sum2 = self.pair_sum2[metric, j, k] - self.pair_sum2[metric, k, j]
        sq2 = self.pair_sq2[metric, j, k] + self.pair_sq2[metric, k, j] - 2 * self.cross2[metric, j, k]
        squares = sq2 - 2 * mean * sum2 + mean * mean * self.pair_w2[j, k]
        ess = weight**2 / self.pair_w2[j, k] if self.pair_w2[j, k] > 0 else 0.0
        return _interval(mean, squares, weight, ess, z)

    def controlled_mean(self, metric: int, c: int, lead: int) -> float:
        """Column c's mean corrected by the leader's, a column played in every world c was and more: c's mean plus
        beta times how much the leader's mean over all its worlds differs from its mean over c's (the regression
        estimator of two-phase sampling; beta, c's regression on the leader, is about 1 where the worlds move
        both alike, and 0 where c is the same in every world)."""
        weight = self.pair_w[c, lead]
        mean_c, mean_lead = (self.pair_sum[metric, c, lead] / weight, self.pair_sum[metric, lead, c] / weight)
        sum2_c, sum2_lead = self.pair_sum2[metric, c, lead], self.pair_sum2[metric, lead, c]
        w2 = self.pair_w2[c, lead]
        covariance = self.cross2[metric, c, lead] - mean_c * sum2_lead - mean_lead * sum2_c + mean_c * mean_lead * w2
        variance = self.pair_sq2[metric, lead, c] - 2 * mean_lead * sum2_lead + mean_lead * mean_lead * w2
        beta = covariance / variance if variance > 0 else 0.0
        return float(mean_c + beta * (self.mean(metric, lead) - mean_lead))


def _interval(mean: float, squares: float, weight: float, ess: float, z: float) -> Estimate:
    """The interval of a weighted mean from sum(w^2 (x - mean)^2), with the n / (n - 1) of a sample variance taken
    at the effective sample size, and no interval at all below ``MIN_ESS`` (a few heavy worlds hide the spread)."""
    if ess >= MIN_ESS and weight > 0:
        half = z * math.sqrt(max(squares, 0.0) * ess / (ess - 1)) / weight
    else:
        half = math.inf
    return Estimate(float(mean), float(mean - half), float(mean + half), int(ess))


def _strategy(spec: str | Strategy, field: str, extra_paths) -> Strategy:
    """The strategy of a request's field; an unknown one is refused naming the field."""
    if isinstance(spec, Strategy):
        return spec
    try:
        return resolve(spec, extra_paths=extra_paths)
    except OklasimError as exc:
        raise FieldError("{%s}: {reason}" % field, reason=exc) from None


def advise(hand=None, *, extra_paths=(), **fields) -> Advice:
    """Weigh knocking (with each legal discard) against playing on (with each sensible discard).

    Cards are text ("As 2s") or indices. ``hand`` has 10 cards before your
    draw (then taking the pile top, drawing from the stock and, on the first
    turn, passing are weighed too) or 11 after it; ``took`` is the card you
    just took from the pile (it may not go straight back). ``pile`` lists
    the discard pile bottom first; ``opponent_took`` the cards the opponent
    took from it this hand. ``stock`` is checked against the other counts.
    ``scores`` (yours, the opponent's) add the chance to win the game,
    played on to the target by the continuation strategies, and make it
    the objective unless ``objective="points"``.

    ``prior`` sets how the opponent's unknown cards are drawn: ``uniform``
    among the unseen cards, or ``played`` (default): a uniform hand improved
    by the opponent's stock draws so far (``opponent_draws``, estimated from
    the stock when not given), each followed by the discard that leaves the
    least deadwood, as an opponent that has played those turns would hold.

    ``opponent`` and ``me`` are the strategies that play the hand (and the
    game) on. Sampling stops when the best action is ahead of every other
    with confidence and its interval is within ``precision`` points (None:
    separation alone), when every action still open is within
    ``precision``, or at ``max_samples`` worlds or ``max_seconds`` (without
    ``max_samples`` the time decides; without either, ``UNTIMED_SAMPLES``). Actions
    behind the best with confidence stop being sampled (``race=False``:
    every action is sampled to the end). The same seed gives the same
    answer whatever ``workers`` (unless the time budget stops it).

    No advice without evidence: while the best action's effective sample
    (``Advice.ess``) is below ``RECOMMEND_ESS``, separation does not stop the
    sampling; the budgets given always do. If it is still below at the end,
    ``Advice.recommendation`` is None and ``Advice.no_recommendation`` says why.
    """
    return run(Request.from_fields({"hand": hand, **fields}), extra_paths)


def run(request: Request, extra_paths=()) -> Advice:
    """``advise`` for a ``Request``."""
    started = clock()
    r = request
    r.check_options()
    worlds = worlds_for(r)
    position, view = worlds.position, worlds.view
    game_mode = position.scores is not None
    objective = r.objective or ("win" if game_mode else "points")
    if objective == "win" and not game_mode:
        raise FieldError("the win objective needs the scores: give {scores}, or {objective} points")
    workers = int(r.workers or os.cpu_count() or 1)
    seats = (_strategy(r.continuation(), "plan" if r.plan is not None else "me", extra_paths),
             _strategy(r.opponent, "opponent", extra_paths))
    confidence, precision, win_precision, max_samples, max_seconds, seed, race, discards = (
        r.confidence, r.precision, r.win_precision, r.max_samples, r.max_seconds, r.seed, r.race, r.discards)

    kind = position.kind
    columns = np.zeros((C.MAX_COLUMNS, C.N_CAND_FIELDS), dtype=np.int64)
    n_cols = int(C.candidates_nb(view, kind, discards, L.NO_CARD, columns))
    columns = np.ascontiguousarray(columns[:n_cols])
    action_of = columns[:, C.C_ACTION]
    n_actions = int(action_of.max()) + 1
    members = [np.flatnonzero(action_of == a) for a in range(n_actions)]
    params = parameter_matrix([seats[0].vector()] + [seats[1].vector()] * (L.MAX_SEATS - 1))  # I am seat 0
    key = stream_key(seed)
    metric = list(METRICS).index(objective)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    cap = max_samples if max_samples is not None or max_seconds is not None else UNTIMED_SAMPLES  # None: time decides
    plan = cap if cap is not None else UNTIMED_SAMPLES  # the separation test is corrected for this plan's looks
    looks = planned_looks(plan, game_mode)
    # From the tail: at a confidence of 1 - 1e-12, one minus the corrected tail rounds to 1.
    z_separate = -NormalDist().inv_cdf((1 - confidence) / (2 * max(n_actions - 1, 1) * looks))

    tally = _Tally(n_cols)
    guide = Guide(worlds)
    active = np.ones(n_cols, dtype=np.int64)
    strategies = R.Strategies(me_fn=seats[0].decide, opp_fn=seats[1].decide, forced_fn=R.forced_nb, params=params)
    question = R.Question(view, kind, columns, n_cols, active, game_mode=int(game_mode))
    open_actions = set(range(n_actions))
    done, batch, reason = 0, FIRST_BATCH, None
    played_worlds = 0  # of the ``done`` worlds drawn, those played (weight above 0)
    heaviest = 0.0  # the heaviest world so far (the first batch, at cutoff 0, is weighed exactly)
    sampling_started = clock()  # the time budget is for sampling, not for checks or compiling
    deadline = None if max_seconds is None else sampling_started + max_seconds
    stop = np.zeros(1, dtype=np.int64)  # set at the deadline: the kernels then leave their unfinished worlds
    with ThreadPoolExecutor(max_workers=workers) as pool:
        while True:
            size = batch if cap is None else min(batch, cap - done)
            out = np.zeros((size, n_cols, R.N_OUT), dtype=np.int64)
            weights = np.full(size, -1.0)  # -1: not finished (the workers share the batch, see run_worlds_nb)
            hands = np.zeros(size, dtype=np.int64)
            rollouts = int(np.count_nonzero(active & ((columns[:, C.C_KIND] != C.SHOWDOWN) | game_mode)))
            repeats = repeats_for(worlds.conditioned, done, played_worlds, rollouts)
            sampling = R.Sampling(key, worlds.prior, worlds.evidence_for(seats[1]), cutoff=ROULETTE_SHARE * heaviest,
                                  guide=guide.weights(), repeats=repeats)
            jobs = []
            batch_started = clock()  # before the jobs start: one may end before they are all submitted
            claims = np.array([done], dtype=np.int64)  # the next world of the batch a worker may claim
            shared = R.Batch(lo=done, hi=done + size, claims=claims, stop=stop)  # the same worlds for all workers
            for _ in range(workers):
                outputs = R.Outputs(out, weights, opponent_hands=hands, status=np.zeros(E.STATUS_SIZE, dtype=np.int64))
                jobs.append((outputs, pool.submit(R.advise_batch_nb, strategies, question, sampling, shared, outputs)))
            for outputs, job in jobs:
                _check(_result(job, deadline, stop), outputs.status, seats, seed)
            batch_seconds = clock() - batch_started
            played = weights >= 0  # all but the worlds left at the deadline
            finished = int(played.sum())
            # Worlds of weight 0 (most, when few explain the history) add nothing to the sums: tallying them cost
            # a fifth of the time at 2 workers while the workers wait.
            counted = weights > 0
            tally.add(out[counted], active, weights[counted], repeats)
            guide.learn(hands[counted], weights[counted], finished)
            # A roulette survivor weighs the cutoff, below the heaviest: this is the heaviest exact weight seen.
            heaviest = max(heaviest, float(weights.max()))
            done += finished
            played_worlds += int(np.count_nonzero(weights[played]))
            looks -= 1
            batch = min(batch * GROWTH, BATCH_CAP[game_mode])

            best = _leader(tally, members, open_actions, metric)
            # The open actions share the leader's worlds, and so its effective sample: enough evidence for all.
            enough = tally.ess(_representative(tally, members[best], metric)) >= RECOMMEND_ESS
            # Drop only on enough evidence, and at the looks the separation test was corrected for (none past the
            # sample budget).
            if race and enough and looks >= 0:
                for a in _behind(tally, members, open_actions, best, metric, z_separate):
                    open_actions.discard(a)
                    active[members[a]] = 0
            precise = all(_precise(tally, _representative(tally, members[a], metric), z, precision, win_precision,
                                   game_mode) for a in open_actions)
            if n_actions == 1 and (precision is None or precise):
                reason = "single"
                break
            if len(open_actions) == 1 and (precision is None or precise) and enough:
                reason = "separated"
                break
            if precision is not None and precise and enough:
                reason = "precision"
                break
            # The sample budget is a cap even short of evidence. Time-cut batches leave fewer worlds, never more
            # looks: with the looks spent and too little evidence, the sampling goes on while there is time left.
            capped = cap is not None and done >= cap
            if stop[0] or capped or (looks <= 0 and (enough or max_seconds is None)):
                reason = "samples" if done >= plan and not stop[0] else "time"
                break
            elapsed = clock() - sampling_started
            if max_seconds is not None:  # the next batch, cut to what the time left affords at the speed seen
                affordable = int((max_seconds - elapsed) * size / max(batch_seconds, 1e-9))
                batch = min(batch, affordable)
            if batch < (FIRST_BATCH if cap is None else min(FIRST_BATCH, cap - done)):
                reason = "time"
                break

    if tally.w.max() <= 0:
        raise FieldError("none of {done:,} sampled worlds explains {history} if the opponent plays {name}: give "
                         "{slip} above 0, or another {opponent}", done=done, name=seats[1].name)
    best = _leader(tally, members, open_actions, metric)
    lead = _representative(tally, members[best], metric)
    ess = float(tally.ess(lead))
    doubt = _doubt(tally, members, best, metric, ess, reason, max_seconds)
    candidates = []
    for a in range(n_actions):
        rep = _representative(tally, members[a], metric)
        status = ("recommended" if doubt is None else "leading") if a == best else (
            "open" if a in open_actions else "beaten")
        vs_best = None if a == best else _versus(tally, metric, rep, lead, z)
        candidates.append(_candidate(columns[rep], rep, tally, z, game_mode, status, vs_best, lead))
    return Advice(
        recommendation=candidates[best] if doubt is None else None,
        no_recommendation=doubt,
        min_ess=RECOMMEND_ESS,
        candidates=tuple(candidates),
        objective=objective,
        stop_reason=reason,
        samples=done,
        seconds=clock() - started,
        setup_seconds=sampling_started - started,
        workers=workers,
        seed=seed,
        confidence=confidence,
        precision=precision,
        position=position,
        me=seats[0].name,
        opponent=seats[1].name,
        prior=worlds.model,
        opponent_draws=int(max(worlds.prior[0], 0)),
        opponent_turns=worlds.opponent_turns,
        plan=r.plan,
        window=r.window if worlds.model == "history" else None,
        slip=r.slip if worlds.conditioned else None,
        played_draws=r.played_draws if worlds.model == "history" else None,
        ess=ess,
    )


def _doubt(tally: _Tally, members, best: int, metric: int, ess: float, reason: str, max_seconds) -> str | None:
    """Why the evidence does not support a recommendation, in one line; None when it does."""
    if len(members) == 1:
        return None  # one action possible: nothing to choose
    if ess < RECOMMEND_ESS:
        more = "worlds (--samples)" if reason == "samples" and max_seconds is None else "time (--seconds)"
        return (f"effective sample {int(ess):,} is below the minimum {RECOMMEND_ESS} for a recommendation: give it "
                f"more {more}")
    lead = _representative(tally, members[best], metric)
    for a in range(len(members)):
        rep = _representative(tally, members[a], metric)
        if a != best and max(tally.difference(metric, rep, lead, 1.0).mean,
                             _versus(tally, metric, rep, lead, 1.0).mean) > 0:
            return ("an action dropped early as behind looks as good as the leader now: the evidence disagrees with "
                    "itself; run again with --no-race (race=False)")
    return None


def _result(job, deadline: float | None, stop: np.ndarray) -> int:
    """A worker's status; at the deadline ``stop`` is set, and the worker soon returns with what it finished."""
    if deadline is not None and not stop[0]:
        try:
            return job.result(timeout=max(deadline - clock(), 0.0))
        except TimeoutError:
            stop[0] = 1
    return job.result()


def _check(code: int, status: np.ndarray, seats, seed: int) -> None:
    if code == L.E_ILLEGAL:
        try:
            raise_illegal(status, seats, seed)
        except IllegalDecision as exc:
            raise IllegalDecision(f"while playing the candidates out: {exc}") from None
    if code != L.E_NONE:
        raise RuntimeError(f"advise kernel failed with status {code}")


def _representative(tally: _Tally, columns: np.ndarray, metric: int) -> int:
    """The column that stands for an action: its best meld arrangement (first of the best on ties)."""
    means = [tally.mean(metric, c) for c in columns]
    return int(columns[int(np.argmax(means))])


def _behind(tally: _Tally, members, actions, best: int, metric: int, z: float) -> list[int]:
    """The ``actions`` behind ``best`` with confidence, in the worlds both were played in."""
    lead = _representative(tally, members[best], metric)
    return [a for a in sorted(actions - {best})
            if tally.difference(metric, _representative(tally, members[a], metric), lead, z).high < 0]


def _leader(tally: _Tally, members, actions, metric: int) -> int:
    """The open action with the best mean (the first listed on ties: knocks come first)."""
    return max(sorted(actions), key=lambda a: (tally.mean(metric, _representative(tally, members[a], metric)), -a))


def _precise(tally, c, z, precision, win_precision, game_mode) -> bool:
    if precision is None:
        return False
    ok = tally.estimate(0, c, z).half_width <= precision
    if game_mode:
        ok = ok and tally.estimate(1, c, z).half_width <= win_precision
    return ok


def _comparable(tally: _Tally, metric: int, c: int, lead: int, z: float) -> Estimate:
    """Column c's estimate, comparable with the leader's: an action dropped early was played in fewer worlds, and
    its own mean over those alone would not compare with the leader's over all (the leader may have fared better
    or worse in them). Its mean is then corrected by the leader's (``controlled_mean``), with its own half-width
    (the correction, if anything, narrows it)."""
    own = tally.estimate(metric, c, z)
    if tally.n[c] == tally.n[lead] or own.half_width == 0:  # the same worlds, or the same value in every world
        return own
    mean = tally.controlled_mean(metric, c, lead)
    return Estimate(mean, mean - own.half_width, mean + own.half_width, own.n)


def _versus(tally: _Tally, metric: int, c: int, lead: int, z: float) -> Estimate:
    """Column c minus the leader, as printed: c's comparable estimate (``_comparable``) minus the leader's, so that
    the column's value plus this is the leader's value. Its interval is the paired difference's over the worlds both
    were played in (the same value where c was played in all the leader's worlds)."""
    paired = tally.difference(metric, c, lead, z)
    mean = _comparable(tally, metric, c, lead, z).mean - tally.mean(metric, lead)
    return Estimate(mean, mean - paired.half_width, mean + paired.half_width, paired.n)


def _candidate(column, c, tally: _Tally, z, game_mode, status, vs_best, lead) -> Candidate:
    knock = column[C.C_KIND] == C.SHOWDOWN
    discard = int(column[C.C_DISCARD])
    big_gin = bool(knock and discard == L.BIG_GIN)
    n = tally.n[c]
    weight = tally.w[c]
    melds = None
    if knock:
        melds = tuple(format_hand(int(m)) for m in column[C.C_MELDS : C.C_MELDS + L.MAX_MELDS_IN_ARRANGEMENT] if m)
    undercut = None
    if knock:
        share = tally.undercuts[c] / weight
        half = z * math.sqrt(max(share * (1 - share), 0.0) / max(tally.ess(c), 1.0))
        undercut = Estimate(share, max(share - half, 0.0), min(share + half, 1.0), int(tally.ess(c)))
    win = _comparable(tally, 1, c, lead, z) if game_mode else None
    if win is not None:
        win = Estimate(win.mean, max(win.low, 0.0), min(win.high, 1.0), win.n)
    outcomes = tally.outcomes[c] / weight
    return Candidate(
        action="knock" if knock else ("decline" if column[C.C_PRE] == C.PRE_DECLINE else "continue"),
        discard=None if big_gin or discard < 0 else format_card(discard),
        draw=DRAW_NAMES[int(column[C.C_PRE])],
        big_gin=big_gin,
        arrangement=melds,
        deadwood=int(column[C.C_DEADWOOD]) if knock else None,
        samples=int(n),
        points=_comparable(tally, 0, c, lead, z),
        win=win,
        undercut=undercut,
        hand_outcomes={"i_score": float(outcomes[0]), "opponent_scores": float(outcomes[1]),
                       "nobody": float(outcomes[2])},
        vs_best=vs_best,
        status=status,
    )
