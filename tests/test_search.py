"""search: expert's play, each knock searched over worlds that the opponent's play this hand weighs."""

import numpy as np

from oklasim._kernels import layout as L
from oklasim.analysis.match import match
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard
from oklasim.sim.engine import simulate
from oklasim.strategies.registry import resolve

QUICK = "search(samples=96)"  # 32 worlds weighed exactly, then the roulette


def test_search_is_mc_with_expert_and_the_history_weighed():
    """The same machinery as mc: with the history prior (the hand's log), the roulette and expert in both seats the
    games are the same, decision by decision; the latest turn alone plays other games: the earlier turns change the
    choices. (Without search's knock margin: mc takes the plain maximum.)"""
    searched = simulate(strategies=["search(samples=96,knock_margin=0)", "expert"], hands=300, seed=6).hands
    mc = "mc(samples=96,continuation=expert,opponent=expert,prior={},roulette={})"
    same, latest, exact = (simulate(strategies=[mc.format(prior, roulette), "expert"], hands=300, seed=6).hands
                           for prior, roulette in (("history", 0.1), ("latest_turn", 0.1), ("history", 0)))
    assert searched.equals(same)
    assert not searched.equals(latest)
    assert not searched.equals(exact)  # the roulette drops other worlds than the exact weights would


def test_without_a_readable_log_the_history_prior_weighs_the_latest_turn():
    """A view whose log is out of step (a board built from a position, not played) is weighed by the latest turn."""
    from test_advise_log import seat_zero_decisions

    history, latest = (resolve(f"mc(samples=32,continuation=expert,opponent=expert,prior={p})")
                       for p in ("history", "latest_turn"))
    answers = []
    for view, kind, _ in seat_zero_decisions(Rules.preset("eaai"), 4, games=1):
        if kind != L.D_KNOCK or view[L.V_DRAWS] < 6:
            continue
        unread = view.copy()
        unread[L.V_LOG_TURNS] = 0
        pair = [strategy.decide(kind, v.copy(), strategy.vector()) for strategy, v in ((history, unread),
                                                                                       (latest, view))]
        assert pair[0] == pair[1], pair
        answers.append(pair[0])
    assert len(answers) >= 5


def test_search_replays_from_its_seed_whatever_the_workers():
    one, two = (match(QUICK, "expert", Rules.preset("eaai"), hands=100, seed=9, workers=w) for w in (1, 2))
    assert one.as_dict() == two.as_dict()


def test_search_decides_in_the_agent_as_in_the_engine():
    """The agent's seat (and so the EAAI referee through interop/eaai) gets the same answers as the engine's."""
    from test_agent import follow

    assert follow(Rules.preset("eaai"), ["search:search_fast", "expert"], seed=12, games=6) > 50


def test_search_models_an_opponent_seen_knocking_at_once_as_a_knocker():
    """No showdown yet: the model is expert (search's own prior, at knocker_below); an opponent whose showdowns are
    knocks short of gin is modelled knocking whenever legal; knocker_below 0 never does."""
    from oklasim.strategies.families import search as S

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    params, never = (resolve(spec).vector() for spec in ("search", "search(knocker_below=0)"))
    assert (S.opponent_model_nb(view, params)[0] == S.MC.EXPERT_PARAMS).all()
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_KNOCKS] = 1  # one knock: 1 of 3 with the prior, below 0.5
    assert (S.opponent_model_nb(view, params)[0] == S.KNOCKER_PARAMS).all()
    assert (S.opponent_model_nb(view, never)[0] == S.MC.EXPERT_PARAMS).all()
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_HELD] = 2  # then two hands held: 3 of 5
    assert (S.opponent_model_nb(view, params)[0] == S.MC.EXPERT_PARAMS).all()
    assert not (S.KNOCKER_PARAMS == S.MC.EXPERT_PARAMS).all()


