"""The actions, masks and observations of oklasim.env: the mask is the step machine's legal set at every decision,
and a seat's observation depends on nothing it may not know."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oklasim._kernels import engine_nb as E
from oklasim._kernels import env_nb as K
from oklasim._kernels import layout as L
from oklasim._kernels import steps_nb as S
from oklasim.env import spaces
from oklasim.game.cards import parse_hand
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import resolve

PRESETS = ["seeds", "openspiel", "pagat", "north_american", "eaai"]


def accepted(board: GameBoard, seat: int, kind: int, action: int) -> bool:
    """Whether the step machine takes ``action`` (on a copy of the board: a refusal leaves the board as it was)."""
    answer = spaces.answer_of(kind, action)
    if answer is None:
        return False
    trial = board.board.copy()
    status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
    trace = np.zeros((64, E.TRACE_FIELDS), dtype=np.int64)
    return S.apply_step(trial, seat, kind, answer, board.arrangements.copy(), trace, status) == L.E_NONE


def random_decisions(rules: Rules, seed: int, steps: int):
    """Yield (board, seat, kind) along a game of random legal actions, half of them the strategy "simple"'s (so that
    hands reach knocks)."""
    game = GameBoard(rules, seed)
    rng = np.random.default_rng(seed)
    simple = resolve("simple")
    for _ in range(steps):
        asked = game.next_decision()
        if asked is None:
            return
        seat, kind = asked
        yield game, seat, kind
        _, mask = spaces.observe(game.view(seat), kind)
        action = spaces.strategy_action(simple, game.view(seat), kind) if rng.random() < 0.5 else \
            int(rng.choice(np.flatnonzero(mask)))
        game.apply(seat, kind, spaces.answer_of(kind, action))


@pytest.mark.parametrize("preset", PRESETS)
def test_the_mask_is_the_step_machines_legal_set(preset):
    rules = Rules.preset(preset).replace(big_gin=True) if preset == "seeds" else Rules.preset(preset)
    kinds = set()
    for seed in range(12):
        for game, seat, kind in random_decisions(rules, seed, 300):
            _, mask = spaces.observe(game.view(seat), kind)
            legal = [accepted(game, seat, kind, a) for a in range(spaces.N_ACTIONS)]
            assert mask.astype(bool).tolist() == legal, (kind, np.flatnonzero(mask), np.flatnonzero(legal))
            kinds.add(kind)
    assert {L.D_TAKE_UPCARD, L.D_DRAW, L.D_DISCARD, L.D_KNOCK} <= kinds


def test_the_arrangement_decision():
    """When several arrangements are optimal, each one offered is an action, and the observation describes them."""
    found = None
    for seed in range(200):
        for game, seat, kind in random_decisions(Rules(), seed, 400):
            if kind == L.D_ARRANGE:
                found = game, seat, kind
                break
        if found:
            break
    game, seat, kind = found
    obs, mask = spaces.observe(game.view(seat), kind)
    count = int(game.view(seat)[L.V_N_ARRANGEMENTS])
    assert count > 1 and np.flatnonzero(mask).tolist() == [K.A_ARRANGE + k for k in range(count)]
    assert mask.astype(bool).tolist() == [accepted(game, seat, kind, a) for a in range(spaces.N_ACTIONS)]
    assert obs[K.X_N_ARRANGEMENTS] == count and obs[K.X_KIND + L.D_ARRANGE] == 1
    described = obs[K.X_ARRANGEMENTS:].reshape(32, 4, 3)
    assert described[:count, 0, 0].all() and not described[count:].any()
    assert len({described[k].tobytes() for k in range(count)}) == count  # told apart


def test_answers_and_actions_round_trip():
    for action in range(spaces.N_ACTIONS - 1):
        kind = int(spaces.DECISION_OF_ACTION[action])
        answer = spaces.answer_of(kind, action)
        assert answer is not None and spaces.action_of(kind, answer) == action
        assert all(spaces.answer_of(k, action) is None for k in range(5) if k != kind)
    assert spaces.action_name(K.A_KNOCK + (parse_hand("7h").bit_length() - 1)) == "knock 7h"


def hidden_swap(game: GameBoard, observer: int, rng) -> np.ndarray:
    """A board the observer cannot tell from ``game``'s: an unseen card of another hand swapped with one of the
    stock (in the hidden row and that hand's own row), and the observer's random stream, memory and game memory
    changed."""
    board = game.board.copy()
    players = game.players
    deck_pos = int(board[L.HIDDEN, L.S_STOCK_POS])
    stock = board[L.HIDDEN, L.S_DECK + deck_pos : L.S_DECK + 52]
    holders = [s for s in range(players) if s != observer]
    seat = holders[rng.integers(len(holders))]
    hand = int(board[L.HIDDEN, L.S_HANDS + seat]) & ~int(board[observer, L.V_TAKEN + seat])
    cards = [c for c in range(52) if hand >> c & 1]
    if cards and len(stock):
        card, k = cards[rng.integers(len(cards))], int(rng.integers(len(stock)))
        other = int(stock[k])
        stock[k] = card
        new = (int(board[L.HIDDEN, L.S_HANDS + seat]) & ~(1 << card)) | (1 << other)
        board[L.HIDDEN, L.S_HANDS + seat] = new
        board[seat, L.V_HAND] = new
    board[observer, L.V_RNG] ^= 0x5DEECE66D
    board[observer, L.V_MEMORY : L.V_MEMORY + L.N_MEMORY] = rng.integers(0, 99, L.N_MEMORY)
    board[observer, L.V_GAME_MEMORY : L.V_GAME_MEMORY + L.N_GAME_MEMORY] = rng.integers(0, 99, L.N_GAME_MEMORY)
    return board


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 60), preset=st.sampled_from(PRESETS),
       players=st.integers(2, 4))
def test_no_leak(seed, steps, preset, players):
    rules = Rules.preset(preset).replace(players=players)
    rng = np.random.default_rng(seed)
    last = None
    for last in itertools.islice(random_decisions(rules, seed, steps + 1), steps + 1):
        pass
    game, seat, kind = last
    if game.asked != (seat, kind):  # the game ended first
        return
    for observer in range(players):
        asked_kind = kind if observer == seat else L.D_NONE
        other = hidden_swap(game, observer, rng)
        obs, mask = spaces.observe(game.view(observer), asked_kind)
        obs2, mask2 = spaces.observe(other[observer], asked_kind)
        assert np.array_equal(obs, obs2) and np.array_equal(mask, mask2)
        if observer == seat:  # the machine asks the same of both boards
            arr = np.zeros_like(game.arrangements)
            pending = S.pending_step(other, arr, np.zeros((64, 6), np.int64), np.zeros(E.STATUS_SIZE, np.int64))
            assert tuple(pending) == (seat, kind)


def test_the_documented_layout_is_the_kernels():
    """The module docstring of oklasim.env documents every offset and action id: they are the kernels'."""
    import re

    import oklasim.env

    doc = oklasim.env.__doc__
    first_cells = re.findall(r"^\| ([^|]+?) \|", doc, flags=re.M)  # of the Markdown tables' rows
    offsets = {int(n) for cell in first_cells for n in re.findall(r"^\d+(?=,|$)|(?<=, )\d+", cell)}
    planes = {p * 52 for p in range(K.N_PLANES)}
    scalars = {getattr(K, n) for n in dir(K) if n.startswith("X_") and n != "X_KIND"} | {K.X_KIND}
    assert planes | scalars <= offsets | {K.P_HELD * 52 + 52, K.P_HELD * 52 + 104, K.P_THROWN * 52 + 52,
                                          K.P_THROWN * 52 + 104}
    assert f"``OBS_SIZE`` = {K.OBS_SIZE}" in doc and f"``N_ACTIONS`` = {K.N_ACTIONS}" in doc
    for action in (K.A_DISCARD, K.A_KNOCK, K.A_BIG_GIN, K.A_PLAY_ON, K.A_ARRANGE, K.A_WAIT):
        assert any(re.match(rf"{action}\b", cell) for cell in first_cells), action


def test_random_legal_is_uniform_over_the_legal_actions():
    masks = np.zeros((3, spaces.N_ACTIONS), dtype=np.int8)
    masks[0, [4, 9, 60]] = 1
    masks[1, 2] = 1  # row 2: nothing legal (an ended episode)
    rng = np.random.default_rng(0)
    draws = np.array([spaces.random_legal(masks, rng) for _ in range(3000)])
    values, counts = np.unique(draws[:, 0], return_counts=True)
    assert values.tolist() == [4, 9, 60] and all(900 < c < 1100 for c in counts)  # 1000 each, 4.5 sd
    assert (draws[:, 1] == 2).all() and (draws[:, 2] == 0).all()


def held_from_events(game: GameBoard) -> dict[int, set[int]]:
    """Each seat's cards known to be held, replayed from the events of the hand in play: a card taken from the pile
    is held until the taker throws it (a reference for the encoding's shortcut)."""
    hand = game.history[-1].hand
    held = {s: set() for s in range(game.players)}
    for event in (e for e in game.history if e.hand == hand):
        if event.name in ("take_upcard", "draw_pile"):
            held[event.seat].add(event.a)
        elif event.name in ("discard", "knock"):
            held[event.seat].discard(event.a)
    return held


def test_the_held_planes_replay_the_pile():
    """Every seat's P_HELD planes are the cards each other seat took from the pile and has not thrown since, cards
    thrown and taken again by the same seat included (the case the encoding replays its log for)."""
    retaken = 0
    for seed in range(30):
        for game, seat, kind in random_decisions(Rules().replace(players=2 + seed % 3), seed, 400):
            held = held_from_events(game)
            for observer in range(game.players):
                view = game.view(observer)
                obs, _ = spaces.observe(view, L.D_NONE)
                for r in range(1, game.players):
                    other = (observer + r) % game.players
                    shown = set(np.flatnonzero(obs[(K.P_HELD + r - 1) * 52 : (K.P_HELD + r) * 52]).tolist())
                    assert shown == held[other] - pile_of_cards(view), (seed, observer, other)
                    retaken += bool(view[L.V_TAKEN + other] & view[L.V_DISCARDED + other])
    assert retaken > 0  # the replayed case was met


def pile_of_cards(view) -> set[int]:
    return set(int(c) for c in view[L.V_PILE : L.V_PILE + view[L.V_PILE_SIZE]])


def test_a_board_without_events_plays_the_same_game():
    """``GameBoard(events=False)`` (the AEC env's) keeps no event history and plays exactly the game with one."""
    simple = resolve("simple")
    boards = [GameBoard(Rules().replace(players=3), seed=8, events=events) for events in (True, False)]
    while (asked := boards[0].next_decision()) is not None:
        assert boards[1].next_decision() == asked
        seat, kind = asked
        answer = simple.decide(kind, boards[0].view(seat), simple.vector())
        for board in boards:
            board.apply(seat, kind, answer)
    assert boards[1].next_decision() is None and boards[0].result() == boards[1].result()
    assert np.array_equal(np.array(boards[0].records), np.array(boards[1].records))
    assert boards[0].events() and not boards[1].events()
