"""Decision datasets (`oklasim dataset`, `oklasim.env.dataset`): a row per decision of every seat, each exactly what
the research env shows and what the strategy chose, of the very games `simulate` plays with the same seed; the same
files whatever the workers; resumable; refused in one line."""

import json
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from cli_runner import cli, one_line_error

from oklasim._kernels import env_nb as K
from oklasim._kernels import layout as L
from oklasim.env import dataset as DS
from oklasim.env.spaces import action_of, observe
from oklasim.game.rules import Rules
from oklasim.runs.batch import RunSpec, run
from oklasim.sim.board import GameBoard
from oklasim.sim.engine import resolve_all, simulate

N_CARDS = 52


def plane(obs: np.ndarray, p: int) -> np.ndarray:
    return obs[:, p * N_CARDS : (p + 1) * N_CARDS]


@pytest.fixture(scope="module")
def games_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dataset") / "games"
    DS.export(out, strategies="expert,greedy", games=6, seed=3, shard_size=3)
    return out


def test_rows_are_the_decisions(games_run):
    rows = DS.read_decisions(games_run)
    obs, mask = DS.matrix(rows["obs"]), DS.matrix(rows["mask"])
    assert obs.shape == (rows.height, K.OBS_SIZE) and mask.shape == (rows.height, K.N_ACTIONS)
    actions, kinds, every = rows["action"].to_numpy(), rows["kind"].to_numpy().astype(np.int64), np.arange(rows.height)
    assert mask[every, actions].all()  # every action taken was legal
    assert (obs[every, K.X_KIND + kinds] == 1).all() and (obs[:, K.X_KIND : K.X_KIND + 5].sum(1) == 1).all()
    assert (obs[every, K.X_SEAT + rows["seat"].to_numpy().astype(np.int64)] == 1).all()
    held = plane(obs, K.P_HAND).sum(1)
    before_draw = np.isin(kinds, [L.D_TAKE_UPCARD, L.D_DRAW])
    assert (held[before_draw] == 10).all() and (held[np.isin(kinds, [L.D_KNOCK, L.D_DISCARD])] == 11).all()
    # every card is in one place: my hand, the pile, unseen, known in the opponent's hand (at the fiftieth-card
    # offer the last discard is shown in the hand too)
    pile = plane(obs, K.P_PILE_TOP) + (plane(obs, K.P_PILE_BELOW) > 0)
    places = plane(obs, K.P_HAND) + pile + plane(obs, K.P_UNSEEN) + plane(obs, K.P_HELD)
    assert (places[obs[:, K.X_LAST_CHANCE] == 0] == 1).all()
    # in play order: the steps of each hand count from 0
    steps = rows.group_by("game", "hand", maintain_order=True).agg(pl.col("step"))
    assert all(list(s) == list(range(len(s))) for s in steps["step"])
    assert set(rows["kind"].unique()) >= {L.D_TAKE_UPCARD, L.D_DRAW, L.D_DISCARD, L.D_KNOCK}


def test_rows_replay_the_board(games_run):
    """Games 0 and 4 stepped one decision at a time on a GameBoard with the same strategies: each decision's
    observation, mask, action and place are the dataset's row."""
    rules = Rules()
    seats = resolve_all("expert,greedy", 2)
    rows = DS.read_decisions(games_run)
    for game in (0, 4):
        mine = rows.filter(pl.col("game") == game)
        obs, mask = DS.matrix(mine["obs"]), DS.matrix(mine["mask"])
        board = GameBoard(rules, seed=3, game=game)
        i = 0
        while (asked := board.next_decision()) is not None:
            seat, kind = asked
            view = board.view(seat)
            expected_obs, expected_mask = observe(view, kind)
            answer = seats[seat].decide(kind, view, seats[seat].vector())
            assert (mine["seat"][i], mine["kind"][i], mine["hand"][i]) == (seat, kind, len(board.records))
            assert np.array_equal(obs[i], expected_obs) and np.array_equal(mask[i], expected_mask)
            assert mine["action"][i] == action_of(kind, answer)
            board.apply(seat, kind, answer)
            i += 1
        assert i == mine.height
        result = board.result()
        assert (mine["game_total"].to_numpy() == np.array(result["totals"])[mine["seat"].to_numpy()]).all()
        assert (mine["game_winner"] == (-1 if result["winner"] is None else result["winner"])).all()


