"""`oklasim review`: a played game replayed decision by decision and judged by the advisor."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from cli_runner import cli, one_line_error
from saved_games import save_bot_game

import oklasim.review.judge as judge_module
from oklasim.game.cards import format_card, parse_hand
from oklasim.game.rules import Rules
from oklasim.review import bot_game, review, saved_game
from oklasim.review.game import DISCARD, DRAW, KNOCK, UPCARD
from oklasim.review.judge import BEST, CLOSE, MISTAKE, NOT_JUDGED, judge
from oklasim.review.report import write_review
from oklasim.table.terminal import deadwood

SMALL = 600  # worlds per decision: enough for the verdicts these tests read, quick on a loaded machine


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A game of expert (typing the person's moves) against simple, saved as the terminal saves it."""
    path = tmp_path_factory.mktemp("games") / "game.json"
    save_bot_game(path, "expert", "simple", seed=11)
    return path


def short(game, decisions: int):
    return replace(game, decisions=game.decisions[:decisions])


def test_a_saved_game_replays_to_the_decisions_the_engine_asked(saved):
    game = saved_game(saved)
    same = bot_game(Rules(), ["expert", "simple"], seed=11, game=0, seat=0)
    assert [(d.kind, d.draw, d.knock, d.discard, d.big_gin) for d in game.decisions] == \
           [(d.kind, d.draw, d.knock, d.discard, d.big_gin) for d in same.decisions]
    assert game.result == same.result and game.result["winner"] in (0, 1)
    assert (game.player, game.opponent, game.seat) == ("you", "simple", 0)
    assert {d.kind for d in game.decisions} == {UPCARD, DRAW, DISCARD, KNOCK}
    for d in game.decisions:
        cards = bin(int(d.view[3])).count("1")
        assert cards == (10 if d.kind in (UPCARD, DRAW) else 11), d
        assert all(e.hand == d.hand and e.name != "deal" for e in d.seen)
        # what it saw ends before its decision: a draw's history ends with the opponent's discard or a pass
        assert not d.seen or d.kind not in (UPCARD, DRAW) or d.seen[-1].seat != 0 or d.seen[-1].name == "pass"


def test_an_unfinished_save_is_reviewed_up_to_its_last_move(tmp_path):
    full = save_bot_game(tmp_path / "full.json", "expert", "simple", seed=4)
    save_bot_game(tmp_path / "cut.json", "expert", "simple", seed=4, stop_after=25)
    cut, whole = saved_game(tmp_path / "cut.json"), saved_game(tmp_path / "full.json")
    assert cut.result is None and whole.result is not None and len(full["moves"]) > 25
    assert 0 < len(cut.decisions) < len(whole.decisions)
    assert [d.discard for d in cut.decisions[:-1]] == [d.discard for d in whole.decisions[:len(cut.decisions) - 1]]


def test_the_advisors_best_play_is_judged_best_and_a_broken_meld_a_mistake(saved):
    game = saved_game(saved)

    def after_breaking_a_meld(d):
        """A discard that breaks a meld: 10 or more deadwood above the least the hand can keep."""
        hand = int(d.view[3])
        left = {c: deadwood(hand & ~(1 << c)) for c in range(52) if hand >> c & 1}
        return next((c for c, dw in left.items() if dw >= min(left.values()) + 10), None)

    # Early in a hand, where the history is short and nearly every world explains it: the evidence is ample.
    decision, card = next((d, after_breaking_a_meld(d)) for d in game.decisions
                          if d.kind == DISCARD and d.stock_left >= 28 and after_breaking_a_meld(d) is not None)
    judged = judge(game, decision, 4 * SMALL, seed=0)
    as_best = replace(decision, discard=parse_hand(judged.best.split()[-1]).bit_length() - 1)
    assert judge(game, as_best, 4 * SMALL, seed=0).verdict == BEST
    broken = judge(game, replace(decision, discard=card), 4 * SMALL, seed=0)
    assert broken.verdict == MISTAKE and broken.lost.low > 0, broken
    assert broken.played == f"discard {format_card(card)}"


