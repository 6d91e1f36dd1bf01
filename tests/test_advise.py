"""oklasim advise: known answers, the showdown against the engine, reproducibility, intervals, input checks, CLI."""

import json
from dataclasses import replace

import numpy as np
import pytest
from advisor_clock import batches_held_until_stopped, fake_clock, seconds_per_world
from click.testing import CliRunner
from cli_runner import advise_cli as cli

from oklasim._kernels import advise_worlds_nb as W
from oklasim.advise import advise, estimated_opponent_draws, load_request, read_position, world_prior
from oklasim.advise.rollouts import FIRST_BATCH
from oklasim.cli.advise import advise_command
from oklasim.game import melds
from oklasim.game.cards import format_card, format_hand, mask_of, parse_card, parse_cards, parse_hand
from oklasim.game.rules import Rules
from oklasim.sim.engine import simulate

QUICK = {"max_samples": 8192, "max_seconds": None}


def others(*texts, skip=()):
    """The cards in none of ``texts``, in index order."""
    used = mask_of(c for t in texts for c in parse_cards(t)) | mask_of(skip)
    return [c for c in range(52) if not used >> c & 1]


def by_label(advice):
    return {c.label: c for c in advice.candidates}


# -- known answers -------------------------------------------------------------------------------


def test_gin_available_goes_gin():
    advice = advise("As 2s 3s 4s 7d 7c 7h 9h Th Jh Kc", upcard="6c", pile="6c 5d Qs", seed=1, precision=None, **QUICK)
    rec = advice.recommendation
    assert (rec.action, rec.discard, rec.deadwood) == ("knock", "Kc", 0)
    assert rec.undercut.mean == 0 and rec.hand_outcomes["i_score"] == pytest.approx(1)  # weighted worlds: rounding
    assert rec.points.low > 25  # the gin bonus and then some
    assert advice.stop_reason == "separated"
    assert advice.to_dict()["recommendation"]["action"] == "knock"


def test_a_certain_undercut_is_declined():
    """Every opponent card is known and lays off to 2 against my 5: knocking loses 13; playing on hits the wall."""
    mine, theirs = "3s 4s 5s 9c 9d 9h Jh Qh Kh 5c Kc", "2s 6s 7s 9s Th Ac Ad Ah 2c 3c"
    rest = others(mine, theirs, "5d")
    pile = [parse_card("5d")] + rest[:-2]  # two cards left in the stock: any discard ends the hand void
    advice = advise(mine, upcard="5d", pile=pile, opponent_took=theirs, seed=2, **QUICK)
    knock = by_label(advice)["knock, discarding Kc"]
    assert knock.points.mean == -13 and knock.undercut.mean == 1 and knock.status == "beaten"
    assert advice.recommendation.action == "continue" and advice.recommendation.points.mean == 0
    assert advice.lines()[-1].startswith("recommendation: DON'T KNOCK")


def test_an_ace_upcard_with_deadwood_one_offers_no_knock():
    hand = "2h 3h 4h 7s 7d 7h Jc Qc Kc As 9d"  # deadwood 1 after discarding 9d
    advice = advise(hand, upcard="Ad", pile="Ad 8c", seed=3, **QUICK)
    assert advice.position.knock_limit == 0
    assert all(c.action == "continue" for c in advice.candidates)
    one = advise(hand, upcard="Ad", pile="Ad 8c", rules=Rules(ace_upcard="one"), seed=3, **QUICK)
    assert [c.discard for c in one.candidates if c.action == "knock"] == ["9d"]


