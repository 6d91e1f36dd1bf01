"""The shipped panel of styles (issue 35): its members resolve by name, the first-three-draws style plays as named,
``expert:v1`` keeps the defaults from before the style switch, and ``panel`` stands for the list in ``oklasim tune``."""

from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from oklasim._kernels import engine_nb as E
from oklasim.cli import main
from oklasim.game.rules import Rules
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel, simulate, trace_rows
from oklasim.strategies.registry import resolve
from oklasim.studies.tune import TuneSpec
from oklasim.studies.tune_space import PANEL, expand_panel

DRAWS = (E.EV_TAKE_UPCARD, E.EV_DRAW_STOCK, E.EV_DRAW_PILE)  # each counts as an own draw (V_MY_DRAWS)
HANDS_PER_GAME = 40  # games to 25 points run well under this; a longer one would raise, not truncate


def knocks_by_own_draws(seats, rules, games, seed):
    """Every knock of seat 0 in whole games: (its own draws in the hand, its deadwood)."""
    traced = trace_rows(games * HANDS_PER_GAME)
    _, _, trace = run_kernel(kernel_rules(rules, False), resolve_all(seats, 2), seed, 0, games, traced)
    draws: Counter = Counter()
    knocks = []
    for game, hand, seat, event, _, deadwood in trace.tolist():
        if event in DRAWS:
            draws[game, hand, seat] += 1
        elif event == E.EV_KNOCK and seat == 0:
            knocks.append((draws[game, hand, seat], deadwood))
    return np.array(knocks)


def test_every_panel_member_resolves_and_is_listed():
    listing = CliRunner().invoke(main, ["strategies"]).output
    for name in PANEL:
        resolve(name)
        family, _, preset = name.partition(":")
        assert not preset or f"preset {preset}:" in listing
    assert "preset v1:" in listing and "preset early3_then_gin:" in listing


def test_v1_is_expert_without_the_style_switch():
    """v1 keeps the defaults from before the switch: it differs from expert only in the style parameters, and with
    no showdown before a hand (independent hands) the two play every deal alike."""
    v1, expert = (dict(resolve(name).values) for name in ("expert:v1", "expert"))
    differ = {name for name in expert if v1[name] != expert[name]}
    assert differ and all(name.startswith(("holding_", "holder_")) for name in differ)
    assert v1["holder_above"] == 1  # never a holder
    assert resolve("v1").canonical() == resolve("expert:v1").canonical()  # its name is unique among presets
    rules = Rules.preset("eaai")
    hands = [simulate(rules, [name, "eaai"], hands=300, seed=4).hands for name in ("expert:v1", "expert")]
    assert hands[0].equals(hands[1])
    games = [simulate(rules, [name, "threshold:gin_only"], games=30, seed=4).hands for name in ("expert:v1", "expert")]
    assert not games[0].equals(games[1])  # in games a gin-seeker's showdowns switch it


@pytest.mark.parametrize("preset", ["seeds", "eaai"])
def test_early3_then_gin_knocks_only_in_its_first_three_draws_unless_gin(preset):
    # games to 25: many hands are played within 5 points of the target, where expert's finish_points would knock
    rules = Rules.preset(preset).replace(target_score=25)
    style, expert = ("expert:early3_then_gin", "greedy"), ("expert", "greedy")
    knocks = knocks_by_own_draws(style, rules, 800, seed=11)
    with_deadwood = knocks[knocks[:, 1] > 0]
    assert len(with_deadwood) > 50 and with_deadwood[:, 0].max() == 3  # knocks right up to its third draw
    assert (knocks[knocks[:, 0] > 3, 1] == 0).any()  # and goes on to win by gin
    others = knocks_by_own_draws(expert, rules, 800, seed=11)
    assert ((others[:, 0] > 3) & (others[:, 1] > 0)).any()  # where expert's defaults knock with deadwood


def test_panel_stands_for_the_list_wherever_opponents_are_named():
    assert expand_panel(["panel"]) == list(PANEL)
    assert expand_panel(["greedy", "panel"]) == ["greedy", *PANEL]
    spec = TuneSpec.create("threshold", ["simple", "panel"], params={"threshold": None})
    assert spec.panel == ("simple", *PANEL)
    with pytest.raises(ValueError, match="named twice"):
        TuneSpec.create("threshold", ["panel", "expert"])


def test_tune_help_shows_the_panel():
    output = CliRunner().invoke(main, ["tune", "--help"]).output
    assert "'panel' stands for the shipped panel" in " ".join(output.split())
    assert all(name in output.replace("\n", " ").replace(" ", "") for name in PANEL)
