"""No advice without evidence: the sampling goes on for it while there is time, and without it no recommendation;
the star and the "vs best" column agree; bad numbers and seats are refused in one line."""

import json
import math

import pytest
from advisor_clock import fake_clock, seconds_per_world
from cli_runner import advise_cli as cli

from oklasim.advise import advise, read_position
from oklasim.advise.rollouts import RECOMMEND_ESS
from oklasim.game.cards import parse_card

# Seat 0 after its draw, the opponent having drawn from the stock four times: few worlds explain its play.
HISTORY = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 9h Ks", "upcard": "9c",
           "history": "opp pass; me pass; opp stock Kd; me stock 4s; opp stock Qs; me stock 6s; opp stock Jd; "
                      "me stock 9s; opp stock 9d; me stock 8c; opp stock 8s; me stock"}
FAST = {"opponent": "greedy", "me": "simple"}  # quick to play out: the tests are about the stopping
SITUATION = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", "upcard": "9c", "pile": "9c 8d 4s Qh"}


def finite(estimate) -> bool:
    return math.isfinite(estimate.low) and math.isfinite(estimate.high)


# -- enough evidence, or none ----------------------------------------------------------------------


@pytest.mark.parametrize("budget", [1, 64])
def test_the_sample_budget_is_honoured_even_short_of_evidence(monkeypatch, budget):
    """The sample budget is a cap, whatever time is left (the advisor's clock stands still): at most that many
    worlds, too few effective ones, and no recommendation."""
    fake_clock(monkeypatch)
    advice = advise(**HISTORY, **FAST, seed=3, max_samples=budget, max_seconds=3600, precision=None)
    assert advice.stop_reason == "samples" and advice.samples == budget and advice.ess < RECOMMEND_ESS
    assert advice.recommendation is None and advice.no_recommendation


def test_enough_worlds_give_a_recommendation_whatever_the_workers(monkeypatch):
    """Worlds enough for RECOMMEND_ESS effective ones: a recommendation with finite intervals, at batches the seed
    fixes (the same answer whatever the workers). The advisor's clock stands still: only the samples stop it."""
    fake_clock(monkeypatch)
    runs = [advise(**HISTORY, **FAST, seed=3, max_samples=20_000, max_seconds=3600, precision=None, workers=w)
            for w in (1, 2)]
    advice = runs[0]
    assert advice.ess >= RECOMMEND_ESS
    assert advice.recommendation is not None and advice.no_recommendation is None
    assert all(finite(c.points) for c in advice.candidates)
    assert all(finite(c.vs_best) for c in advice.candidates if c.vs_best is not None)
    dicts = [r.to_dict() for r in runs]
    for d in dicts:
        d.pop("seconds"), d.pop("setup_seconds"), d.pop("workers")
    assert dicts[0] == dicts[1]


@pytest.mark.slow  # millions of worlds: few explain the history
def test_the_readme_history_example_reaches_the_evidence_it_needs(monkeypatch):
    """The README's history against a gin-holder: few worlds explain its play, yet the default time budget reaches
    the effective sample a recommendation needs, with finite intervals, at a modest speed of one worker (300,000
    worlds a second, as the advisor's clock is told: not the speed of the machine running the test)."""
    seconds_per_world(monkeypatch, 1 / 300_000)
    advice = advise("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", upcard="9c", opponent="threshold:gin_only", plan="gin",
                    history="opp pass; me pass; opp stock 8d; me stock 4s; opp stock Qh; me stock", seed=1, workers=1)
    assert advice.ess >= RECOMMEND_ESS >= 200 and advice.recommendation is not None
    assert all(finite(c.points) for c in advice.candidates)


def test_too_little_evidence_gives_no_recommendation():
    """Without a time budget the sample budget binds: 64 worlds, too few effective ones, and no recommendation."""
    advice = advise(**HISTORY, **FAST, seed=3, max_samples=64, max_seconds=None)
    assert advice.stop_reason == "samples" and advice.samples == 64 and advice.ess < RECOMMEND_ESS
    assert advice.recommendation is None
    assert f"below the minimum {RECOMMEND_ESS}" in advice.no_recommendation and "--samples" in advice.no_recommendation
    assert all(c.status != "recommended" for c in advice.candidates)
    assert sum(c.status == "leading" for c in advice.candidates) == 1
    lines = advice.lines()
    assert lines[-1] == f"no recommendation: {advice.no_recommendation}"
    assert not any(line.startswith(("*", "recommendation:")) for line in lines)
    out = advice.to_dict()
    assert out["recommendation"] is None and out["no_recommendation"] == advice.no_recommendation
    json.dumps(out)  # infinite intervals and all