def test_with_knocker_holds_a_knocker_declines_with_the_chance_it_was_seen_holding():
    """knocker_holds=1 (the default): the knocker model's slip at knock decisions is the opponent's chance of holding
    hands it could knock with; the expert model, and knocker_holds=0, keep the plain slip."""
    from oklasim._kernels.advise_latest_nb import DEFAULT_SLIP
    from oklasim.strategies.families import search as S

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    holds, plain = (resolve(spec).vector() for spec in ("search", "search(knocker_holds=0)"))
    assert S.opponent_model_nb(view, holds)[1] == DEFAULT_SLIP  # no showdown: the model is expert
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_KNOCKS] = 2  # two knocks: 1 of 4 with the prior
    assert (S.opponent_model_nb(view, holds)[0] == S.KNOCKER_PARAMS).all()
    assert S.opponent_model_nb(view, holds)[1] == 0.25
    assert S.opponent_model_nb(view, plain)[1] == DEFAULT_SLIP
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_KNOCKS] = 1000  # a knocker through and through: never below the slip
    assert S.opponent_model_nb(view, holds)[1] == DEFAULT_SLIP


def test_the_slip_weighs_the_worlds():
    """slip, the chance the opponent strays from its model where its play weighs the worlds, is the advisor's
    calibrated one by default; another plays other hands."""
    from oklasim._kernels.advise_latest_nb import DEFAULT_SLIP

    assert dict(resolve("search").values)["slip"] == DEFAULT_SLIP
    plain, loose = (simulate(strategies=[f"search(samples=96{more})", "expert"], hands=150, seed=6).hands
                    for more in ("", ",slip=0.2"))
    assert not plain.equals(loose)


def test_search_can_model_the_opponent_by_a_knock_timing_fitted_to_the_showdowns():
    """model=2: expert knocking whenever legal up to the fitted switch, with deadwood up to the fitted threshold after;
    the prior before a showdown."""
    from oklasim.strategies.families import expert as X
    from oklasim.strategies.families import search as S
    from test_styles import showings

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    params = resolve("search(model=2,timing_switch=3)").vector()
    timing = (X.EARLY_DRAWS, X.GIN_AFTER_DRAWS, X.LATE_THRESHOLD, X.HOLDER_EARLY_DRAWS, X.HOLDER_LATE_THRESHOLD)
    assert tuple(S.opponent_model_nb(view, params)[0][list(timing)]) == (3, X.NEVER, 0, 3, 0)
    showings(view, 1, knocks=[(2, 8), (7, 2), (9, 3), (11, 4)], held=[(6, 7), (8, 9), (10, 6)])
    fitted = S.opponent_model_nb(view, params)[0]
    assert (fitted[X.EARLY_DRAWS], fitted[X.LATE_THRESHOLD]) == (3, 4)
    plain = np.delete(np.arange(len(fitted)), [*timing, X.HOLDER_GIN_AFTER_DRAWS, X.MAX_UNDERCUT_RISK,
                                               X.HOLDER_MAX_UNDERCUT_RISK])
    assert (fitted[plain] == S.MC.EXPERT_PARAMS[plain]).all()  # the rest is expert's
    assert (S.opponent_model_nb(view, resolve("search(model=0)").vector())[0] == S.MC.EXPERT_PARAMS).all()


def test_the_mixtures_prior_is_the_showdowns_holding_chance_split_by_plain_share():
    """model=3: expert and the knocker, full and plain, their prior chances the holding chance (as model 1 reads it)
    and one minus it, split by plain_share; the plain rows carry expert_plain's weights and nothing else differs."""
    from oklasim.strategies.families import expert as X
    from oklasim.strategies.families import search as S

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    params = resolve("search(model=3,plain_share=0.2)").vector()
    models, codes, prior, slip = S.opponent_models_nb(view, params)
    assert np.allclose(prior, [0.4, 0.4, 0.1, 0.1])  # no showdown: holding_prior 0.5
    assert codes.tolist() == [S.M.CONTINUE_EXPERT] * 4
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_KNOCKS] = 2  # two knocks: holding 1 of 4
    models, codes, prior, slip = S.opponent_models_nb(view, params)
    assert np.allclose(prior, [0.2, 0.6, 0.05, 0.15]) and slip == dict(resolve("search").values)["slip"]
    assert (models[0] == S.MC.EXPERT_PARAMS).all() and (models[1] == S.KNOCKER_PARAMS).all()
    plain = list(X.FAMILY.indexes(*X.FAMILY.presets["expert_plain"]))
    assert (models[2:, plain] == 0).all() and not (models[:2, plain] == 0).all()
    rest = np.delete(np.arange(models.shape[1]), plain)
    assert (models[2:, rest] == models[:2, rest]).all()
    single, code, one, _ = S.opponent_models_nb(view, resolve("search").vector())  # models 0 to 2: one row, chance 1
    assert single.shape == (1, models.shape[1]) and (single[0] == S.KNOCKER_PARAMS).all() and one.tolist() == [1.0]
    assert code.tolist() == [S.M.CONTINUE_EXPERT]


