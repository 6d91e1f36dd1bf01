"""Which worlds are sampled, and how much each counts.

Without a history the opponent's hand is drawn from a prior (the kernel's
``[draws, flags, last discard]``): ``uniform`` among the unseen cards, or
``played`` (default), improved by least-deadwood draws, one per turn before
its latest, and weighted by how likely the named opponent was to play its
latest turn (``last_turn.py``: the discard on the pile, no knock); before
it has drawn from the stock, repaired so that it fits its last discard and
could not have knocked. With a ``history`` (``history.py``) the hand is uniform
and every world is weighted by how likely the named opponent was to play
every one of its turns exactly so: the posterior given everything public.
When few of those worlds count, a ``Guide`` learnt from them draws most of
the next ones (``advise_guided_nb``), with the exact importance correction:
the posterior stays the same, fewer worlds carry the weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oklasim._kernels import advise_history_nb as H
from oklasim._kernels import advise_worlds_nb as W
from oklasim._kernels import layout as L
from oklasim.advise.history import parse_history, replay
from oklasim.advise.last_turn import last_turn_evidence
from oklasim.advise.position import Position, card_list, one_card, read_position, rules_of, score_list, view_of
from oklasim.advise.request import FieldError, Request
from oklasim.game.cards import N_CARDS, mask_of
from oklasim.strategies.registry import Strategy, history_traits

PRIORS = ("played", "uniform")


def world_prior(position: Position, prior: str, opponent_draws: int | None = None) -> np.ndarray:
    """The kernel's ``[draws, flags, last discard]`` for a prior (see ``advise_worlds_nb.sample_world_nb``)."""
    if prior == "uniform":
        return np.array([-1, 0, -1], dtype=np.int64)
    draws = estimated_opponent_draws(position) if opponent_draws is None else int(opponent_draws)
    last = L.NO_CARD
    if draws > 0 or position.opponent_known:  # the opponent has played a turn: its discard is the last card
        if position.took is not None:
            last = position.took
        elif position.pile:
            last = position.pile[-1]
    return np.array([draws, W.PRIOR_PLAYED, last], dtype=np.int64)