def points_by_seat(hands: pl.DataFrame, players: int) -> pl.DataFrame:
    return pl.concat([hands.select("game", "hand", pl.lit(s, pl.Int8).alias("seat"), pl.col(f"points_{s}")
                                   .alias("expected")) for s in range(players)])


@pytest.mark.parametrize(("players", "mode", "count"), [(2, "hands", 40), (3, "hands", 30), (2, "games", 4),
                                                        (3, "games", 3)])
def test_final_points_are_simulates(tmp_path, players, mode, count):
    rules = Rules().replace(players=players)
    strategies = "expert,greedy" if players == 2 else "expert,greedy,simple"
    result = DS.export(tmp_path / "d", strategies=strategies, rules=rules, seed=11, shard_size=count // 2 + 1,
                       **{mode: count})
    played = simulate(rules, strategies, seed=11, **{mode: count})
    rows = result.decisions
    got = rows.group_by("game", "hand", "seat").agg(pl.col("points").unique(), pl.col("reward").unique())
    assert (got["points"].list.len() == 1).all() and (got["reward"].list.len() == 1).all()
    joined = points_by_seat(played.hands, players).join(
        got.with_columns(pl.col("points").list.first(), pl.col("reward").list.first()), on=["game", "hand", "seat"],
        how="left")
    # a seat asked nothing in a hand has no row of it (the first upcard taken and a knock at once)
    assert joined["points"].null_count() < joined.height / 10
    assert rows.select("game", "hand").unique().height == played.hands.height  # someone decided in every hand
    hand_total = joined.group_by("game", "hand").agg(pl.col("expected").sum().alias("total"))
    check = joined.join(hand_total, on=["game", "hand"]).drop_nulls("points")
    assert (check["points"] == check["expected"]).all()
    share = check["expected"] - (check["total"] - check["expected"]) / (players - 1)
    assert np.allclose(check["reward"].to_numpy(), share.to_numpy())
    assert result.hands.equals(played.hands)  # the hands table is simulate's
    assert rows["game"].unique().sort().to_list() == list(range(count))
    if mode == "games":
        assert result.games.equals(played.games)
        totals = rows.join(played.games, on="game")
        for s in range(players):
            mine = totals.filter(pl.col("seat") == s)
            assert (mine["game_total"] == mine[f"total_{s}"]).all() and (mine["game_winner"] == mine["winner"]).all()
    else:
        assert "game_total" not in rows.columns


def test_buffers_too_small_for_a_game_grow():
    """Rows written a few at a time, buffers doubled whenever a game outgrows them: the same rows."""
    from oklasim.sim.engine import kernel_rules

    seats, rules = resolve_all("greedy,simple", 2), kernel_rules(Rules(), False)

    def rows(per_call):
        games = np.empty((5, L.N_GAME_FIELDS), dtype=np.int64)
        chunks = [(c.obs.copy(), c.rows.copy(), c.hands) for c in DS.play_chunks(rules, seats, 4, 10, 5, games,
                                                                                  per_call)]
        return [np.concatenate(part) for part in zip(*chunks)], games, len(chunks)

    (obs, fields, hands), games, calls = rows(DS.ROWS_PER_CALL)
    (small_obs, small_fields, small_hands), small_games, small_calls = rows(16)
    assert calls == 1 and small_calls > 1
    assert np.array_equal(obs, small_obs) and np.array_equal(fields, small_fields)
    assert np.array_equal(hands, small_hands) and np.array_equal(games, small_games)


def test_manifest_records_the_provenance(games_run):
    manifest = json.loads((games_run / "manifest.json").read_text())
    spec = manifest["spec"]
    assert spec["dataset"] == "decisions" and spec["encoding_version"] == K.ENCODING_VERSION
    assert (spec["obs_size"], spec["n_actions"]) == (K.OBS_SIZE, K.N_ACTIONS)
    assert spec["seed"] == 3 and spec["mode"] == "games" and spec["count"] == 6 and spec["rules"] == Rules().to_dict()
    assert spec["strategies"][0].startswith("expert(lookahead=") and spec["labels"] == ["expert", "greedy"]
    assert manifest["status"] == "complete" and manifest["version"] and manifest["source_hash"]
    assert manifest["rows_written"] == DS.read_decisions(games_run).height
    assert manifest["encoding"]["version"] == K.ENCODING_VERSION


def shard_bytes(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.glob("*/part-*.parquet"))}


