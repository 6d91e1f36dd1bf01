"""search: expert's play, each knock searched over worlds that the opponent's latest turn weighs."""

from oklasim.analysis.match import match
from oklasim.game.rules import Rules
from oklasim.sim.engine import simulate

QUICK = "search(samples=32)"


def test_search_is_mc_with_expert_and_the_latest_turn_weighed():
    """The same machinery as mc: with prior 2 and expert in both seats the games are the same, decision by decision;
    the played prior (1) plays other games: the weights change the choices."""
    searched = simulate(strategies=[QUICK, "expert"], hands=300, seed=6).hands
    same = simulate(strategies=["mc(samples=32,continuation=2,opponent=2,prior=2)", "expert"], hands=300, seed=6).hands
    played = simulate(strategies=["mc(samples=32,continuation=2,opponent=2,prior=1)", "expert"], hands=300,
                      seed=6).hands
    assert searched.equals(same)
    assert not searched.equals(played)


def test_search_replays_from_its_seed_whatever_the_workers():
    one, two = (match(QUICK, "expert", Rules.preset("eaai"), hands=100, seed=9, workers=w) for w in (1, 2))
    assert one.as_dict() == two.as_dict()


def test_search_decides_in_the_agent_as_in_the_engine():
    """The agent's seat (and so the EAAI referee through interop/eaai) gets the same answers as the engine's."""
    from test_agent import follow

    assert follow(Rules.preset("eaai"), ["search:search_fast", "expert"], seed=12, games=6) > 50