def test_the_worlds_are_split_among_the_models_by_their_prior():
    """Each model's block of worlds is its share of the samples (largest remainders; none for a chance of 0), and
    its scale (chance over share) makes the stratified weighted average the mixture's."""
    from oklasim._kernels.mc_nb import model_blocks_nb

    bounds, scales = model_blocks_nb(np.array([0.5, 0.25, 0.0, 0.25]), 10)
    assert bounds.tolist() == [0, 5, 8, 8, 10] or bounds.tolist() == [0, 5, 7, 7, 10]
    sizes = np.diff(bounds)
    assert np.allclose(scales[sizes > 0] * sizes[sizes > 0], np.array([0.5, 0.25, 0.25]) * 10) and scales[2] == 0
    bounds, scales = model_blocks_nb(np.array([2.0, 1.0, 1.0]), 4096)  # chances need not sum to 1
    assert bounds.tolist() == [0, 2048, 3072, 4096] and np.allclose(scales, 1.0)
    bounds, scales = model_blocks_nb(np.ones(1), 96)
    assert bounds.tolist() == [0, 96] and scales.tolist() == [1.0]


def test_a_mixture_that_holds_one_model_plays_as_that_model():
    """With every chance on expert (no showdown seen, holding_prior 1, plain_share 0) the mixture draws and weighs
    the very worlds of model 0, roulette and all: the same answer at every knock decision. With its defaults it
    answers otherwise somewhere."""
    expert = resolve("expert")
    specs = ("search(samples=96,model=0)", "search(samples=96,model=3,holding_prior=1,plain_share=0)",
             "search(samples=96,model=3,knock_margin=0)")
    searched = [resolve(spec) for spec in specs]
    answers = []
    for game in range(3):
        board = GameBoard(Rules.preset("eaai"), 900, game, events=False)
        while (asked := board.next_decision()) is not None:
            seat, kind = asked
            view = board.view(seat)
            if seat == 0 and kind == L.D_KNOCK:
                unseen = view.copy()
                unseen[L.V_STYLE : L.V_STYLE_END] = 0  # no showdown seen: the holding chance is its prior
                answers.append([s.decide(kind, unseen.copy(), s.vector()) for s in searched])
            board.apply(seat, kind, expert.decide(kind, view, expert.vector()))
    assert len(answers) >= 10
    assert all(a[0] == a[1] for a in answers)
    assert any(a[0] != a[2] for a in answers)


def test_the_rulebook_mixture_crosses_three_timings_two_pickups_and_two_discard_habits():
    """model=4: twelve distinct rulebook players, the timings' prior chances one minus the holding chance, one and the
    holding chance, the same for every pickup and discard habit; rulebook plays in greedy's place, weighed as its
    family declares."""
    from oklasim.strategies.families import search as S
    from oklasim.strategies.registry import history_traits

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_KNOCKS] = 2  # two knocks: holding 1 of 4
    models, codes, prior, _ = S.opponent_models_nb(view, resolve("search(model=4)").vector())
    assert codes.tolist() == [S.M.CONTINUE_GREEDY] * 12
    assert models.shape == (12, len(S.RULEBOOK.FAMILY.params)) and len({tuple(row) for row in models}) == 12
    assert np.allclose(prior, np.repeat([0.75, 1.0, 0.25], 4))
    early, gin_after, gain = S.RULEBOOK.FAMILY.indexes("early_draws", "gin_after_draws", "take_gain")
    assert models[:4, early].tolist() == [99] * 4 and models[8:, gin_after].tolist() == [0] * 4
    assert models[:, gain].tolist() == [99, 99, 1, 1] * 3
    assert S.RULEBOOK_TRAITS[S.M.CONTINUE_GREEDY] == history_traits(S.RULEBOOK.FAMILY)
    assert (np.delete(S.RULEBOOK_TRAITS, S.M.CONTINUE_GREEDY) == np.delete(S.MC.TRAITS, S.M.CONTINUE_GREEDY)).all()