def test_same_seed_same_files_whatever_the_workers(tmp_path):
    for workers in (1, 2):
        result = cli("dataset", "--strategies", "expert,greedy", "--hands", 60, "--seed", 5, "--shard-size", 20,
                     "--workers", workers, "--out", tmp_path / f"w{workers}")
        assert result.exit_code == 0, result.output
    one, two = shard_bytes(tmp_path / "w1"), shard_bytes(tmp_path / "w2")
    assert len(one) == 6 and one == two


def test_resume_rebuilds_a_deleted_shard(tmp_path):
    out = tmp_path / "d"
    result = cli("dataset", "--strategies", "greedy,simple", "--games", 6, "--seed", 2, "--shard-size", 2,
                 "--out", out)
    assert result.exit_code == 0 and "written to" in result.output, result.output
    before = shard_bytes(out)
    assert len(before) == 9
    (out / "decisions" / "part-00001.parquet").unlink()
    one_line_error(cli("dataset", "--strategies", "greedy,simple", "--games", 6, "--seed", 2, "--out", out),
                   "--resume")
    result = cli("dataset", "--out", out, "--resume")  # the options are the dataset's
    assert result.exit_code == 0, result.output
    assert shard_bytes(out) == before
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


def test_bad_input_is_refused_in_one_line(tmp_path):
    one_line_error(cli("dataset", "--hands", 10), "--out")
    one_line_error(cli("dataset", "--out", tmp_path / "a"), "hands")
    one_line_error(cli("dataset", "--hands", 10, "--games", 2, "--out", tmp_path / "a"), "exactly one")
    one_line_error(cli("dataset", "--hands", 0, "--out", tmp_path / "a"), "at least 1")
    one_line_error(cli("dataset", "--hands", 10, "--strategies", "nosuchbot", "--out", tmp_path / "a"), "nosuchbot")
    one_line_error(cli("dataset", "--hands", 10, "--strategies", "simple,simple,simple", "--out", tmp_path / "a"),
                   "strategies")
    one_line_error(cli("dataset", "--hands", 10, "--seed", -1, "--out", tmp_path / "a"), "seed")
    one_line_error(cli("dataset", "--hands", 10, "--workers", 0, "--out", tmp_path / "a"), "--workers")
    (tmp_path / "file").write_text("x")
    one_line_error(cli("dataset", "--hands", 10, "--out", tmp_path / "file"), "not a folder")
    one_line_error(cli("dataset", "--hands", 10, "--out", tmp_path / "file" / "below"), "Not a directory")
    run(RunSpec.create(None, "simple", hands=10, seed=1), tmp_path / "sim", progress=False)
    one_line_error(cli("dataset", "--hands", 10, "--strategies", "simple", "--out", tmp_path / "sim", "--resume"),
                   "simulate run")
    one_line_error(cli("dataset", "--hands", 10, "--strategies", "simple", "--seed", 1, "--out", tmp_path / "sim"),
                   "--overwrite")
    assert not (tmp_path / "a").exists()


def test_overwrite_replaces_the_dataset(tmp_path):
    out = tmp_path / "d"
    DS.export(out, strategies="simple", hands=12, seed=1, shard_size=4)
    result = cli("dataset", "--strategies", "greedy", "--hands", 5, "--seed", 1, "--out", out, "--overwrite")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "decisions").glob("*.parquet")) == ["part-00000.parquet"]
    assert DS.load(out)["game"].max() == 4


def test_matrix_reads_every_form_of_the_column(games_run):
    """polars Binary, pyarrow fixed_size_binary, several chunks, a slice: the same int8 matrix."""
    import pyarrow.dataset as pads

    whole = DS.matrix(DS.read_decisions(games_run)["obs"])
    table = pads.dataset(games_run / "decisions", format="parquet").to_table()
    assert table["obs"].num_chunks > 1 and np.array_equal(DS.matrix(table["obs"]), whole)
    assert np.array_equal(DS.matrix(table["obs"].combine_chunks().slice(5, 7)), whole[5:12])
    assert np.array_equal(DS.matrix(pl.read_parquet(games_run / "decisions")["mask"][3:9]),
                          DS.load(games_run)["mask"][3:9])


def test_works_without_the_rl_extra(tmp_path):
    code = (
        "import sys\n"
        "sys.modules['gymnasium'] = sys.modules['pettingzoo'] = None  # as if not installed\n"
        "from oklasim.env.dataset import export, load\n"
        f"export({str(tmp_path / 'd')!r}, strategies='simple', hands=3, seed=1)\n"
        f"assert load({str(tmp_path / 'd')!r})['obs'].shape[1] == 938\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
