"""Surface defects of issue 48 (third group): what the advisor, tune, tournaments, strategy names and the Python
API accept and print must be what the user meant, and every refusal one line naming what the user typed."""

import re
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

import oklasim
from oklasim.advise import advise
from oklasim.advise.request import Request
from oklasim.advise.worlds import worlds_for
from oklasim.analysis.match import TournamentResult, match_text, tournament_text
from oklasim.analysis.stats import Estimate
from oklasim.cli import main
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.strategies.registry import families, resolve
from oklasim.studies.tune import TuneSpec, open_study, tune

# The README's example: 11 cards after a stock draw, 28 cards left in the stock.
README = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s", "upcard": "6c", "pile": "6c 8d 4s", "stock": 28}
README_ARGS = [README["hand"], "--upcard", "6c", "--pile", "6c 8d 4s", "--stock", "28"]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def refused(result, *words):
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
    for word in words:
        assert word in result.output, result.output


# -- 3: the opponent's stock draws have a bound -----------------------------------------------------------


def test_opponent_draws_beyond_the_stock_drawn_are_refused_with_the_bound():
    """31 cards in the stock after the deal, 28 left, one of the 3 drawn by you this turn: at most 2."""
    refused(invoke("advise", *README_ARGS, "--opponent-draws", 99), "--opponent-draws 99", "at most 2 cards",
            "3 having been drawn so far (31 after the deal, 28 left), one of them by you this turn")
    with pytest.raises(OklasimError, match=r"^opponent_draws 3: the opponent can have drawn at most 2 cards"):
        worlds_for(Request(**README, opponent_draws=3))
    assert worlds_for(Request(**README, opponent_draws=2)).position.stock == 28  # the bound itself is fine
    with pytest.raises(OklasimError, match="with the uniform prior the worlds do not use it"):
        worlds_for(Request(**README, opponent_draws=1, prior="uniform"))


def test_opponent_draws_beside_a_history_are_refused():
    with pytest.raises(OklasimError, match=r"opponent_draws: the history \(history\) says how the opponent drew"):
        worlds_for(Request("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", upcard="9c", opponent_draws=1,
                           history="opp pass; me pass; opp stock 8d; me stock 4s; opp stock Qh; me stock"))


# -- 4: "vs best" is the difference of the printed values ---------------------------------------------------


def test_vs_best_is_the_difference_of_the_printed_points_for_every_row():
    """The README's example: the knock, dropped early by the race, printed +35.3 against the star's +38.5 but
    "vs best" -5.1, its paired difference over the few worlds it was played in, not corrected as its points were."""
    advice = advise(**README, max_seconds=None, seed=0)
    best = advice.recommendation
    assert best is not None and best.vs_best is None
    dropped = [c for c in advice.candidates if c.samples < best.samples]
    assert any(c.action == "knock" for c in dropped)  # the case of the report: an action dropped early
    for c in advice.candidates:
        if c is not best:
            assert c.vs_best.mean == pytest.approx(c.points.mean - best.points.mean, abs=1e-9), c.label
            assert c.vs_best.low < c.vs_best.mean < c.vs_best.high
    legend = [line for line in advice.lines() if line.strip().startswith("vs best:")]
    assert legend == [advice.versus_legend] and "minus the starred action's" in legend[0]
    assert "paired difference" in legend[0]
    out = advice.to_dict()["candidates"]
    assert all(o["vs_recommended"] is None or o["vs_recommended"]["mean"] == pytest.approx(
        o["points"]["mean"] - best.points.mean, abs=1e-3) for o in out)


# -- 5: tune tries the defaults first ------------------------------------------------------------------------


def tunable_families():
    return [name for name, lf in sorted(families().items()) if any(p.low < p.high for p in lf.family.params)]


@pytest.mark.parametrize("family", tunable_families())
def test_the_first_trial_of_every_shipped_family_is_its_defaults(family):
    spec = TuneSpec.create(family, ["simple"])
    trial = open_study(spec, None).ask()
    proposed = {d.name: d.suggest(trial) for d in spec.dimensions}  # a choice by its option's name
    defaults, played = dict(spec.baseline().values), dict(spec.strategy(proposed).values)
    assert {name: played[name] for name in proposed} == {name: defaults[name] for name in proposed}


