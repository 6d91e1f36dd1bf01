"""Russian roulette on the history weights: unbiased, reproducible whatever the workers, within the budgets."""

import numpy as np
import pytest
from advisor_clock import seconds_per_world

from oklasim._kernels import advise_history_nb as H
from oklasim._kernels import advise_worlds_nb as W
from oklasim._kernels import layout as L
from oklasim._kernels.rng_nb import stream_state_nb
from oklasim.advise import advise, rollouts
from oklasim.advise.request import Request
from oklasim.advise.worlds import worlds_for
from oklasim.strategies.registry import resolve

# Seat 0 after its draw; the opponent (seat 1) drew from the stock four times.
POSITION = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 9h Ks", "upcard": "9c",
            "history": "opp pass; me pass; opp stock Kd; me stock 4s; opp stock Qs; me stock 6s; opp stock Jd; "
                       "me stock 9s; opp stock 9d; me stock 8c; opp stock 8s; me stock"}


def sampled_hands(worlds, count: int) -> list[int]:
    """The opponent's hands of the first ``count`` worlds, as the advisor samples them."""
    view = worlds.view
    unseen, known, need = np.empty(52, dtype=np.int64), np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
    n = W.list_unseen_nb(view, unseen, known, need)
    scratch, stock = np.empty(52, dtype=np.int64), np.empty(52, dtype=np.int64)
    prior = worlds.prior
    return [int(W.sample_world_nb(1, s, unseen, n, known[1], need[1], prior[0], prior[1], prior[2],
                                  view[L.V_KNOCK_LIMIT], scratch, stock)) for s in range(count)]


def replayed_weights(worlds, hand: int, cutoff: float, draws: int, traits: int) -> np.ndarray:
    """``draws`` weights of one world by simple, each with its own coins (the cards drawn, the roulette)."""
    opponent = resolve("simple")
    turns, snapshots, (slip, _) = worlds.evidence
    return np.array([H.world_weight_nb(opponent.decide, opponent.vector(), turns, snapshots, hand, slip, slip,
                                       stream_state_nb(7, i), cutoff, traits) for i in range(draws)])


@pytest.mark.parametrize("traits", [0, H.TRAIT_DRAWN_BLIND])
def test_the_roulette_keeps_every_worlds_expected_weight(traits):
    """Averaged over its coins, a world's roulette weight is its exact weight (itself averaged over the replayed
    draws), while most light worlds are dropped and every survivor weighs at least the cutoff; also when the
    knock and discard answers are asked once per turn, their roulette before the draw choice's."""
    worlds = worlds_for(Request(**POSITION, opponent="simple", slip=0.05, window=0))

    def weights(hand: int, cutoff: float, draws: int) -> np.ndarray:
        return replayed_weights(worlds, hand, cutoff, draws, traits)

    hands = [hand for hand in sampled_hands(worlds, 40) if weights(hand, 0.0, 1)[0] > 0][:6]
    assert len(hands) == 6
    for hand in hands:
        full = weights(hand, 0.0, 3000)
        cutoff = 4 * full.mean()  # about 1 in 4 survives, the others weigh 0
        rolled = weights(hand, cutoff, 3000)
        assert np.all((rolled == 0) | (rolled >= cutoff)) and 0.5 < np.mean(rolled == 0) < 0.95
        error = np.sqrt(rolled.var() / len(rolled) + full.var() / len(full))
        assert abs(rolled.mean() - full.mean()) <= 4.5 * error, hand


@pytest.mark.parametrize("traits", [0, H.TRAIT_DRAWN_BLIND])
def test_asking_a_third_of_the_cards_drawn_keeps_every_worlds_expected_weight(traits):
    """Above a cutoff of 0 the latest turn's draw choice is asked for a third of the cards it may have drawn only:
    with the cutoff below every weight (no roulette), a world's weight then varies more with its coins, never
    above three times the exact turn's, and averaged over them is still its exact weight."""
    worlds = worlds_for(Request(**POSITION, opponent="simple", slip=0.05, window=0))
    assert worlds.evidence[0][-1, H.T_KIND] == H.TURN_STOCK
    changed = spread = 0
    for hand in [hand for hand in sampled_hands(worlds, 40) if replayed_weights(worlds, hand, 0.0, 1, traits)[0]][:6]:
        exact, third = (replayed_weights(worlds, hand, cutoff, 3000, traits) for cutoff in (0.0, 1e-300))
        assert np.all(third > 0) and third.max() <= H.LATEST_ASKED_ONE_IN * exact.max() * (1 + 1e-9)
        error = np.sqrt(third.var() / len(third) + exact.var() / len(exact))
        assert abs(third.mean() - exact.mean()) <= 4.5 * error + 1e-9 * exact.mean(), hand
        changed += not np.array_equal(third, exact)  # the same coins: only the cards asked can tell them apart
        spread += third.std() > 1.2 * exact.std()
    assert changed >= 4 and spread >= 1  # the cards asked were at work


