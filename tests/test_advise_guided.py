"""The guided proposal: its worlds, weighted, have the prior's and the history's distribution; reproducible."""

import numpy as np
import pytest
from test_advise_roulette import POSITION

from oklasim._kernels import advise_columns_nb as C
from oklasim._kernels import advise_guided_nb as G
from oklasim._kernels import advise_rollouts_nb as R
from oklasim._kernels import advise_worlds_nb as W
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.advise import advise
from oklasim.advise import worlds as worlds_module
from oklasim.advise.request import Request
from oklasim.advise.worlds import NO_GUIDE, worlds_for
from oklasim.strategies.registry import resolve
from oklasim.strategy_api import parameter_matrix


def weighted_shares(hands: np.ndarray, weights: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per card, the weighted share of the hands holding it, and its standard error."""
    held = ((hands[:, None] >> cards[None, :]) & 1).astype(float)
    share = weights @ held / weights.sum()
    error = np.sqrt((weights[:, None] ** 2 * (held - share) ** 2).sum(axis=0)) / weights.sum()
    return share, error


def lopsided_guide(n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """A guide far from uniform: the first cards 5 times as likely as the others, and each card drawn makes the
    cards of the other parity 3 times as likely as those of its own; half the worlds drawn by it."""
    index = np.arange(n)
    return np.where(index < n // 3, 5.0, 1.0), np.where((index[:, None] + index[None, :]) % 2 == 1, 3.0, 1.0), 0.5


@pytest.mark.parametrize("draws", [-1, 3])
def test_guided_worlds_weighted_by_their_ratio_have_the_priors_card_shares(draws):
    """Drawn by a lopsided guide (its cards and its pairs) and weighted by prior / proposal, the hands hold each card
    as often as the prior's (uniform, or improved by least-deadwood draws), and as many pairs the guide favours:
    within 4.5 standard errors on every card and on the pairs."""
    unseen = np.arange(10, 40, dtype=np.int64)
    n, known, need, count = len(unseen), np.int64(1 << 3 | 1 << 4), 8, 20_000
    guide = lopsided_guide(n)
    cards, factors, scratch, stock = (np.empty(52, dtype=np.int64), np.empty(52), np.empty(52, dtype=np.int64),
                                      np.empty(52, dtype=np.int64))
    guided = [G.guided_hand_nb(1, s, unseen, n, known, need, draws, guide, cards, factors)
              for s in range(count)]
    hands, ratios = np.array([h for h, _, _ in guided]), np.array([r for _, r, _ in guided])
    prior = np.array([W.sample_world_nb(2, s, unseen, n, known, need, draws, 0, L.NO_CARD, 10, scratch, stock)
                      for s in range(count)])
    assert np.all(hands & known == known) and np.all(ratios > 0) and ratios.max() <= 1 / (1 - guide[2])
    guided_share, guided_error = weighted_shares(hands, ratios, unseen)
    prior_share, prior_error = weighted_shares(prior, np.ones(count), unseen)
    assert np.all(np.abs(guided_share - prior_share) <= 4.5 * np.hypot(guided_error, prior_error))
    unweighted, _ = weighted_shares(hands, np.ones(count), unseen)
    assert np.max(np.abs(unweighted - prior_share) / np.hypot(guided_error, prior_error)) > 8  # the guide did move them
    guided_pairs, prior_pairs = favoured_pairs(hands, unseen), favoured_pairs(prior, unseen)
    guided_mean, guided_error = weighted_mean(guided_pairs, ratios)
    prior_mean, prior_error = weighted_mean(prior_pairs, np.ones(count))
    assert abs(guided_mean - prior_mean) <= 4.5 * np.hypot(guided_error, prior_error)
    assert (guided_pairs.mean() - prior_mean) / np.hypot(guided_error, prior_error) > 8  # the pairs moved them too


def favoured_pairs(hands: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """Per hand, the pairs of unseen cards it holds that ``lopsided_guide`` favours (one at an odd index, one at an
    even index)."""
    held = (hands[:, None] >> unseen[None, :]) & 1
    odd = held[:, 1::2].sum(axis=1)
    return (odd * (held.sum(axis=1) - odd)).astype(float)


def weighted_mean(values: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """The weighted mean of ``values`` and its standard error."""
    mean = weights @ values / weights.sum()
    return mean, float(np.sqrt((weights**2 * (values - mean) ** 2).sum()) / weights.sum())


def history_worlds(worlds, opponent, guide, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's hands of ``count`` worlds and their exact history weights (no candidate played)."""
    columns = np.zeros((1, C.N_CAND_FIELDS), dtype=np.int64)
    params = parameter_matrix([opponent.vector()])
    out, weights, hands = np.zeros((count, 1, R.N_OUT), dtype=np.int64), np.zeros(count), np.zeros(count, np.int64)
    code = R.advise_batch_nb(
        R.Strategies(me_fn=opponent.decide, opp_fn=opponent.decide, forced_fn=R.forced_nb, params=params),
        R.Question(seat_view=worlds.view, kind=worlds.position.kind, cand=columns, n_cand=0,
                   active=np.zeros(1, dtype=np.int64), game_mode=0),
        R.Sampling(key=9, prior=worlds.prior, evidence=worlds.evidence_for(opponent), cutoff=0.0, guide=guide,
                   repeats=1),
        R.Batch(lo=0, hi=count, claims=R.NO_CLAIMS, stop=np.zeros(1, dtype=np.int64)),
        R.Outputs(out=out, weights=weights, opponent_hands=hands, status=np.zeros(E.STATUS_SIZE, dtype=np.int64)))
    assert code == L.E_NONE
    return hands, weights


def test_guided_worlds_keep_the_history_posterior():
    """The history's posterior (greedy, every turn and the window of 3) on the opponent's cards is the same with
    a lopsided guide as with the prior alone: within 4.5 standard errors on every unseen card."""
    opponent = resolve("greedy")
    for window in (0, 3):
        worlds = worlds_for(Request(**POSITION, opponent="greedy", window=window))
        unseen = worlds_module.Guide(worlds).unseen
        plain = weighted_shares(*history_worlds(worlds, opponent, NO_GUIDE, 20_000), unseen)
        guided = weighted_shares(*history_worlds(worlds, opponent, lopsided_guide(len(unseen)), 20_000), unseen)
        assert np.all(np.abs(plain[0] - guided[0]) <= 4.5 * np.hypot(plain[1], guided[1])), window


def test_same_seed_same_answer_whatever_the_workers_with_the_guide(monkeypatch):
    """With the guide switched on early, 1, 2 and 3 workers give the same answer; the guide was used."""
    monkeypatch.setattr(worlds_module, "GUIDE_BELOW", 1.0)
    monkeypatch.setattr(worlds_module, "GUIDE_AFTER", 40)
    used = []
    weights = worlds_module.Guide.weights
    monkeypatch.setattr(worlds_module.Guide, "weights", lambda self: used.append(self.on) or weights(self))
    runs = [advise(**POSITION, opponent="greedy", seed=4, workers=w, max_samples=3000, max_seconds=None,
                   precision=None).to_dict() for w in (1, 2, 3)]
    for d in runs:
        d.pop("seconds"), d.pop("setup_seconds"), d.pop("workers")
    assert runs[0] == runs[1] == runs[2]
    assert any(used) and not all(used)  # drawn from the prior first, then by the guide


def test_a_guide_learnt_from_the_worlds_that_count_is_the_one_learnt_from_every_world():
    """The advisor hands the guide only the worlds weighing more than 0, with the count drawn: the guide switches
    on at the same batch and draws by the same weights as one given every world, weight 0 included."""
    worlds = worlds_for(Request(**POSITION, opponent="greedy"))
    every, counted = worlds_module.Guide(worlds), worlds_module.Guide(worlds)
    rng = np.random.default_rng(5)
    switched = []
    for size in (8, 32, 128, 512, 2048):
        hands = rng.integers(0, 1 << 52, size=size, dtype=np.int64)  # any cards will do: only their bits count
        weights = np.where(rng.random(size) < 0.005, rng.random(size), 0.0)  # few explain the history
        every.learn(hands, weights, size)
        counted.learn(hands[weights > 0], weights[weights > 0], size)
        assert every.on == counted.on
        switched.append(counted.on)
        for mine, theirs in zip(every.weights(), counted.weights()):
            np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    assert switched[0] is False and switched[-1] is True


def test_the_guide_learns_which_cards_go_together_and_trusts_them_as_it_learns():
    """Hands that hold two cards together, or one without the other: their pair factor is above 1 or below 1, the
    further from 1 the more effective worlds the guide learnt from, never past the clip."""
    guide = worlds_module.Guide(worlds_for(Request(**POSITION, opponent="greedy")))
    a, b, c = (int(card) for card in guide.unseen[:3])
    rng = np.random.default_rng(7)
    factors = []
    for _ in range(3):
        others = np.bitwise_or.reduce(np.left_shift(1, rng.choice(guide.unseen[3:], size=(600, 6))), axis=1)
        hands = others | np.where(np.arange(600) < 300, 1 << a | 1 << b, 1 << c)  # a and b together, c alone
        guide.learn(hands, np.ones(len(hands)), 100_000)
        assert guide.on
        _, pairs, share = guide.weights()
        factors.append((pairs[0, 1], pairs[0, 2]))
        assert 0 < share < 1
    together, apart = np.array(factors).T
    assert np.all(together > 1) and np.all(apart < 1)
    assert np.all(np.diff(together) > 0) and np.all(np.diff(apart) < 0)  # trusted more as the worlds add up
    low, high = worlds_module.PAIR_CLIP
    assert apart[-1] >= low**worlds_module.PAIR_POWER and together[-1] <= high**worlds_module.PAIR_POWER