def test_a_default_outside_the_declared_search_range_is_searched_too():
    """threshold's gin_after_draws: searched over 0..20 own draws (beyond them every count plays alike) and its
    default 99, never, as the step after 20; the trial's value reads back as 99 in the result."""
    result = tune("threshold", "greedy", budget=1, hands_per_rung=20, rungs=1, held_out=20, workers=1)
    dimension = next(d for d in result.spec.dimensions if d.name == "gin_after_draws")
    assert (dimension.low, dimension.high, dimension.default) == (0, 20, 99)
    assert result.history[0]["params"] == {d.name: result.baseline_values[d.name] for d in result.spec.dimensions}
    assert result.values == result.baseline_values  # the one candidate, the defaults
    assert "0..20 or 99" in result.text()
    narrowed = TuneSpec.create("threshold", ["greedy"], params={"gin_after_draws": (0, 20)})
    assert [d.default for d in narrowed.dimensions] == [None]  # a range given is searched as given


# -- 6: the ranking of a tournament -------------------------------------------------------------------------


def test_entrants_of_one_record_are_ordered_by_their_matches_among_themselves():
    """The report: gin_only beats random by 77 points a hand and trails simple, greedy and asap head to head.
    With every match among those four undecided, their records tie; the average edge over the field would put
    gin_only first, its edge over the other three puts it last of them."""
    edges = {("gin_only", "random"): 77.2, ("simple", "random"): 53.6, ("greedy", "random"): 54.5,
             ("asap", "random"): 54.5, ("gin_only", "simple"): -0.6, ("gin_only", "greedy"): -0.13,
             ("gin_only", "asap"): -0.13, ("simple", "greedy"): 0.8, ("simple", "asap"): 0.8,
             ("greedy", "asap"): 0.0}
    matches = {pair: SimpleNamespace(diff_points_per_hand=Estimate(d, d - 1.0, d + 1.0, 100))
               for pair, d in edges.items()}
    result = TournamentResult(["random", "simple", "greedy", "asap", "gin_only"], matches)
    standings = result.ranking()
    assert [s.name for s in standings] == ["simple", "greedy", "asap", "gin_only", "random"]
    gin_only = standings[3]
    assert (gin_only.wins, gin_only.losses, gin_only.edge_place) == (1, 0, 1)  # first by the average edge alone
    assert gin_only.tied_edge.mean == pytest.approx((-0.6 - 0.13 - 0.13) / 3)
    assert standings[-1].tied_edge is None  # random: no other of its record
    text = tournament_text(result)
    assert "Copeland" in text and "of the same record" in text and "among tied" in text
    assert result.as_dict()["ranking"][0]["edge_among_tied"]["mean"] == pytest.approx((0.8 + 0.8 + 0.6) / 3)


# -- 10: parameters given twice, and names in full -----------------------------------------------------------


def test_a_parameter_given_twice_is_refused():
    with pytest.raises(OklasimError, match="knock_probability given more than once"):
        resolve("random(knock_probability=0.3,knock_probability=0.4)")
    refused(invoke("match", "random(knock_probability=0.3, knock_probability=0.4)", "simple", "--hands", 10),
            "knock_probability given more than once")


def test_match_and_tournament_tables_show_every_strategy_in_full():
    long_a, long_b = "random(knock_probability=0.3)", "threshold(threshold=3, late_stock=2.5)"
    side = {"points_per_hand": Estimate(0, -1, 1, 10), "hands_won": Estimate(0.5, 0.4, 0.6, 10), "games_won": None,
            "outcomes": {k: Estimate(0.1, 0, 0.2, 10) for k in ("knock", "gin", "undercut_suffered",
                                                                 "undercut_made")}}
    fake = SimpleNamespace(a=SimpleNamespace(name=long_a, **side), b=SimpleNamespace(name=long_b, **side),
                           rules={"players": 2}, deals=10, mode="hands", hands=20, seed=0,
                           diff_points_per_hand=Estimate(0, -1, 1, 10), variance_reduction=2.0,
                           void_share=Estimate(0, 0, 0.1, 10))
    rows = match_text(fake).splitlines()
    assert rows[2].startswith(long_a + " ") and rows[3].startswith(long_b + " ")
    matches = {(long_a, long_b): SimpleNamespace(diff_points_per_hand=Estimate(-60, -62, -58, 10))}
    text = tournament_text(TournamentResult([long_a, long_b], matches))
    header = text.splitlines()[1]
    assert long_a in header and long_b in header


# -- 12: the Python API takes rules by name, strategies as text, and whole counts ----------------------------