def test_roulette_agrees_with_full_weighting():
    """Over seeds, the advice with roulette and with every world played agree within their intervals, and the
    roulette plays far fewer worlds for the same worlds sampled."""
    request = POSITION | {"opponent": "greedy", "precision": None, "race": False, "max_samples": 4096,
                          "max_seconds": None, "discards": 1}
    full_share, gaps = rollouts.ROULETTE_SHARE, []
    for seed in range(3):
        rollouts.ROULETTE_SHARE = 0.0
        try:
            full = advise(**request, seed=seed)
        finally:
            rollouts.ROULETTE_SHARE = full_share
        fast = advise(**request, seed=seed)
        assert full.samples == fast.samples == 4096
        for a, b in zip(full.candidates, fast.candidates):
            assert a.label == b.label
            gaps.append((a.points.mean - b.points.mean) / np.hypot(a.points.half_width, b.points.half_width))
            if b.action == "continue":  # rolled out: played in a share of the worlds only
                assert b.samples < 0.5 * a.samples
    assert max(abs(g) for g in gaps) < 1.5  # 95% half-widths: a gap of 1.5 is about 4 standard errors


def test_same_seed_same_answer_whatever_the_workers_with_roulette():
    runs = [advise(**POSITION, opponent="greedy", seed=4, workers=w, max_samples=3000, max_seconds=None,
                   precision=None).to_dict() for w in (1, 2, 3)]
    for d in runs:
        d.pop("seconds"), d.pop("setup_seconds"), d.pop("workers")
    assert runs[0] == runs[1] == runs[2]
    played = [c["samples"] for c in runs[0]["candidates"] if c["action"] == "continue"]
    assert played and max(played) < runs[0]["samples"]  # the roulette was at work


def test_the_sample_budget_holds_with_roulette():
    advice = advise(**POSITION, opponent="expert", seed=2, precision=0.01, max_samples=1000, max_seconds=None)
    assert advice.stop_reason == "samples" and advice.samples == 1000


def test_the_time_budget_holds_with_roulette(monkeypatch):
    """Worlds of 10 s each on the advisor's clock (played or not), 3000 s to spend: 300 worlds at most."""
    seconds_per_world(monkeypatch, 10.0)
    advice = advise(**POSITION, opponent="expert", seed=2, precision=0.01, max_samples=10**7, max_seconds=3000,
                    workers=1)
    assert advice.stop_reason == "time" and rollouts.FIRST_BATCH < advice.samples <= 300
    assert advice.seconds <= 3000


def test_knock_and_discard_once_per_turn_weigh_as_once_per_card():
    """Exact weights (no roulette): asking a blind opponent's knock and discard once per turn gives the weight of
    asking them for every card it may have drawn."""
    opponent = resolve("simple")
    worlds = worlds_for(Request(**POSITION, opponent="simple", slip=0.05, window=0))
    turns, snapshots, (slip, _) = worlds.evidence
    assert (turns[:, H.T_KIND] == H.TURN_STOCK).sum() >= 4
    weighed = 0
    for hand in sampled_hands(worlds, 60):
        each, once = (H.world_weight_nb(opponent.decide, opponent.vector(), turns, snapshots, hand, slip, slip,
                                        stream_state_nb(3, hand), 0.0, traits)
                      for traits in (0, H.TRAIT_DRAWN_BLIND))
        assert once == pytest.approx(each, rel=1e-12, abs=1e-300)
        weighed += each > slip**3
    assert weighed > 5


def test_a_declined_knock_weighs_the_knock_slip():
    """simple knocks whenever it can: every turn a world has it decline a knock counts the knock slip rather than the
    slip, so changing the knock slip alone scales each world's exact weight by a whole power of the ratio (the draw
    choices, asked apart from the knock, pick the same cards), and some worlds declined."""
    opponent = resolve("simple")
    worlds = worlds_for(Request(**POSITION, opponent="simple", slip=0.05, window=0))
    turns, snapshots, (slip, knock_slip) = worlds.evidence
    assert knock_slip == slip  # the advisor strays alike everywhere
    declined = 0
    for hand in sampled_hands(worlds, 3000):
        plain, soft = (H.world_weight_nb(opponent.decide, opponent.vector(), turns, snapshots, hand, slip, knock_slip,
                                         stream_state_nb(3, hand), 0.0, H.TRAIT_DRAWN_BLIND)
                       for knock_slip in (slip, 0.4))
        if plain == 0.0:
            assert soft == 0.0
            continue
        power = np.log(soft / plain) / np.log(0.4 / slip)
        assert power == pytest.approx(round(power), abs=1e-9) and round(power) >= 0
        declined += round(power) > 0
    assert declined >= 5


def test_a_confirmed_discard_weighs_as_the_discard_asked():
    """Exact weights (no roulette): asking expert whether it would throw the card it threw (D_CONFIRM_DISCARD)
    gives the weight of asking which card it would throw, on the same worlds."""
    opponent = resolve("expert")
    assert opponent.confirms_discard
    worlds = worlds_for(Request(**POSITION, opponent="expert", slip=0.05, window=0))
    turns, snapshots, (slip, _) = worlds.evidence
    weighed = 0
    for hand in sampled_hands(worlds, 1000):
        asked, confirmed = (H.world_weight_nb(opponent.decide, opponent.vector(), turns, snapshots, hand, slip, slip,
                                              stream_state_nb(3, hand), 0.0, H.TRAIT_DRAWN_BLIND | confirms)
                            for confirms in (0, H.TRAIT_CONFIRMS_DISCARD))
        assert confirmed == asked
        weighed += asked > slip**3
    assert weighed > 5