def test_the_same_seed_and_budget_give_the_same_review_whatever_the_workers(saved):
    game = short(saved_game(saved), 14)
    one = review(game, SMALL, seed=3, workers=1).to_dict()
    two = review(game, SMALL, seed=3, workers=2).to_dict()
    assert one == two
    assert {j["verdict"] for j in one["judgements"]} <= {BEST, CLOSE, MISTAKE, NOT_JUDGED}
    other = review(game, SMALL, seed=4, workers=2).to_dict()
    assert [j["samples"] for j in other["judgements"]] != [j["samples"] for j in one["judgements"]] or \
           [j["lost"] for j in other["judgements"]] != [j["lost"] for j in one["judgements"]]


def test_an_interrupted_review_goes_on_from_its_file_and_judges_each_decision_once(saved, tmp_path, monkeypatch):
    game = short(saved_game(saved), 10)
    out = tmp_path / "review.json"
    calls = []
    real = judge_module.judge

    def counted(game, d, samples, seed):
        calls.append(d.number)
        return real(game, d, samples, seed)

    monkeypatch.setattr(judge_module, "judge", counted)

    def stop_after_four(judged, total):
        if judged == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        review(game, SMALL, seed=1, workers=1, out=out, progress=stop_after_four)
    kept = json.loads(out.read_text())
    assert kept["complete"] is False and len(kept["judgements"]) == 4
    calls.clear()
    finished = review(game, SMALL, seed=1, workers=1, out=out)
    assert sorted(calls) == list(range(4, 10))
    assert json.loads(out.read_text())["complete"] is True
    assert finished.to_dict() == review(game, SMALL, seed=1, workers=1).to_dict()
    calls.clear()
    review(game, SMALL, seed=2, workers=1, out=out)  # other settings: judged anew
    assert sorted(calls) == list(range(10))


def test_the_summary_counts_what_the_judgements_say(saved):
    game = short(saved_game(saved), 30)
    reviewed = review(game, SMALL, seed=0)
    data = reviewed.to_dict()
    judgements = data["judgements"]
    for kind, row in data["summary"]["by_kind"].items():
        mine = [j for j in judgements if j["kind"] == kind]
        assert row["decisions"] == len(mine)
        assert row[MISTAKE] == sum(j["verdict"] == MISTAKE for j in mine)
        assert row["points_lost"] == pytest.approx(sum(j["lost"]["mean"] for j in mine if j["verdict"] == MISTAKE),
                                                   abs=0.01)
    knocks = data["summary"]["knocks"]
    offered = [j for j in judgements if j["knock_offered"]]
    assert knocks["offered"] == len(offered) and knocks["held"] == sum(not j["knocked"] for j in offered)
    assert knocks["knocking_better"] == sum(j["verdict"] == MISTAKE and j["best_knocks"] and not j["knocked"]
                                            for j in offered)
    text = "\n".join(reviewed.lines())
    assert "against simple" in text and "seeds rules" in text and "points lost" in text
    assert "assume the opponent plays simple" in text


def test_review_cli_on_a_saved_game_and_a_run(saved, tmp_path):
    cut = tmp_path / "cut.json"
    save_bot_game(cut, "expert", "greedy", seed=2, stop_after=12)
    result = cli("review", cut, "--samples", SMALL)
    assert result.exit_code == 0, result.output
    assert "review of the game saved in" in result.output and "against greedy" in result.output
    assert (tmp_path / "cut.review.json").is_file()
    as_json = cli("review", cut, "--samples", SMALL, "--json")
    assert json.loads(as_json.output)["opponent"] == "greedy"

    run = tmp_path / "run"
    made = cli("simulate", "--strategies", "simple,greedy", "--games", 3, "--seed", 5, "--out", run)
    assert made.exit_code == 0, made.output
    bot = cli("review", run, "--game", 2, "--seat", 1, "--samples", 300)
    assert bot.exit_code == 0, bot.output
    assert "greedy's" in bot.output and "against simple" in bot.output
    assert (run / "reviews" / "game-2-seat-1.json").is_file()