def test_carry_adds_each_window_of_new_turns_once_and_multiplies_the_next_hands_prior_by_it():
    """remember_hand_nb adds each model's log evidence over the best's (at least FLOOR; an empty block the others'
    mean) where the decision weighed only turns not counted yet (window 0: the whole hand, which replaces it); at the
    next hand's first decision it joins the game's, which raises the prior to the power carry."""
    from oklasim.strategies.families import search as S

    def hand(view):
        return view[S.HAND_EVIDENCE : S.HAND_EVIDENCE + 4] / S.LOG_SCALE

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    S.remember_hand_nb(view, np.array([0.5, 0.05, 0.0, -1.0]), 3, 3)  # turns 1 to 3
    logs = np.array([0.0, np.log(0.1), S.FLOOR])
    logs = np.append(logs, logs.mean())
    assert np.allclose(hand(view), logs, atol=1e-4) and not view[S.GAME_EVIDENCE : S.HAND_EVIDENCE].any()
    assert view[S.COUNTED_TURNS] == 3
    S.remember_hand_nb(view, np.full(4, -1.0), 6, 3)  # a decision not searched: nothing learnt
    S.remember_hand_nb(view, np.array([0.2, 0.2, 0.2, 0.2]), -1, 3)  # no log: nothing learnt
    S.remember_hand_nb(view, np.array([0.01, 0.2, 0.2, 0.1]), 5, 3)  # turns 3 to 5: turn 3 counted already
    assert np.allclose(hand(view), logs, atol=1e-4) and view[S.COUNTED_TURNS] == 3
    later = np.log(np.array([0.01, 0.2, 0.2, 0.1]) / 0.2)
    S.remember_hand_nb(view, np.array([0.01, 0.2, 0.2, 0.1]), 6, 3)  # turns 4 to 6, all new
    assert np.allclose(hand(view), logs + later, atol=1e-3) and view[S.COUNTED_TURNS] == 6
    prior = np.array([0.25, 0.25, 0.25, 0.25])
    carried = S.carried_prior_nb(view, prior, 0.5, -1)  # the hand's first decision: the last hand joins the game's
    both = logs + later
    assert np.allclose(carried / carried.max(), np.exp(0.5 * (both - both.max())), rtol=1e-3)
    assert not view[S.HAND_EVIDENCE : S.HAND_EVIDENCE + S.MAX_MODELS].any() and view[S.HAND_FOLDED] == 1
    view[S.COUNTED_TURNS] = 0  # the next deal (the deal zeroes the hand's memory)
    S.remember_hand_nb(view, np.array([0.01, 0.2, 0.2, 0.1]), 2, 0)  # window 0: the whole hand, replaced each time
    S.remember_hand_nb(view, np.array([0.2, 0.02, 0.2, 0.2]), 3, 0)
    assert np.allclose(hand(view), np.log(np.array([1, 0.1, 1, 1])), atol=1e-4)
    again = S.carried_prior_nb(view, prior, 1.0, -1)  # later in the same hand: nothing folded twice
    assert np.allclose(again / again.max(), np.exp(both - both.max()), rtol=1e-3)