def test_the_cli_says_why_it_gives_no_recommendation(monkeypatch):
    """A time budget too short for the evidence (a second passes at each look at the advisor's clock): one line says
    so, exit 0, no star and no recommendation."""
    fake_clock(monkeypatch, tick=1.0)
    result = cli(HISTORY["hand"], "--upcard", "9c", "--history", HISTORY["history"], "--opponent", "greedy",
                 "--me", "simple", "--seconds", "0.001", "--samples", "64")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-1].startswith("no recommendation: effective sample") and "--seconds" in lines[-1]
    assert not any(line.startswith(("*", "recommendation:")) for line in lines)
    as_json = json.loads(cli(HISTORY["hand"], "--upcard", "9c", "--history", HISTORY["history"], "--opponent",
                             "greedy", "--me", "simple", "--seconds", "0.001", "--samples", "64", "--json").output)
    assert as_json["recommendation"] is None and as_json["no_recommendation"].startswith("effective sample")


def test_the_effective_sample_is_explained_in_one_line():
    advice = advise(**SITUATION, **FAST, seed=1, max_samples=512, max_seconds=None)
    line = next(line for line in advice.lines() if line.startswith("evidence"))
    assert f"effective sample {int(advice.ess):,} of {advice.samples:,} worlds drawn" in line
    assert "equally weighted worlds" in line and f"a recommendation needs {RECOMMEND_ESS}" in line
    assert advice.to_dict()["worlds"]["evidence"] in line


def test_one_possible_action_needs_no_evidence():
    """No knock, one discard weighed: the one action is the recommendation, whatever the worlds sampled."""
    advice = advise("2h 5s 8d Jc Kh 3c 6d 9s Qh 4c 7h", upcard="9c", pile="9c Td", **FAST, seed=1, discards=1,
                    max_samples=8, max_seconds=None)
    assert len(advice.candidates) == 1 and advice.ess < RECOMMEND_ESS
    assert advice.recommendation is not None and advice.no_recommendation is None


# -- the star and the "vs best" column -------------------------------------------------------------


@pytest.mark.parametrize("request_", [
    SITUATION | {"seed": 1, "max_samples": 4096, "max_seconds": None},
    HISTORY | {"seed": 1, "max_samples": 20_000, "max_seconds": None},
], ids=["as played", "history"])
def test_the_star_has_the_best_value_and_no_row_beats_it(request_):
    """The values and "vs best" come from the same paired estimates: an action dropped early is placed by how far
    it was behind the leader in the worlds both were played in, never above the starred one."""
    advice = advise(**request_, **FAST)
    best = advice.recommendation
    assert best is not None and best.vs_best is None
    others = [c for c in advice.candidates if c is not best]
    assert any(c.status == "beaten" for c in others)  # the race dropped some: their worlds are fewer
    for c in others:
        assert c.points.mean <= best.points.mean and c.vs_best.mean <= 0
        if c.status == "open":  # played in the same worlds: the values differ by exactly the paired difference
            assert c.points.mean == pytest.approx(best.points.mean + c.vs_best.mean)
    assert max(advice.candidates, key=lambda c: c.points.mean) is best


# -- bad input in one line -------------------------------------------------------------------------


@pytest.mark.parametrize("fields, message", [
    ({"max_seconds": 1e10}, "at most 3600"),
    ({"max_seconds": math.inf}, "a positive number of seconds"),
    ({"max_samples": 10**12}, "at most 1,000,000,000"),
    ({"dealer": "left"}, "with 2 players 'me' or 'opponent'"),
    ({"dealer": "across"}, "with 2 players 'me' or 'opponent'"),
])
def test_the_api_refuses_them_too(fields, message):
    with pytest.raises(ValueError, match=message) as info:
        advise(**SITUATION, **fields)
    assert "\n" not in str(info.value)


def test_the_dealer_of_three_players_may_be_left_or_right():
    hand, pile = "As 2s 3s 4s 7d 7c 7h Kc", "9c Ts"
    assert read_position(hand, "9c", pile=pile, players=3, dealer="left").dealer == 1
    assert read_position(hand, "9c", pile=pile, players=3, dealer="right").dealer == 2


def test_a_confidence_next_to_one_is_no_error():
    """The separation test's tail is taken as such: one minus it would round to 1 (an error in inv_cdf)."""
    advice = advise(**SITUATION, **FAST, seed=2, confidence=1 - 1e-15, max_samples=256, max_seconds=None)
    assert advice.samples == 256


# -- what the opponent took ------------------------------------------------------------------------


def test_a_card_the_opponent_took_and_threw_back_is_said():
    """The opponent may take a card and throw it back later (onto the pile, where you may take it): it then counts
    as a draw it made but is no longer in its hand, and the output says so rather than dropping it silently."""
    for hand, pile in [("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 3s", "9c 8d 4s"), ("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 8d", "9c 4s")]:
        advice = advise(hand, upcard="9c", pile=pile, opponent_took="8d 6c", **FAST, seed=1, max_samples=256,
                        max_seconds=None)
        assert advice.position.opponent_known == 1 << parse_card("6c")  # 8d is on the pile, or in my hand
        assert "opponent holds 6c and 9 unseen cards (of" in advice.lines()[2]
        assert "took 8d and threw it back" in advice.lines()[2]
