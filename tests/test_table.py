"""The table and ``GameBoard`` drive the engine's step machine: the engine's games, event for event, and one
reason for every refusal."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from oklasim._kernels import layout as L
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim import engine
from oklasim.sim.board import GameBoard, IllegalMove
from oklasim.strategies.registry import resolve
from oklasim.table.referee import BotSeat, Table

LINEUPS = {2: ("greedy", "random"), 3: ("simple", "random", "greedy"), 4: ("random", "greedy", "simple", "random")}
GAMES = 10


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_table_plays_the_engines_games(preset, players):
    """Same seed, same strategies: the same deals, events, hand records and game results, game by game."""
    rules = Rules.preset(preset).replace(players=players)
    seats = [resolve(name) for name in LINEUPS[players]]
    seed = 11
    hands, games, trace = engine.run_kernel(engine.kernel_rules(rules, False), seats, seed, 0, GAMES,
                                            trace_capacity=engine.trace_rows(GAMES * L.MAX_HANDS_PER_GAME))
    for game in range(GAMES):
        table = Table(rules, [BotSeat(s) for s in seats], seed, game)
        result = table.play_game()
        board = table.game
        np.testing.assert_array_equal(np.array(board.records), hands[hands[:, L.H_GAME] == game])
        np.testing.assert_array_equal(board.trace_rows(), trace[trace[:, 0] == game])
        np.testing.assert_array_equal(board.game_record, games[game])
        assert result["winner"] == (None if games[game, L.G_WINNER] < 0 else games[game, L.G_WINNER])


def board_at(rules: Rules, seed: int, want, game_number: int = 0) -> GameBoard:
    """A fresh game played by ``simple`` until ``want(board, seat, kind)`` holds for the decision asked."""
    game = GameBoard(rules, seed, game_number)
    bot = BotSeat(resolve("simple"))
    while (asked := game.next_decision()) is not None:
        if want(game, *asked):
            return game
        game.apply(*asked, bot.decide(asked[1], game.view(asked[0])))
    raise AssertionError("no such decision in the game")


def refused(game: GameBoard, seat: int, kind: int, answer, reason: str) -> None:
    before = game.board.copy()
    with pytest.raises(IllegalMove, match=reason):
        game.apply(seat, kind, answer)
    np.testing.assert_array_equal(game.board, before)  # nothing moved


def test_refusals_give_the_reason_and_change_nothing():
    game = board_at(Rules(), 3, lambda g, seat, kind: kind == L.D_TAKE_UPCARD)
    seat, kind = game.asked
    refused(game, 1 - seat, kind, 1, "not asked now: seat .* is asked to 'take the upcard'")
    refused(game, seat, L.D_DISCARD, 0, "'discard' is not asked now")
    refused(game, seat, kind, 2, r"is 1 \(take\) or 0 \(pass\), not 2")
    refused(game, seat, kind, True, "must be a whole number")
    game = board_at(Rules(), 3, lambda g, seat, kind: kind == L.D_DISCARD)
    seat, kind = game.asked
    hand = int(game.view(seat)[L.V_HAND])
    missing = next(c for c in range(52) if not hand >> c & 1)
    refused(game, seat, kind, missing, "is not in the hand")
    refused(game, seat, kind, 52, "is not a card")


def test_a_card_taken_from_the_pile_may_not_be_discarded():
    game = board_at(Rules(), 1, lambda g, seat, kind: kind == L.D_DISCARD and g.view(seat)[L.V_FORBIDDEN] >= 0)
    seat, kind = game.asked
    refused(game, seat, kind, int(game.view(seat)[L.V_FORBIDDEN]), "was just taken from the pile")


def test_a_knock_must_be_on_offer():
    game = board_at(Rules(), 2, lambda g, seat, kind: kind == L.D_KNOCK)
    seat, kind = game.asked
    view = game.view(seat)
    too_much = next(c for c in range(52) if view[L.V_HAND] >> c & 1 and not view[L.V_KNOCK_DISCARDS] >> c & 1
                    and c != view[L.V_FORBIDDEN])
    refused(game, seat, kind, too_much, "leaves too much deadwood to knock")
    refused(game, seat, kind, L.BIG_GIN, "big gin is not on offer")
    game.apply(seat, kind, int(view[L.V_KNOCK_DISCARDS] & -view[L.V_KNOCK_DISCARDS]).bit_length() - 1)


def test_the_wall_offer_survives_a_refused_answer():
    """Fiftieth card: a refused answer leaves the offer (the last discard shown in hand) for the next answer."""
    rules = Rules.preset("openspiel")
    hands = engine.simulate(rules, ["simple"], games=2000, seed=1).hands
    for game_number in hands.filter((pl.col("stock_left") == 2) & (pl.col("knocker") >= 0))["game"]:
        try:  # a knock with two stock cards left: at the fiftieth card, or a knock after the last stock draw
            game = board_at(rules, 1, lambda g, seat, kind: kind == L.D_KNOCK and g.view(seat)[L.V_LAST_CHANCE],
                            game_number)
            break
        except AssertionError:
            continue
    seat, kind = game.asked
    view = game.view(seat)
    assert view[L.V_HAND].bit_count() == 11  # the last discard shown in hand
    offered = int(view[L.V_KNOCK_DISCARDS])
    held = int(view[L.V_HAND])
    refused(game, seat, kind, next(c for c in range(52) if held >> c & 1 and not offered >> c & 1), "too much deadwood")
    game.apply(seat, kind, (offered & -offered).bit_length() - 1 if offered else L.BIG_GIN)
    if game.next_decision() is not None:  # the knocker picks among arrangements
        game.apply(seat, L.D_ARRANGE, 0)
        game.next_decision()
    events = [(e.seat, e.name) for e in game.events()]
    knock = events.index((seat, "knock"))
    assert events[knock - 1] == (seat, "draw_pile") and [name for _, name in events[-2:]] == ["score", "hand_over"]


def test_hidden_cards_are_seen_by_their_seat_alone():
    game = GameBoard(Rules(players=3), 4)
    game.next_decision()
    deals = [e for e in game.events() if e.name == "deal"]
    assert [e.seen_by(e.seat) for e in deals] == deals
    assert all(e.seen_by((e.seat + 1) % 3) is None for e in deals)


def test_the_table_refuses_a_seat_count_and_simulation_deals():
    with pytest.raises(ValueError, match="seat 3 players; the table has 2"):
        Table(Rules(players=3), [BotSeat(resolve("simple"))] * 2, 1)
    with pytest.raises(ValueError, match="deal_knock_limit is for simulations only"):
        Table(Rules(deal_knock_limit=5), [BotSeat(resolve("simple"))] * 2, 1)


def test_a_tables_events_are_the_advisors_history():
    """What seat 0 saw of a hand, written as the advisor's history, replays to the pile and pickups it sees."""
    from oklasim.advise.history import history_text, parse_history, replay

    checked = 0
    for seed in range(6):
        game, bot, seen = GameBoard(Rules(), seed), BotSeat(resolve("greedy")), []
        while (asked := game.next_decision()) is not None and game.records == []:
            events = [e.seen_by(0) for e in game.events()]
            seen += [e for e in events if e is not None]
            seat, kind = asked
            view = game.view(0)
            if seat == 0 and kind in (L.D_KNOCK, L.D_DISCARD) and view[L.V_DRAWS] > 2:
                replayed = replay(parse_history(history_text(seen, 0)), int(view[L.V_UPCARD]), Rules(), None,
                                  int(view[L.V_HAND]))
                assert list(replayed.pile) == view[L.V_PILE : L.V_PILE + view[L.V_PILE_SIZE]].tolist()
                assert replayed.opponent_took == view[L.V_TAKEN + 1]
                checked += 1
            game.apply(seat, kind, bot.decide(kind, game.view(seat)))
    assert checked > 10