def estimated_opponent_draws(position: Position) -> int:
    """The opponent's stock draws this hand, if the turns so far alternated (your own pile takes unknown)."""
    turns = stock_draws(position) + position.opponent_known.bit_count()
    return max((turns + 1) // 2 - position.opponent_known.bit_count(), 0)


def given_opponent_draws(position: Position, prior: str, draws: int) -> int:
    """The opponent's stock draws as given: at most the stock's cards drawn so far, less your own draw of this turn;
    ``FieldError`` where the worlds would not use them (uniform ones)."""
    if prior != "played":
        why = "with 3-4 players" if position.players > 2 else "with the uniform prior"
        raise FieldError("{opponent_draws}: " + why + " the worlds do not use it; leave it out")
    most = stock_draws(position)
    if draws > most:
        raise FieldError("{opponent_draws} {draws}: the opponent can have drawn at most {most} cards from the stock, "
                         "{drawn} having been drawn so far ({first} after the deal, {left} left){mine}", draws=draws,
                         most=most, drawn=position.rules.first_stock - position.stock,
                         first=position.rules.first_stock, left=position.stock,
                         mine=", one of them by you this turn" if _my_stock_draw(position) else "")
    return int(draws)


def stock_draws(position: Position) -> int:
    """The stock's cards drawn so far, but for your own draw of this turn."""
    return position.rules.first_stock - position.stock - _my_stock_draw(position)


def _my_stock_draw(position: Position) -> int:
    """1 when your 11th card came from the stock this turn."""
    return int(position.moment == "after_draw" and position.took is None)


@dataclass(frozen=True)
class Worlds:
    """Everything the kernel needs to sample and weigh worlds for one request."""

    position: Position
    view: np.ndarray  # the deciding seat's view row
    prior: np.ndarray  # [draws, flags, last discard] of ``sample_world_nb``
    evidence: tuple  # (turns, snapshots, (slip, slip)) of ``advise_history_nb``: no turns, every world weighs 1
    opponent_turns: int  # turns of the opponent the weights replay
    model: str  # "history", "played" (its latest turn weighed, if any) or "uniform"

    @property
    def conditioned(self) -> bool:
        return self.opponent_turns > 0

    def evidence_for(self, opponent: Strategy) -> tuple:
        """The kernel's evidence when ``opponent`` weighs the worlds: ``evidence`` and what its family declares."""
        return self.evidence + (history_traits(opponent),)


def worlds_for(request: Request) -> Worlds:
    """Check the request's position and set its worlds: as played, uniform, or weighted by the history."""
    r = request
    if r.history is None:
        position = read_position(r.hand, r.upcard, r.limit, r.pile, r.opponent_took, r.took, r.stock, r.scores,
                                 r.rules, r.passed, r.dealer, r.players)
        prior = r.prior if position.players == 2 else "uniform"  # the played prior models one opponent
        view = view_of(position)
        draws = estimated_opponent_draws(position) if r.opponent_draws is None else given_opponent_draws(
            position, prior, r.opponent_draws)
        latest = last_turn_evidence(position, view, draws) if prior == "played" else None
        if latest is None:
            return Worlds(position, view, world_prior(position, prior, draws), no_evidence(), 0, prior)
        before, turns, snapshots = latest
        return Worlds(position, view, before, evidence_of(turns, snapshots, r.slip), 1, prior)
    rules = rules_of(r.rules) if r.players is None else rules_of(r.rules).replace(players=r.players)
    if rules.players != 2:
        raise FieldError("the history is for two players only ({history}): with 3-4 players give the pile and what "
                         "each opponent took ({pile}, {opponent_took})")
    upcard = one_card(r.upcard, "{upcard}")
    if upcard is None:
        raise FieldError("with {history}, give {upcard}: it starts the pile")
    hand = mask_of(card_list(r.hand, "{hand}"))
    scores = score_list(r.scores)
    replayed = replay(parse_history(r.history), upcard, rules, scores, hand)
    derived = {"pile": mask_of(replayed.pile), "opponent_took": replayed.opponent_took, "took": replayed.took,
               "dealer": replayed.dealer}
    given = {"pile": mask_of(card_list(r.pile, "{pile}")) if r.pile not in ((), None, "") else None,
             "opponent_took": mask_of(card_list(r.opponent_took, "{opponent_took}")) if r.opponent_took not in
             ((), None, "") else None, "took": one_card(r.took, "{took}"), "dealer": r.dealer}
    for name, value in given.items():
        if value is not None and value != derived[name]:
            raise FieldError("{%s} disagrees with the history ({history}); leave it out, the history says it" % name)
    if r.opponent_draws is not None:
        raise FieldError("{opponent_draws}: the history ({history}) says how the opponent drew; leave it out")
    took_cards = [c for c in range(N_CARDS) if replayed.opponent_took >> c & 1]
    position = read_position(r.hand, upcard, r.limit, replayed.pile, took_cards, replayed.took, r.stock,
                             scores, rules, replayed.passed, replayed.dealer)
    view = view_of(position, replayed)
    first = 0 if r.window == 0 else max(len(replayed.turns) - r.window, 0)
    evidence = evidence_of(np.ascontiguousarray(replayed.turns[first:]),
                           np.ascontiguousarray(replayed.snapshots[first:]), r.slip)
    prior = np.array([-1, 0, -1], dtype=np.int64)  # every turn replayed: uniform, the exact posterior
    # The turns before the window shaped the hand as its least-deadwood stock draws would; more than a few such
    # draws make it too strong (it beats random unseen cards, the real hand only its own public discards).
    if first > 0:
        stock_turns = np.isin(replayed.turns[:first, H.T_KIND], (H.TURN_STOCK, H.TURN_FORCED_STOCK))
        prior = np.array([min(int(stock_turns.sum()), r.played_draws), 0, L.NO_CARD], dtype=np.int64)
    return Worlds(position, view, prior, evidence, len(replayed.turns) - first, "history")


# The guide (``advise_guided_nb``) draws each unseen card in proportion to GUIDE_FLOOR + (1 - GUIDE_FLOOR) x its
# share of the opponent's hands weighed so far, over the mean share: cards its play makes likely come more often,
# and no card is ever below GUIDE_FLOOR of the average, which bounds how far a world's weight can be corrected.
# It is switched on (for good) once GUIDE_AFTER worlds are worth at least GUIDE_LEARNT effective worlds (before
# that their shares are noise) but fewer than GUIDE_BELOW of the worlds are effective: where the prior does well,
# worlds drawn by a guide learnt from few worlds cost more than they bring (bench_advise, against expert:
# at 0.02-0.6 effective per world the effective worlds per second fell by up to half; at 0.0003-0.007 they rose
# x2-x5). The floor: with shares from 200,000 worlds on two situations (0.002 and 0.0007 effective per world drawn
# from the prior), worlds drawn by the guide alone were x5 and x28 as effective at 0.2; 0.5 and 0.05 did less.
GUIDE_FLOOR = 0.2
GUIDE_AFTER = 512
GUIDE_LEARNT = 5.0
GUIDE_BELOW = 0.01
# Each card drawn also multiplies the weight of every card left by their pair's lift (how much more often the
# hands weighed so far hold both than if they held them apart), clipped to PAIR_CLIP and raised to a power that
# grows with the effective worlds learnt from: PAIR_POWER x effective / (effective + PAIR_PRIOR). Offline, against
# expert at stocks 30 and 26: learnt from 200 or more effective worlds, power 0.5 made the guided worlds x2.8-x9 as
# effective as the cards' weights alone; learnt from 10-60, 0.5 lost up to x3 where 0.25 still gained. In the
# advisor (bench_advise, 3 seeds, run to +-0.5): 1.08-1.33 s and 0.48-1.12 s at those stocks, against 1.21-1.43 s
# and 0.98-1.18 s without pairs; stopped at 200,000 worlds, power 0.75, prior 30 or 65-80% of the worlds drawn
# by the guide did worse than these.
PAIR_CLIP = (0.1, 10.0)
PAIR_POWER = 0.5
PAIR_PRIOR = 100.0
GUIDED_SHARE = 0.5  # of the worlds drawn by the guide: a poor guide then costs at most half the effective worlds


class Guide:
    """The guided proposal, learnt from the worlds weighed so far: a weight per unseen card and a factor per pair.

    It changes only between batches, from the worlds of the batches before,
    never with the workers: the same seed still gives the same answer."""

    def __init__(self, worlds: Worlds) -> None:
        view = worlds.view
        unseen, known, need = (np.empty(N_CARDS, dtype=np.int64), np.zeros(L.MAX_SEATS, dtype=np.int64),
                               np.zeros(L.MAX_SEATS, dtype=np.int64))
        self.unseen = unseen[: W.list_unseen_nb(view, unseen, known, need)]
        # It replaces the cards the prior reads: a prior without repairs, two players, a history.
        self.used = worlds.conditioned and int(worlds.prior[1]) == 0 and len(self.unseen) > 0
        n = len(self.unseen)
        # Per pair of unseen cards, the weight of the hands holding both; its diagonal, per card, of those holding it.
        self.held_together = np.zeros((n, n))
        self.worlds = 0
        self.weight = self.weight2 = 0.0
        self.on = False

    @property
    def effective(self) -> float:
        return self.weight**2 / self.weight2 if self.weight2 > 0 else 0.0

    def learn(self, hands: np.ndarray, weights: np.ndarray, drawn: int) -> None:
        """Count the opponent's ``hands`` of a batch and their ``weights``, of the ``drawn`` worlds of the batch (the
        others weigh 0); nothing where no guide can be used."""
        if not self.used:
            return
        held = ((hands[:, None] >> self.unseen[None, :]) & 1).astype(np.float64)
        self.held_together += (held * weights[:, None]).T @ held
        self.worlds += drawn
        self.weight += float(weights.sum())
        self.weight2 += float((weights**2).sum())
        if self.worlds >= GUIDE_AFTER and GUIDE_LEARNT <= self.effective < GUIDE_BELOW * self.worlds:
            self.on = True

    def weights(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The guide of the next batch: (weight per card, factor per pair, share of the worlds it draws); empty
        weights: every world drawn from the prior."""
        if not self.on:
            return NO_GUIDE
        held = np.diagonal(self.held_together)
        share = held / self.weight
        weights = GUIDE_FLOOR + (1 - GUIDE_FLOOR) * share / share.mean()
        apart = np.outer(held, held)
        lift = np.divide(self.held_together * self.weight, apart, out=np.ones_like(apart), where=apart > 0)
        power = PAIR_POWER * self.effective / (self.effective + PAIR_PRIOR)
        return weights, np.clip(lift, *PAIR_CLIP) ** power, GUIDED_SHARE


NO_GUIDE = (np.zeros(0, dtype=np.float64), np.zeros((0, 0), dtype=np.float64), 0.0)


def evidence_of(turns: np.ndarray, snapshots: np.ndarray, slip: float) -> tuple:
    """The kernel's evidence: the advisor models every opponent decision with one slip, its knocks' as the others'."""
    return turns, snapshots, (float(slip),) * 2


def no_evidence() -> tuple:
    return (np.zeros((0, H.N_TURN_FIELDS), dtype=np.int64), np.zeros((0, 2, L.V_SIZE), dtype=np.int64), (0.0, 0.0))