@pytest.mark.parametrize(
    "knocker, extra, defender, upcard, points, arrangement",
    [
        # RULES.md §10 example 1: +15, nothing to lay off.
        ("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "Ks", "4c 5c 6c Qs Qd Qh As 2s 8d 9h", "9c", 15, None),
        # Example 8: laid as three sets the knocker wins 2; as three runs it is undercut.
        ("5s 5c 5d 6s 6c 6d 7s 7c 7d As", "Kh", "3s 4s 4c 4d 5h 6h 7h 8s 8c 8d", "2h", 2, "5s 5c 5d"),
    ],
)
def test_the_showdown_is_the_engines(knocker, extra, defender, upcard, points, arrangement):
    """With every opponent card known, the knock's value is the rules' result, in the best arrangement."""
    advice = advise(f"{knocker} {extra}", upcard=upcard, pile=upcard, opponent_took=defender, seed=4, **QUICK)
    knock = by_label(advice)[f"knock, discarding {extra}"]
    assert knock.points.mean == points and knock.points.half_width == 0
    if arrangement:
        assert format_hand(parse_hand(arrangement)) in knock.arrangement
        assert len(melds.optimal_arrangements(parse_hand(knocker))) > 1


def test_ten_cards_weigh_the_pile_top_and_the_stock():
    advice = advise("As 2s 3s 4s 7d 7c 7h 9h Th Kd", upcard="6c", pile="6c 5d 8h", seed=5, **QUICK)
    rec = advice.recommendation
    assert (rec.draw, rec.action, rec.discard, rec.deadwood) == ("pile", "knock", "Kd", 0)
    assert "draw from the stock" in by_label(advice)
    assert rec.label == "take the pile top, then knock, discarding Kd"


def test_the_first_turn_offer_weighs_passing():
    advice = advise("As 2s 3s 4s 7d 7c Qh 9h Th Kd", upcard="Jh", pile="Jh", seed=6, **QUICK)
    assert advice.position.moment == "offer" and advice.position.dealer == 1
    labels = by_label(advice)
    assert "pass the upcard" in labels and all(c.draw in ("upcard", "pass") for c in advice.candidates)
    second = advise("As 2s 3s 4s 7d 7c Qh 9h Th Kd", upcard="Jh", pile="Jh", passed=1, seed=6, **QUICK)
    assert second.position.dealer == 0  # the opponent, offered first, passed: I deal


def test_scores_add_the_chance_to_win():
    advice = advise("As 2s 3s 4s 7d 7c 7h 9h Th Jh Kc", upcard="6c", pile="6c 5d Qs", scores=(90, 40), seed=7,
                    max_samples=8192, max_seconds=None)
    assert advice.objective == "win"
    gin = advice.recommendation
    assert gin.deadwood == 0 and gin.win.mean == 1.0  # 90 + gin ends the game
    for c in advice.candidates:
        assert 0 <= c.win.low <= c.win.mean <= c.win.high <= 1


# -- reproducibility and precision -----------------------------------------------------------------

SITUATION = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", "upcard": "9c", "pile": "9c 8d 4s Qh"}


def test_same_seed_same_answer_whatever_the_workers():
    runs = [advise(**SITUATION, seed=11, workers=w, max_samples=3000, max_seconds=None) for w in (1, 2, 3)]
    dicts = [r.to_dict() for r in runs]
    for d in dicts:
        d.pop("seconds"), d.pop("setup_seconds"), d.pop("workers")
    assert dicts[0] == dicts[1] == dicts[2]
    other = advise(**SITUATION, seed=12, max_samples=3000, max_seconds=None).to_dict()
    assert other["candidates"] != dicts[0]["candidates"]


def test_the_interval_shrinks_with_samples():
    # At this confidence only actions tens of points behind are dropped: the leaders go to the budget.
    # Uniform worlds weigh 1 each: every world drawn is played, and the half-width goes as 1 / sqrt(worlds).
    small, large = (advise(**SITUATION, seed=13, max_samples=n, max_seconds=None, precision=None, confidence=1 - 1e-12,
                           prior="uniform") for n in (1024, 8192))
    assert small.stop_reason == large.stop_reason == "samples"
    kept = [(a, b) for a, b in zip(small.candidates, large.candidates) if b.samples == 8192]
    assert len(kept) >= 2 and all(a.samples == 1024 for a, _ in kept)
    for a, b in kept:
        assert 0 < b.points.half_width < 0.5 * a.points.half_width  # about sqrt(1/8)


def test_without_the_race_every_action_is_sampled_to_the_end():
    advice = advise(**SITUATION, seed=15, max_samples=3000, precision=None, max_seconds=None, race=False,
                    prior="uniform")  # every world drawn is played (none weighs 0)
    assert advice.stop_reason == "samples" and {c.samples for c in advice.candidates} == {3000}
    assert {c.status for c in advice.candidates} <= {"recommended", "open"}


def test_stops_on_precision_and_on_time():
    precise = advise(**SITUATION, seed=14, precision=2.0, max_seconds=None)
    assert precise.stop_reason in ("precision", "separated")
    assert precise.recommendation.points.half_width <= 2.0
    rushed = advise(**SITUATION, seed=14, precision=0.01, max_seconds=1e-9)
    assert rushed.stop_reason == "time" and 1 <= rushed.samples <= FIRST_BATCH  # world 0 is always finished


def test_the_time_before_sampling_is_said_apart():
    """A first run compiles the strategies before sampling: the output says so rather than blaming the sampling."""
    advice = advise(**SITUATION, **QUICK)
    assert 0 <= advice.setup_seconds <= advice.seconds
    assert advice.to_dict()["setup_seconds"] == round(advice.setup_seconds, 3)
    quick_setup = replace(advice, setup_seconds=0.5)
    assert "before it" not in "\n".join(quick_setup.lines())
    first_run = "\n".join(replace(advice, setup_seconds=75.0, seconds=77.0).lines())
    assert "worlds in 2.00 s" in first_run and "(and 75 s before it:" in first_run


# -- worlds ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("prior", ["uniform", "played"])
def test_worlds_respect_what_is_known(prior):
    position = read_position("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", upcard="9c", pile="9c 8d 4s Qh 2c",
                             opponent_took="8d 6c 6d")
    known = parse_hand("6c 6d")  # 8d went back to the pile
    assert position.opponent_known == known
    unseen = np.array([c for c in range(52) if position.unseen >> c & 1], dtype=np.int64)
    scratch, stock = np.empty(52, dtype=np.int64), np.empty(52, dtype=np.int64)
    draws, flags, last = world_prior(position, prior)
    hands = set()
    for s in range(200):
        hand = W.sample_world_nb(99, s, unseen, len(unseen), known, 8, draws, flags, last, 9, scratch, stock)
        hands.add(hand)
        assert hand.bit_count() == 10 and hand & known == known and hand & position.unseen == hand & ~known
        assert mask_of(stock[: position.stock]) | hand == position.unseen | known and position.stock == 26
    assert len(hands) > 150  # the played prior concentrates on hands that fit its last discard


def test_the_played_prior_drops_opponents_that_would_have_knocked():
    position = read_position("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", upcard="9c",
                             pile="9c 8d 4s Qh 2c Ts 3d 9h Kd 8s Td 6h Js 4d Jd".split())
    draws, flags, last = world_prior(position, "played")
    assert draws == estimated_opponent_draws(position) > 0 and last == parse_card("Jd")
    unseen = np.array([c for c in range(52) if position.unseen >> c & 1], dtype=np.int64)
    scratch, stock = np.empty(52, dtype=np.int64), np.empty(52, dtype=np.int64)
    could_knock = 0
    for s in range(300):
        hand = W.sample_world_nb(5, s, unseen, len(unseen), 0, 10, draws, flags, last, 9, scratch, stock)
        could_knock += melds.deadwood_after_discard([hand | 1 << last])[0] <= 9
    assert could_knock <= 3  # only when MAX_ATTEMPTS ran out


# -- bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc"}, "a hand of 9 cards fits no moment"),
        ({"pile": "9c 8d Ks"}, "Ks cannot be both in your hand and on the pile"),
        ({"stock": 30}, "a stock of 30 does not fit: .* the stock holds 27"),
        ({"limit": 8}, "upcard 9c sets a knock limit of 9, not 8"),
        ({"upcard": None, "limit": 1}, "a knock limit of 1 cannot happen"),
        ({"upcard": None}, "give the upcard that set the knock limit, or the limit"),
        ({"opponent_took": "As 2s 3s 5s 6s 8s 9s Ts Js Ac Ad"}, "the opponent would hold 11 known cards"),
        ({"scores": (100, 20)}, "the game ended at 100"),
        ({"took": "Ah"}, "you took Ah from the pile: it must be in your hand"),
        ({"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "took": "5d"}, "then hold 11 cards"),
        ({"pile": [format_card(c) for c in others("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks")][:30]},
         "leave 1 in the stock; a hand ends at 2"),
        ({"upcard": "Ks"}, None),  # the upcard may well be in my hand
        ({"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "pile": ""}, "the discard pile cannot be empty"),
        ({"rules": Rules(players=3)}, "a hand of 11 cards fits no moment"),  # three players hold 7 or 8
        ({"rules": Rules(spade_double=True), "upcard": None, "limit": 9}, "with spade doubling on, give the upcard"),
        ({"scores": (10, 20), "rules": "openspiel"}, "these rules play a single hand"),
        ({"dealer": "me", "hand": "As 2s 3s 4s 7d 7c Qh 9h Th Kd", "pile": "Jh", "upcard": "Jh"},
         "the opponent must be the dealer"),
        ({"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kx 5d Ks"}, "unknown card 'Kx'"),
    ],
)
def test_impossible_situations_are_one_line_errors(changes, message):
    args = dict(SITUATION) | changes
    if message is None:
        read_position(**args)
        return
    with pytest.raises(ValueError, match=message) as info:
        read_position(**args)
    assert "\n" not in str(info.value)


def test_bad_options():
    with pytest.raises(ValueError, match="the win objective needs the scores"):
        advise(**SITUATION, objective="win")
    with pytest.raises(ValueError, match="prior 'lucky'"):
        advise(**SITUATION, prior="lucky")
    with pytest.raises(ValueError, match="unknown strategy 'nobody'"):
        advise(**SITUATION, opponent="nobody")


# -- command line and file form ------------------------------------------------------------------------


def test_cli_human_json_and_errors():
    # Enough worlds for a recommendation: the sample budget is a cap, honoured even short of evidence.
    args = [SITUATION["hand"], "--upcard", "9c", "--pile", SITUATION["pile"], "--samples", "8192", "--seed", "1"]
    human = cli(*args)
    assert human.exit_code == 0, human.output
    assert "recommendation:" in human.output and "points (95% CI)" in human.output
    out = json.loads(cli(*args, "--json").output)
    assert set(out["recommendation"]) >= {"action", "discard"}
    assert out["recommendation"]["action"] in ("knock", "continue")
    assert len(out["candidates"]) == len(by_label(advise(**SITUATION, seed=1, max_samples=8192)))
    first = out["candidates"][0]
    assert {"points", "undercut_risk", "win_chance", "samples", "status"} <= set(first)
    assert first["points"]["low"] <= first["points"]["mean"] <= first["points"]["high"]
    bad = cli(SITUATION["hand"], "--upcard", "9c", "--pile", "9c Ks")
    assert bad.exit_code == 1 and bad.output == "Error: Ks cannot be both in your hand and on the pile (HAND, --pile)\n"
    assert cli("--upcard", "9c").output == "Error: give your hand (HAND, or hand in --file)\n"
    scored = cli(*args, "--scores", "40 65", "--json")
    assert scored.exit_code == 0 and json.loads(scored.output)["position"]["scores"] == [40, 65]
    bad_scores = cli(*args, "--scores", "40,6x")
    assert bad_scores.exit_code == 1 and bad_scores.output.startswith("Error: --scores '40,6x': whole numbers")


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_the_file_form(tmp_path, suffix):
    fields = {"hand": SITUATION["hand"], "upcard": "9c", "pile": "9c 8d 4s Qh".split(), "scores": [10, 20],
              "rules": {"preset": "seeds", "undercut_bonus": 25}, "opponent": "greedy", "max_samples": 1024}
    path = tmp_path / f"position{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(fields))
    else:
        path.write_text('hand = "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks"\nupcard = "9c"\npile = ["9c", "8d", "4s", "Qh"]\n'
                        "scores = [10, 20]\nopponent = \"greedy\"\nmax_samples = 1024\n"
                        '[rules]\npreset = "seeds"\nundercut_bonus = 25\n')
    assert load_request(path) == fields
    result = cli("--file", str(path), "--json", "--seconds", "5")
    out = json.loads(result.output)
    assert out["strategies"]["opponent"] == "greedy" and out["position"]["scores"] == [10, 20]
    assert out["objective"] == "win" and out["candidates"][0]["win_chance"] is not None
    (tmp_path / "bad.toml").write_text('hand = "As"\nsurprise = 1\n')
    assert "unknown field(s) surprise" in cli("--file", str(tmp_path / "bad.toml")).output


# -- the mc strategy -----------------------------------------------------------------------------------


def test_mc_plays_legal_hands_and_uses_its_budget():
    result = simulate(strategies=["mc(samples=8)", "simple"], hands=60, seed=3)
    assert result.hands.height == 60
    three = simulate(Rules(players=3), strategies=["mc", "simple", "greedy"], hands=20, seed=3)  # falls back
    assert three.hands.height == 20
    fiddly = Rules(big_gin=True, wall_rule="fiftieth_card", discard_taken_card=True, spade_double=True)
    searching = simulate(fiddly, strategies=["mc(samples=4, discards=2, draws=1)", "random"], hands=40, seed=4)
    assert searching.hands.height == 40


def test_one_request_gives_the_options_and_the_file_form(tmp_path):
    """Every field of Request is a command-line option and a file field, under the same name."""
    from oklasim.advise.request import FIELD_NAMES

    options = {p.name for p in advise_command.params}
    assert set(FIELD_NAMES) <= options
    path = tmp_path / "all.json"
    path.write_text(json.dumps({name: None for name in FIELD_NAMES}))
    assert set(load_request(path)) == set(FIELD_NAMES)


# -- worlds weighted by the opponent's play of the history ------------------------------------------

HISTORY = "opp pass; me pass; opp stock 8d; me stock 4s; opp stock Qh; me stock"


def test_the_history_fixes_the_position():
    from oklasim.advise.request import Request
    from oklasim.advise.worlds import worlds_for

    worlds = worlds_for(Request(hand=SITUATION["hand"], upcard="9c", history=HISTORY, window=0))
    p = worlds.position
    assert p.pile == tuple(parse_cards("9c 8d 4s Qh")) and p.stock == 27 and p.took is None
    assert p.dealer == 0 and p.opponent_known == 0 and p.moment == "after_draw"  # the opponent was offered first
    assert worlds.opponent_turns == 3 and worlds.evidence[0].shape == (3, 5)
    took = worlds_for(Request(hand="2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 8d", upcard="9c",
                              history="opp pass; me pass; opp stock 8d; me pile")).position
    assert took.took == parse_card("8d") and took.pile == (parse_card("9c"),)


def test_played_draws_caps_the_draws_that_shape_the_hand_before_the_window():
    from oklasim.advise.request import Request
    from oklasim.advise.worlds import worlds_for

    def worlds(**options):
        return worlds_for(Request(hand=SITUATION["hand"], upcard="9c", history=HISTORY, window=1, **options))

    # Before the window of 1: the opponent's pass and its stock draw (8d); the window replays its draw of Qh.
    assert worlds().prior[0] == 1 and worlds(played_draws=5).prior[0] == 1  # the default is above 1
    capped = worlds(played_draws=0)
    assert capped.prior[0] == 0 and capped.opponent_turns == 1


@pytest.mark.parametrize(
    "history, message",
    [
        ("opp stock 8d", "on the first offer write 'upcard' or 'pass'"),
        ("opp pass; opp pass", "turns alternate"),
        ("opp pass; me pass; opp stock", "name the card discarded"),
        ("opp pass; me pass; opp stock 9c", "9c cannot be discarded: it is elsewhere"),
        ("opp upcard 9c", "9c was just taken from the pile: it may not be discarded"),  # the referee's own reason
        ("opp pass; me pass; opp draws 8d", "write <me|opp> <pass|upcard|pile|stock>"),
        ("opp pass; me pass; opp stock Ks; me stock", "your hand holds a card the opponent has or threw"),
    ],
)
def test_impossible_histories_are_one_line_errors(history, message):
    with pytest.raises(ValueError, match=message) as info:
        advise(SITUATION["hand"], upcard="9c", history=history, **QUICK)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("scores", ["40,65", "40 65", (40, 65), ["40", "65"]])
def test_scores_may_be_text_or_numbers_with_or_without_a_history(scores):
    for given in ({"pile": SITUATION["pile"]}, {"history": HISTORY}):
        advice = advise(SITUATION["hand"], upcard="9c", scores=scores, **given, **QUICK)
        assert advice.position.scores == (40, 65)


@pytest.mark.parametrize("scores", ["40,x", (40.5, 65), (True, 3), "", 7])
def test_bad_scores_are_one_line_errors_with_or_without_a_history(scores):
    for given in ({"pile": SITUATION["pile"]}, {"history": HISTORY}):
        with pytest.raises(ValueError, match="scores .*whole numbers") as info:
            advise(SITUATION["hand"], upcard="9c", scores=scores, **given, **QUICK)
        assert "\n" not in str(info.value)


def test_scores_of_the_wrong_count_name_the_numbers_read():
    for given in ({"pile": SITUATION["pile"]}, {"history": HISTORY}):
        with pytest.raises(ValueError, match=r"scores: 2 non-negative numbers .*got \[40\]$"):
            advise(SITUATION["hand"], upcard="9c", scores="40", **given, **QUICK)


def test_a_given_pile_must_agree_with_the_history():
    with pytest.raises(ValueError, match="pile disagrees with the history"):
        advise(SITUATION["hand"], upcard="9c", history=HISTORY, pile="9c 8d", **QUICK)


@pytest.mark.parametrize("opponent", ["greedy", "threshold:gin_only", "expert"])
def test_the_replayed_views_are_the_engines(opponent):
    """On the views rebuilt from the history, with its real cards, the opponent's decide gives its real answers."""
    from oklasim._kernels import advise_history_nb as H
    from oklasim._kernels import engine_nb as E
    from oklasim.advise.history import parse_history, replay
    from oklasim.strategies.registry import history_traits
    from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel
    from oklasim.strategies.registry import resolve

    strategy = resolve(opponent)
    _, _, trace = run_kernel(kernel_rules(Rules(), True), resolve_all(["simple", opponent], 2), 9, 0, 12,
                             trace_capacity=12 * 120)
    checked = 0
    for game in np.unique(trace[:, 0]):
        hands, turns, truths, upcard = [0, 0], [], [], None
        for _, _, seat, event, a, _ in trace[trace[:, 0] == game].tolist():
            who = "me" if seat == 0 else "opp"
            if event == E.EV_DEAL:
                hands[seat] = a
            elif event == E.EV_UPCARD:
                upcard = a
            elif event == E.EV_PASS:
                turns.append(f"{who} pass")
            elif event in (E.EV_TAKE_UPCARD, E.EV_DRAW_PILE, E.EV_DRAW_STOCK):
                turns.append(f"{who} " + {E.EV_TAKE_UPCARD: "upcard", E.EV_DRAW_PILE: "pile"}.get(event, "stock"))
                hands[seat] |= 1 << a
                if seat == 1:
                    truths.append((hands[1], a))
            elif event == E.EV_DISCARD:
                hands[seat] &= ~(1 << a)
                turns[-1] += f" {format_card(a)}"
            elif event == E.EV_KNOCK:
                break
        if turns and turns[-1].split()[-1] in ("stock", "pile", "upcard"):
            turns.pop()  # the knock that ended the hand is no discard
        if turns and turns[-1].startswith("me"):
            turns.pop()
        if sum(t.startswith("opp") and "pass" not in t for t in turns) == 0:
            continue
        replayed = replay(parse_history("; ".join(turns)), upcard, Rules(), None, 0)
        drawing = [i for i, row in enumerate(replayed.turns) if row[H.T_KIND] != H.TURN_PASS]
        for i, (after, drawn) in zip(drawing, truths):
            for traits in {0, history_traits(strategy)}:  # its discard asked, and confirmed where it can be
                like = H.true_turn_likelihood_nb(strategy.decide, strategy.vector(), replayed.turns[i],
                                                 replayed.snapshots[i], after, drawn, 0.0, traits)
                assert like == 1.0, (turns, i, traits)
            checked += 1
    assert checked > 20


def test_a_gin_holder_makes_the_knock_riskier():
    """Not knocking says nothing about a gin-holder's hand: it may be close to gin, and undercut us."""
    hand = "2h 3h 4h 7s 7d 7h Jc Qc Kc 9h Ks"  # knocking with Ks leaves 9
    history = "opp pass; me pass; opp stock Kd; me stock 4s; opp stock Qs; me stock 6s; opp stock Jd; me stock 9s; " \
              "opp stock 9d; me stock 8c; opp stock 8s; me stock"
    risk = {}
    for opponent in ("simple", "threshold:gin_only"):
        advice = advise(hand, upcard="9c", history=history, opponent=opponent, seed=3, precision=None, race=False,
                        slip=0.01, max_samples=4096, max_seconds=None)
        assert advice.prior == "history" and advice.opponent_turns == 3 and 100 <= advice.ess <= advice.samples
        assert "weighted by how likely" in advice.lines()[3]
        risk[opponent] = advice.candidates[0].undercut.mean
    assert risk["threshold:gin_only"] > risk["simple"] + 0.05


def test_without_a_history_a_gin_holder_still_makes_the_knock_riskier():
    """The same knock told without the history: the opponent's latest turn (it threw 8s and did not knock) weighs the
    worlds by its own play, so a gin-holder's hand may still be close to gin where a knocker's cannot."""
    risk = {}
    for opponent in ("simple", "threshold:gin_only"):
        advice = advise("2h 3h 4h 7s 7d 7h Jc Qc Kc 9h Ks", upcard="9c", pile="9c Kd 4s Qs 6s Jd 9s 9d 8c 8s",
                        stock=21, opponent=opponent, seed=3, precision=None, race=False, max_samples=4096,
                        max_seconds=None)
        assert advice.prior == "played" and advice.opponent_turns == 1 and advice.ess < advice.samples
        risk[opponent] = advice.candidates[0].undercut.mean
    assert risk["threshold:gin_only"] > risk["simple"] + 0.05


# -- the plan for playing on, and budgets ----------------------------------------------------------


def test_the_plan_plays_on_as_said():
    from oklasim.advise.request import Request, plan_strategy

    assert Request(plan="gin").continuation() == "expert(early_draws=0, gin_after_draws=0)"
    assert "late_threshold=4" in plan_strategy("knock 4")
    for bad, message in [("fold", "'gin', 'knock' or 'knock N'"), ("knock 11", "a deadwood from 0 to 10")]:
        with pytest.raises(ValueError, match=message):
            plan_strategy(bad)
    with pytest.raises(ValueError, match="not both"):
        Request(plan="gin", me="simple").continuation()
    # Deadwood 5 after discarding Ks: holding for gin and knocking at 5 value playing on differently.
    values = {}
    for plan in ("gin", "knock 5"):
        advice = advise(**SITUATION, plan=plan, seed=21, precision=None, race=False, max_samples=2048,
                        max_seconds=None, discards=1)
        assert advice.plan == plan and f"your plan '{plan}'" in advice.assumptions
        values[plan] = next(c for c in advice.candidates if c.action == "continue").points
    gap = values["knock 5"].mean - values["gin"].mean
    assert abs(gap) > values["gin"].half_width + values["knock 5"].half_width


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--seconds", "0", "--seconds 0.0: a positive number of seconds"),
        ("--seconds", "-1", "--seconds -1.0: a positive number of seconds"),
        ("--seconds", "nan", "--seconds nan: a positive number of seconds"),
        ("--precision", "nan", "--precision nan: a positive number of points"),
        ("--workers", "0", "--workers 0: a whole number of threads, at least 1"),
        ("--samples", "0", "--samples 0: a whole number of worlds, at least 1"),
        ("--confidence", "1", "--confidence 1.0: a probability between 0 and 1"),
        ("--slip", "0.5", "--slip 0.5: a chance from 0 to below 0.5"),
        ("--played-draws", "-1", "--played-draws -1: a number of draws, 0 or more"),
        ("--plan", "fold", "--plan 'fold'"),
        # Out of range (issue 36): every number option has one, and a compass seat needs 3-4 players.
        ("--seconds", "1e10", "--seconds 10000000000.0: a positive number of seconds, at most 3600"),
        ("--samples", "10000000000", "--samples 10000000000: a whole number of worlds, at least 1 and at most"),
        ("--workers", "100000", "--workers 100000: a whole number of threads, at least 1 and at most 256"),
        ("--discards", "12", "--discards 12: try at least one discard when playing on, at most 11"),
        ("--window", "101", "--window 101: a number of turns, 0 (all) or more (at most 100)"),
        ("--played-draws", "1000", "--played-draws 1000: a number of draws, 0 or more (at most 100)"),
        ("--opponent-draws", "101", "--opponent-draws 101: a number of stock draws, 0 or more (at most 100)"),
        ("--seed", "-1", "--seed -1: a whole number, 0 or more"),
        ("--dealer", "left", "--dealer 'left': with 2 players 'me' or 'opponent'"),
        ("--dealer", "right", "--dealer 'right': with 2 players 'me' or 'opponent'"),
    ],
)
def test_nonsense_budgets_are_refused_in_one_line(option, value, message):
    result = cli(SITUATION["hand"], "--upcard", "9c", "--pile", SITUATION["pile"], option, value)
    assert result.exit_code == 1 and result.output.startswith("Error: ") and result.output.count("\n") == 1
    assert message in result.output and "Traceback" not in result.output


def test_the_time_budget_holds_against_a_slow_opponent(monkeypatch):
    """Worlds of 10 s each on the advisor's clock, 3000 s to spend: the first batch is small and the later ones fit
    the time left, so the sampling uses the budget and ends within it, at 300 worlds at most."""
    seconds_per_world(monkeypatch, 10.0)
    advice = advise(**SITUATION, opponent="greedy", max_seconds=3000, precision=0.01, seed=2, workers=1)
    assert advice.stop_reason == "time" and FIRST_BATCH < advice.samples <= 300
    assert advice.seconds <= 3000


def test_the_deadline_cuts_into_a_batch(monkeypatch):
    """Worlds slower than the budget (held until the advisor stops them; a second passes at each look at the clock):
    the budget stops the workers inside the first batch, and they leave every world but the first, always finished
    so that there is an answer."""
    fake_clock(monkeypatch, tick=1.0)
    batches_held_until_stopped(monkeypatch)
    advice = advise(**SITUATION, opponent="greedy", max_seconds=0.5, workers=2, seed=3)
    assert advice.stop_reason == "time" and advice.samples == 1 < FIRST_BATCH


@pytest.mark.parametrize("history", ["opp pass; me upcard", "me pass; opp pass; me stock", "opp upcard Kh; me pile"])
def test_first_turn_histories_agree_with_the_moment(history):
    from oklasim.advise.request import Request
    from oklasim.advise.worlds import worlds_for

    hand = "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d " + ("9c" if "upcard" in history.split(";")[-1] else "Kh")
    if "me stock" in history:
        hand = "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d As"
    worlds = worlds_for(Request(hand=hand, upcard="9c", history=history))
    assert worlds.position.moment == "after_draw"


# -- one builder of mid-hand boards --------------------------------------------------------------


def engine_positions(players, seed, games):
    """Boards between turns of real engine hands, each with the Situation saying where every card is.

    The trace of real games is stepped through with the engine's own state changes (its deal, ``draw_nb``,
    ``discard_nb``), while the facts a Situation needs are tallied from the events alone.
    """
    from oklasim._kernels import engine_nb as E
    from oklasim._kernels import layout as L
    from oklasim._kernels import rng_nb
    from oklasim.sim.engine import resolve_all, run_kernel, stream_key
    from oklasim.sim.situation import Situation

    rules = Rules(players=players, single_hand=True)
    packed = rules.to_array()
    _, _, trace = run_kernel(packed, resolve_all(["greedy"], players), seed, 0, games, trace_capacity=games * 200)
    key = stream_key(seed)
    for game in range(games):
        board = E.new_board()
        E.load_rules_nb(board, packed)
        # The engine's deck stream of the game (kept unsigned: numba types a Python int as signed).
        deck_rng = np.uint64(rng_nb.next_state_nb(np.uint64(rng_nb.stream_state_nb(np.uint64(key), game))))
        dealer = int(rng_nb.below_nb(deck_rng, players))
        E.deal_nb(board, dealer, 0, np.zeros(4, dtype=np.int64), deck_rng)
        hands, taken, discarded, my_draws = [0] * 4, [0] * 4, [0] * 4, [0] * 4
        pile, passes, first_taker, draws = [], 0, -1, 0

        def stock():
            return tuple(int(c) for c in board[L.HIDDEN, L.S_DECK + board[L.HIDDEN, L.S_STOCK_POS] : L.S_DECK + 52])

        for _, _, seat, event, a, _ in trace[trace[:, 0] == game].tolist():
            if event == E.EV_DEAL:
                hands[seat] = a
            elif event == E.EV_UPCARD:
                upcard, pile = a, [a]
                yield rules, board.copy(), Situation(hands=tuple(hands[:players]), upcard=a, pile=(a,), stock=stock(),
                                                     turn=(dealer + 1) % players, phase="offer", dealer=dealer)
            elif event == E.EV_PASS:
                E.publish_nb(board, L.V_PASSED + seat, 1)
                board[L.HIDDEN, L.S_OFFERS] += 1
                passes += 1
                if passes < players:
                    board[L.HIDDEN, L.S_TURN] = (seat + 1) % players
                else:
                    board[L.HIDDEN, L.S_PHASE] = L.PHASE_FORCED_STOCK
                    board[L.HIDDEN, L.S_TURN] = (dealer + 1) % players
                phase = "offer" if passes < players else "forced_stock"
                turn = int(board[L.HIDDEN, L.S_TURN])
                yield rules, board.copy(), Situation(hands=tuple(hands[:players]), upcard=upcard, pile=(upcard,),
                                                     stock=stock(), turn=turn, phase=phase, dealer=dealer, offers=passes
                                                     if phase == "offer" else 0)
            elif event in (E.EV_TAKE_UPCARD, E.EV_DRAW_PILE, E.EV_DRAW_STOCK):
                from_pile = event != E.EV_DRAW_STOCK
                if event == E.EV_TAKE_UPCARD:
                    board[L.HIDDEN, L.S_FIRST_TAKER] = first_taker = seat
                E.draw_nb(board, seat, from_pile)
                hands[seat] |= 1 << a
                draws += 1
                my_draws[seat] += 1
                if from_pile:
                    pile.pop()
                    taken[seat] |= 1 << a
            elif event == E.EV_DISCARD:
                E.discard_nb(board, seat, a)
                board[L.HIDDEN, L.S_PHASE] = L.PHASE_DRAW
                board[L.HIDDEN, L.S_TURN] = (seat + 1) % players
                hands[seat] &= ~(1 << a)
                pile.append(a)
                discarded[seat] |= 1 << a
                if len(stock()) < 3:
                    break  # the wall
                yield rules, board.copy(), Situation(
                    hands=tuple(hands[:players]), upcard=upcard, pile=tuple(pile), stock=stock(),
                    turn=(seat + 1) % players, phase="draw", dealer=dealer, draws=draws, first_taker=first_taker,
                    taken=tuple(taken), discarded=tuple(discarded), my_draws=tuple(my_draws))
            elif event in (E.EV_KNOCK, E.EV_VOID):
                break


@pytest.mark.parametrize("players", [2, 3, 4])
def test_situations_build_the_engines_board(players):
    """Between the turns of real hands, ``board_for`` (the one mid-hand builder) gives the board the engine had."""
    from oklasim._kernels import layout as L
    from oklasim.sim.situation import board_for

    hidden = [L.S_DEALER, L.S_TURN, L.S_PHASE, L.S_OFFERS, L.S_FIRST_TAKER, L.S_STOCK_POS]
    checked = 0
    for rules, engine_board, situation in engine_positions(players, seed=5, games=6):
        built = board_for(rules, situation)
        pos = engine_board[L.HIDDEN, L.S_STOCK_POS]
        assert built[L.HIDDEN, L.S_STOCK_POS] == pos
        for slot in hidden + [L.S_HANDS + s for s in range(players)] + list(range(L.S_DECK + pos, L.S_DECK + 52)):
            assert built[L.HIDDEN, slot] == engine_board[L.HIDDEN, slot], (slot, situation)
        rows = slice(0, players)
        engine_board[rows, L.V_RNG] = 0  # the seats' random streams are seeded per game, not part of a position
        assert not built[rows, L.V_LOG_TURNS : L.V_LOG_END].any()  # a position, not the turns that led to it
        engine_board[rows, L.V_LOG_TURNS : L.V_LOG_END] = 0
        assert np.array_equal(built[rows], engine_board[rows]), np.argwhere(built[rows] != engine_board[rows])
        checked += 1
    assert checked > 40


# -- the fiftieth card -----------------------------------------------------------------------------------

LAST_HAND, LAST_OPPONENT = "3s 4s 5s 9c 9d 9h Jh Qh Kh 5c Kc", "2s 6s 7s 9s Th Ac Ad Ah 2c 3c"


def last_chance(hand=LAST_HAND, opponent=LAST_OPPONENT, **changes):
    """The stock is down to 2 and I took the opponent's last discard, Kc; every opponent card is known."""
    rest = others(hand, opponent, "5d")
    pile = [parse_card("5d")] + rest[:-2]
    fields = dict(upcard="5d", pile=pile, opponent_took=opponent, took="Kc", rules="openspiel", seed=2, **QUICK)
    return advise(hand, **{**fields, **changes})


def test_the_fiftieth_card_weighs_declining():
    """Taking the last discard only to knock into a certain undercut (25 under openspiel) is worse than the void."""
    advice = last_chance()
    assert advice.position.last_chance
    labels = by_label(advice)
    assert set(labels) == {"knock, discarding Kc", "decline the last discard: the hand is void"}
    decline = labels["decline the last discard: the hand is void"]
    assert decline.status == "recommended" and decline.points.mean == 0 and decline.points.half_width == 0
    assert decline.hand_outcomes["nobody"] == 1
    knock = labels["knock, discarding Kc"]
    assert knock.points.mean == -(5 - 2 + 25) and knock.status == "beaten"
    assert advice.lines()[-1] == "recommendation: DON'T KNOCK: decline the last discard: the hand is void"


def test_the_fiftieth_card_goes_gin_when_it_can():
    opponent = "2s 7s 9s Th Ac Ad Ah 2c 3c 4c"
    advice = last_chance("3s 4s 5s 6s 9c 9d 9h Jh Qh Kh Kc", opponent)
    rec = advice.recommendation
    gin = Rules.load("openspiel").gin_bonus + int(melds.deadwood([parse_hand(opponent)])[0])
    assert (rec.action, rec.discard, rec.deadwood, rec.points.mean) == ("knock", "Kc", 0, gin)
    assert by_label(advice)["decline the last discard: the hand is void"].status == "beaten"


def test_only_the_fiftieth_card_rule_offers_the_decline():
    void_wall = last_chance(rules="seeds")
    assert not void_wall.position.last_chance
    assert all(c.action in ("knock", "continue") for c in void_wall.candidates)
    with pytest.raises(ValueError, match="only to knock, and no discard lets you knock"):
        last_chance("3s 4s 5s 9c 9d Jh Qh Kh 5c Kc 8d")


# -- three and four players ----------------------------------------------------------------------------


def test_a_three_player_position_is_the_engines_board():
    """Seat 0's position in real 3-player hands, as the player states it, builds the view and (with the true hidden
    cards) the board the engine had; only what the player was not told (passes, discards, the hand's log) may
    differ."""
    from oklasim._kernels import advise_worlds_nb as W
    from oklasim._kernels import layout as L
    from oklasim.advise.position import seat_name, view_of

    unknown = [L.V_RNG] + [L.V_PASSED + s for s in range(4)] + [L.V_DISCARDED + s for s in range(4)] + list(
        range(L.V_LOG_TURNS, L.V_LOG_END))  # nor the turns in order
    checked = 0
    for rules, engine_board, s in engine_positions(3, seed=8, games=12):
        if s.turn != 0 or s.phase != "draw" or s.first_taker != (s.dealer + 1) % 3 or s.taken[1] & s.taken[2] \
                or s.taken[0]:
            continue  # seat 0 to draw, in a hand where nobody passed (the draws went round from the dealer's left),
            # no card went from one opponent to the other (the player lists it once, with its holder) and seat 0
            # took nothing from the pile before (a position, with two players too, names only the card just taken)
        position = read_position(format_hand(s.hands[0]), format_card(s.upcard), pile=list(s.pile),
                                 opponent_took=" | ".join(format_hand(t) for t in s.taken[1:3]),
                                 stock=len(s.stock), rules=rules, dealer=seat_name(s.dealer, 3))
        view = view_of(position)
        keep = np.ones(L.V_SIZE, dtype=bool)
        keep[unknown] = False
        assert np.array_equal(view[keep], engine_board[0][keep]), np.flatnonzero((view != engine_board[0]) & keep)
        board = np.zeros_like(engine_board)
        W.template_nb(view, L.D_DRAW, board)
        for seat in (1, 2):  # the hidden cards a world fills in
            board[L.HIDDEN, L.S_HANDS + seat] = board[seat, L.V_HAND] = s.hands[seat]
        pos = board[L.HIDDEN, L.S_STOCK_POS]
        board[L.HIDDEN, L.S_DECK + pos : L.S_DECK + 52] = s.stock
        assert pos == engine_board[L.HIDDEN, L.S_STOCK_POS]
        for seat in range(3):
            assert np.array_equal(board[seat][keep], engine_board[seat][keep]), (seat, np.flatnonzero(
                (board[seat] != engine_board[seat]) & keep))
        hidden = [L.S_DEALER, L.S_TURN, L.S_PHASE, L.S_FIRST_TAKER] + [L.S_HANDS + k for k in range(3)]
        assert np.array_equal(board[L.HIDDEN, hidden], engine_board[L.HIDDEN, hidden])
        assert np.array_equal(board[L.HIDDEN, L.S_DECK + pos : L.S_DECK + 52], engine_board[L.HIDDEN, L.S_DECK + pos :
                                                                                            L.S_DECK + 52])
        checked += 1
    assert checked >= 5


TABLE = {"hand": "As 2s 3s 4s 7d 7c 7h Kc", "upcard": "9c", "pile": "9c Ts", "players": 3,
         "opponent_took": "Ac Ad Ah 5c 6c 8h 9h | 2c 3c 4c Jd Qd Kd 5h"}


def test_three_players_gin_scores_against_both_opponents():
    """Every opponent card known: a gin collects the bonus from each opponent plus its deadwood (28 and 5)."""
    advice = advise(**TABLE, seed=3, **QUICK)
    rec = advice.recommendation
    assert (rec.action, rec.discard, rec.deadwood) == ("knock", "Kc", 0)
    assert rec.points.mean == 2 * Rules().gin_bonus + 28 + 5 and rec.points.half_width == 0
    assert rec.undercut.mean == 0 and advice.position.players == 3
    assert any(c.action == "continue" for c in advice.candidates)
    text = "\n".join(advice.lines())
    assert "left      holds" in text and "right     holds" in text and "not calibrated" in text


def test_four_players_play_on_legally():
    hand = "2h 3h 4h 7s 7d 7h Jc 5d"
    advice = advise(hand, upcard="9c", pile="9c 8d 4s Qh", players=4, seed=4, max_samples=256, max_seconds=None,
                    precision=None, race=False, opponent="greedy", me="greedy")
    assert advice.position.stock == 52 - 8 - 4 - 3 * 7 and advice.samples == 256
    assert {c.samples for c in advice.candidates} == {256} and len(advice.candidates) > 2
    assert all(-200 < c.points.mean < 200 for c in advice.candidates)


@pytest.mark.parametrize("changes, message", [
    ({"history": "opp pass"}, "the history is for two players only"),
    ({"opponent_took": "Ac | 2c | 3c"}, "3 groups for 2 opponents"),
    ({"opponent_took": "Ac | Ac"}, "listed for two opponents"),
    ({"dealer": "across"}, "'me', 'left', or 'right'"),
    ({"scores": (10, 20)}, "3 non-negative numbers"),
    ({"upcard": "Kh", "pile": "Ts"}, "say which opponent took it"),
    ({"players": 5}, "players 5: 2, 3 or 4"),
])
def test_table_positions_refuse_bad_input_in_one_line(changes, message):
    with pytest.raises(ValueError, match=message):
        advise(**{**TABLE, **changes}, **QUICK)


def test_cli_three_players():
    result = CliRunner().invoke(advise_command, [TABLE["hand"], "--upcard", "9c", "--pile", "9c Ts", "--players", "3",
                                                 "--opponent-took", TABLE["opponent_took"], "--samples", "512",
                                                 "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["recommendation"]["action"] == "knock"


def test_the_note_says_what_the_intervals_leave_out():
    """The measured bias at the calibrated window and slip, early or late in the hand; elsewhere that it is not
    calibrated; without a history, how far off the worlds as played, or uniform, were measured."""
    from oklasim.advise.played import positions_from_play
    from oklasim.advise.result import AS_PLAYED_BIAS, CALIBRATED, HISTORY_BIAS, LATE_STOCK, UNCONDITIONED_BIAS

    window, slip, draws = CALIBRATED
    quick = QUICK | {"max_samples": 256}
    assert HISTORY_BIAS[False] in advise(SITUATION["hand"], upcard="9c", history=HISTORY, **quick).assumptions
    late = next(request for request, _, _ in positions_from_play(Rules(), ["simple", "greedy"], 100, 3,
                                                                  with_history=True) if request["stock"] <= LATE_STOCK)
    assert HISTORY_BIAS[True] in advise(**late, **quick).assumptions
    other = advise(SITUATION["hand"], upcard="9c", history=HISTORY, window=window + 1, **quick)
    assert f"calibrated at window {window}, slip {slip}, played draws {draws}, not at this setting" in other.assumptions
    assert other.to_dict()["worlds"]["window"] == window + 1
    assert AS_PLAYED_BIAS[False] in advise(**SITUATION, **quick).assumptions
    assert UNCONDITIONED_BIAS in advise(**SITUATION, **quick, prior="uniform").assumptions