def test_the_api_takes_a_preset_name_wherever_it_takes_rules():
    assert oklasim.match("simple", "greedy", rules="pagat", hands=20).rules == Rules.preset("pagat").to_dict()
    assert oklasim.simulate("eaai", ["simple"], hands=5).rules == Rules.preset("eaai")
    assert oklasim.RunSpec.create("pagat", "simple,greedy", games=3).rules == Rules.preset("pagat").to_dict()
    assert TuneSpec.create("threshold", "greedy,simple", rules="eaai").rules == Rules.preset("eaai")
    with pytest.raises(OklasimError, match="rules: give Rules, a preset name .* not 3"):
        oklasim.match("simple", "greedy", rules=3, hands=10)


def test_the_api_reads_strategies_separated_by_commas():
    result = oklasim.simulate(Rules(), "simple,greedy", games=2, seed=1)
    assert [s.name for s in result.strategies] == ["simple", "greedy"]
    assert oklasim.tournament("simple,greedy", hands=10).names == ["simple", "greedy"]
    assert TuneSpec.create("threshold", "greedy,simple").panel == ("greedy", "simple")


@pytest.mark.parametrize("count", [1.5, True, 0, -3, "10"])
def test_the_api_refuses_counts_that_are_not_positive_whole_numbers(count):
    message = re.escape(f"must be a whole number of at least 1, got {count!r}")
    for play in (lambda: oklasim.simulate(Rules(), ["simple"], games=count),
                 lambda: oklasim.match("simple", "greedy", hands=count)):
        with pytest.raises(OklasimError, match=message):
            play()


# -- 14: advise errors name what the user typed --------------------------------------------------------------


@pytest.mark.parametrize("extra, cli_words, api_field, api_words", [
    (["--seconds", "0"], "--seconds 0.0: a positive number of seconds", {"max_seconds": 0},
     "max_seconds 0: a positive number of seconds"),
    (["--samples", "0"], "--samples 0: a whole number of worlds", {"max_samples": 0}, "max_samples 0:"),
    (["--opponent", "greddy"], "--opponent: unknown strategy 'greddy'", {"opponent": "greddy"},
     "opponent: unknown strategy 'greddy'"),
    (["--objective", "win"], "needs the scores: give --scores, or --objective points", {"objective": "win"},
     "needs the scores: give scores, or objective points"),
    (["--limit", "3"], "(--limit)", {"limit": 3}, "not 3 (limit)"),
])
def test_advise_errors_name_the_flag_on_the_command_line_and_the_argument_in_python(extra, cli_words, api_field,
                                                                                     api_words):
    refused(invoke("advise", *README_ARGS, *extra), cli_words)
    with pytest.raises(OklasimError) as info:
        advise(**README, **api_field)
    assert api_words in str(info.value)


def test_the_card_you_took_is_asked_for_by_its_flag():
    """11 cards and a full stock: the 11th came from the pile, and it must be named."""
    hand = README["hand"]
    refused(invoke("advise", hand, "--upcard", "6c"), "name it (--took)")
    with pytest.raises(OklasimError, match=r"name it \(took\)$"):
        advise(hand, upcard="6c")


def test_a_field_from_the_file_is_named_as_in_the_file(tmp_path):
    position = tmp_path / "pos.toml"
    position.write_text('hand = "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s"\nupcard = "6c"\npile = "6c 8d 4s"\n'
                        "max_seconds = 0\n")
    refused(invoke("advise", "--file", position), f"max_seconds (in {position}) 0: a positive number of seconds")
    refused(invoke("advise", "--file", position, "--seconds", "-1"), "--seconds -1.0")  # the flag overrides


def test_history_errors_name_the_history():
    refused(invoke("advise", README["hand"], "--upcard", "6c", "--history", "opp stock"), "--history turn 1")


# -- 16: an unknown strategy ----------------------------------------------------------------------------------


def test_an_unknown_strategy_suggests_the_closest_names_in_one_short_line():
    with pytest.raises(OklasimError) as info:
        resolve("greddy")
    message = str(info.value)
    assert message.startswith("unknown strategy 'greddy': did you mean 'greedy'")
    assert "`oklasim strategies` lists them all" in message and "threshold:knock_le_1" not in message
    with pytest.raises(OklasimError, match=r"^unknown strategy 'gin_onyl': did you mean 'gin_only'\?"):
        resolve("gin_onyl")
    with pytest.raises(OklasimError, match=r"^unknown strategy 'xyzzy' \(`oklasim strategies` lists them all\)$"):
        resolve("xyzzy")
    refused(invoke("match", "greddy", "simple", "--hands", 10), "did you mean 'greedy'")