def test_review_cli_says_what_is_wrong(saved, tmp_path):
    run = tmp_path / "run"
    cli("simulate", "--strategies", "simple,greedy", "--hands", 20, "--seed", 5, "--out", run)
    one_line_error(cli("review", run), "--game")
    one_line_error(cli("review", run, "--game", 0), "single hands")
    one_line_error(cli("review", saved, "--game", 1), "run folder")
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\xff\xfe not json")
    one_line_error(cli("review", garbage), "garbage.json")
    four = tmp_path / "four.json"
    record = json.loads(saved.read_text())
    four.write_text(json.dumps({**record, "rules": Rules().replace(players=4).to_dict(), "moves": []}))
    one_line_error(cli("review", four), "two-player")
    one_line_error(cli("review", saved, "--samples", 0), "--samples")
    damaged = tmp_path / "damaged.json"
    damaged.write_text("{")
    one_line_error(cli("review", saved, "--out", damaged), "not a review file")
    one_line_error(cli("review", saved, "--out", tmp_path / "no" / "such" / "r.json"), "no folder")


def test_a_review_file_written_for_one_game_is_not_taken_for_another(saved, tmp_path):
    game = short(saved_game(saved), 3)
    out = tmp_path / "r.json"
    write_review(out, review(game, SMALL, seed=0), complete=True)
    other = short(bot_game(Rules(), ["expert", "greedy"], seed=9, game=0, seat=0), 3)
    fresh = review(other, SMALL, seed=0, out=out)
    assert json.loads(out.read_text())["source"] == other.source
    assert [j.cards for j in fresh.judgements] == [j.cards for j in review(other, SMALL, seed=0).judgements]


def test_the_statistics_follow_the_reviewed_points_lost_game_after_game(tmp_path):
    import os

    from oklasim.review.stats import LOST_FIGURE, player_stats, write_stats

    for name, seed, mtime in (("late", 5, 2_000_000_000), ("early", 6, 1_900_000_000), ("plain", 7, 1_950_000_000)):
        save_bot_game(tmp_path / f"{name}.json", "expert", "simple", seed=seed, stop_after=14)
        os.utime(tmp_path / f"{name}.json", (mtime, mtime))
    for name in ("late", "early"):
        review(saved_game(tmp_path / f"{name}.json"), SMALL, out=tmp_path / f"{name}.review.json")
    # A review written for another game (the file was replaced since) is not taken for this one's.
    save_bot_game(tmp_path / "plain.json", "expert", "simple", seed=8, stop_after=14)
    review(saved_game(tmp_path / "plain.json"), SMALL, out=tmp_path / "plain.review.json")
    save_bot_game(tmp_path / "plain.json", "expert", "simple", seed=7, stop_after=14)
    os.utime(tmp_path / "plain.json", (1_950_000_000, 1_950_000_000))

    stats = player_stats(tmp_path)
    assert [r.file for r in stats.reviewed] == ["early.json", "late.json"]
    early = json.loads((tmp_path / "early.review.json").read_text())["summary"]
    made = sum(row["decisions"] for row in early["by_kind"].values())
    assert stats.reviewed[0].per_decision() == pytest.approx(early["points_lost"] / made, abs=0.01)
    written = write_stats(stats, tmp_path / "out")
    assert tmp_path / "out" / LOST_FIGURE in written
    assert "Points lost per decision" in (tmp_path / "out" / "stats.md").read_text()


def test_the_commands_default_budget_is_the_reviews():
    from oklasim.cli.review import DEFAULT_SAMPLES
    from oklasim.review.judge import REVIEW_SAMPLES

    assert DEFAULT_SAMPLES == REVIEW_SAMPLES