def test_with_fit_timing_the_grid_carries_its_habits_evidence_and_the_showdowns_weigh_the_timings():
    """habit_evidence_nb gives each of the grid's rows the log of its habit's mean likelihood over the timings
    (model 5's expert row, before the grid, untouched); timing_chances_nb weighs the timings by the game's showings,
    each against a timing by timing_slip, from holding_prior's chances."""
    from oklasim._kernels import engine_nb as E
    from oklasim.strategies.families import search as S

    rng = np.random.default_rng(5)
    logs = np.concatenate(([-0.5], rng.uniform(-7, 0, S.RULEBOOK_MODELS)))
    carried = logs.copy()
    S.habit_evidence_nb(carried, 1)
    grid = logs[1:].reshape(S.N_TIMINGS, S.RULES_PER_TIMING)
    habits = np.log(np.exp(grid).mean(axis=0))
    assert carried[0] == logs[0] and np.allclose(carried[1:], np.tile(habits, S.N_TIMINGS))
    assert S.TIMING_SHOWN.tolist() == [[L.SHOWN_MAX_DRAWS, 10], [3, 4], [0, 0]]

    board = np.zeros((L.BOARD_ROWS, L.V_SIZE), dtype=np.int64)  # show_nb publishes to every seat's row
    view = board[0]
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    params = resolve("search(model=4,fit_timing=1,holding_prior=0.4,timing_slip=0.1)").vector()
    base = np.array([0.6, 1.0, 0.4])
    assert np.allclose(S.timing_chances_nb(view, params), base)  # no showdown yet: the prior
    slot = L.V_STYLE + L.STYLE_FIELDS
    E.show_nb(board, slot, 6, 7, 1)  # a knock at 6 draws with 7: only whenever-legal knocks it
    E.show_nb(board, slot, 2, 9, 1)  # at 2 draws with 9: timings 0 and 1
    likelihood = np.array([0.9 * 0.9, 0.1 * 0.9, 0.1 * 0.1])
    chances = S.timing_chances_nb(view, params)
    assert np.allclose(chances / chances.sum(), base * likelihood / (base * likelihood).sum())
    view[slot + L.STYLE_KNOCKS] = 2  # (as a showdown counts them)
    unfitted = S.timing_chances_nb(view, resolve("search(model=4,holding_prior=0.4)").vector())
    assert np.allclose(unfitted[[0, 2]], [1 - 0.4 * 2 / 4, 0.4 * 2 / 4])  # the holding chance: 2 knocks, weight 2


def test_with_carry_the_game_weighs_the_rulebook_models_by_the_opponents_play_and_replays_from_its_seed():
    """Against a grid player that takes any pile card lowering its deadwood, a game's evidence favours the models
    with that pickup habit over those that take only what melds; the same game replays to the same memory."""
    from oklasim.strategies.families import search as S

    spec = "search(samples=64,model=4,carry=1,discards=3)"
    opponent = resolve("rulebook(take_gain=1,early_draws=3,late_threshold=4)")
    memories = []
    for _ in range(2):
        searcher = resolve(spec)
        board = GameBoard(Rules.preset("eaai"), 31, 0, events=False)
        while (asked := board.next_decision()) is not None:
            seat, kind = asked
            player = searcher if seat == 0 else opponent
            board.apply(seat, kind, int(player.decide(kind, board.view(seat), player.vector())))
        memories.append(board.view(0)[S.GAME_EVIDENCE : S.HAND_EVIDENCE + S.MAX_MODELS].copy())
    assert (memories[0] == memories[1]).all()
    assert not memories[0][S.RULEBOOK_MODELS : S.MAX_MODELS].any()  # model 4 has no thirteenth model
    game = memories[0][: S.RULEBOOK_MODELS] + memories[0][S.MAX_MODELS : S.MAX_MODELS + S.RULEBOOK_MODELS]
    by_pickup = game.reshape(len(S.TIMINGS), len(S.PICKUPS), len(S.DISCARD_HABITS)).sum(axis=(0, 2))
    assert by_pickup[1] > by_pickup[0], by_pickup  # PICKUPS: take what melds, take any gain


def test_model_5_puts_expert_beside_the_rulebook_grid():
    """model=5: expert (chance expert_share, played by expert's function) and the twelve rulebook players (the rest,
    shared as model 4 shares it, played in greedy's place), each row padded with zeros to the longer."""
    from oklasim.strategies.families import search as S

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_KNOCKS] = 2  # two knocks: holding 1 of 4
    models, codes, prior, _ = S.opponent_models_nb(view, resolve("search(model=5,expert_share=0.4)").vector())
    grid, _, rules, _ = S.opponent_models_nb(view, resolve("search(model=4)").vector())
    assert codes.tolist() == [S.M.CONTINUE_EXPERT] + [S.M.CONTINUE_GREEDY] * 12
    assert np.allclose(prior, np.concatenate(([0.4], 0.6 * rules / rules.sum())))
    assert (models[0, : len(S.MC.EXPERT_PARAMS)] == S.MC.EXPERT_PARAMS).all()
    assert (models[1:, : grid.shape[1]] == grid).all() and not models[1:, grid.shape[1] :].any()
