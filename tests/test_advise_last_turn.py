"""Without a history: the opponent's latest turn, rebuilt from the position, weighs the worlds."""

import numpy as np

from oklasim._kernels import advise_history_nb as H
from oklasim._kernels import layout as L
from oklasim.advise import advise
from oklasim.advise.played import positions_from_play, without_history
from oklasim.advise.request import Request
from oklasim._kernels.advise_latest_nb import LATEST_TURN_DRAWS
from oklasim.advise.worlds import estimated_opponent_draws, worlds_for
from oklasim.game.rules import Rules

FAST = {"opponent": "greedy", "me": "simple", "max_samples": 512, "max_seconds": None, "precision": None, "seed": 4}
PUBLIC = (L.V_UPCARD, L.V_KNOCK_LIMIT, L.V_STOCK_LEFT, L.V_PILE_SIZE, L.V_PILE_MASK, L.V_SEAT, L.V_DEALER,
          L.V_TAKEN + 1)
# What the position holds only when seat 0 took nothing from the pile before this turn: its takes are in its hand.
COUNTED = (L.V_DRAWS, L.V_MY_DRAWS, L.V_TAKEN)


def stock_turn_positions(opponent: str, count: int):
    """Positions from play (seat 0 after its draw, the opponent's latest draw from the stock), told without their
    history (their worlds), with the views the history's replay saw at that turn; in some the opponent or seat 0 had
    taken cards from the pile."""
    found = []
    for request, _, _ in positions_from_play(Rules(), ["simple", opponent], 300, 8, with_history=True):
        turns, snaps, _ = worlds_for(Request(**request)).evidence
        if len(turns) and turns[-1, H.T_KIND] == H.TURN_STOCK:
            found.append((worlds_for(Request(**without_history(request))), snaps[-1]))
        if len(found) == count:
            break
    return found


def test_the_latest_turn_is_rebuilt_as_the_replay_saw_it():
    """The opponent's views at its latest turn, rebuilt from the position alone, agree with those of the history's
    replay on everything public the position holds (not who discarded what, who passed, nor seat 0's earlier takes)."""
    found = stock_turn_positions("expert", 25)
    assert len(found) == 25 and any(w.position.took is not None for w, _ in found)
    counted = 0
    for worlds, replayed in found:
        position = worlds.position
        assert worlds.model == "played" and worlds.opponent_turns == 1
        turns, rebuilt, _ = worlds.evidence
        assert turns[0, H.T_KIND] == H.TURN_STOCK and turns[0, H.T_ELIGIBLE] == position.unseen
        assert turns[0, H.T_DISCARD] == (position.took if position.took is not None else position.pile[-1])
        for snap in (H.SNAP_CHOICE, H.SNAP_AFTER):
            where = (position.describe(), snap)
            assert [rebuilt[0, snap, f] for f in PUBLIC] == [replayed[snap, f] for f in PUBLIC], where
            size = replayed[snap, L.V_PILE_SIZE]
            assert np.array_equal(rebuilt[0, snap, L.V_PILE : L.V_PILE + size],
                                  replayed[snap, L.V_PILE : L.V_PILE + size]), where
            if replayed[snap, L.V_TAKEN] == rebuilt[0, snap, L.V_TAKEN]:
                assert [rebuilt[0, snap, f] for f in COUNTED] == [replayed[snap, f] for f in COUNTED], where
                counted += 1
        assert rebuilt[0, H.SNAP_AFTER, L.V_ASKED] == replayed[H.SNAP_AFTER, L.V_ASKED]
    assert counted >= 10


def test_without_history_the_latest_turn_weighs_the_worlds():
    request = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s", "upcard": "6c", "pile": "6c 4s Qh 2c", "stock": 27,
               "opponent_took": "8d"}
    worlds = worlds_for(Request(**request))
    assert worlds.model == "played" and worlds.opponent_turns == 1
    turns = estimated_opponent_draws(worlds.position) - 1 + 1  # its stock draws before the latest, and its take
    assert worlds.prior.tolist() == [min(turns, LATEST_TURN_DRAWS), 0, L.NO_CARD]
    advice = advise(**request, **FAST)
    assert advice.prior == "played" and advice.opponent_turns == 1 and 0 < advice.ess < advice.samples
    assert "latest discard" in advice.worlds_text and "the history is closer" in advice.assumptions
    uniform = advise(**request, **FAST | {"prior": "uniform"})
    assert uniform.prior == "uniform" and uniform.ess == uniform.samples


def test_before_its_first_stock_draw_the_prior_is_repaired_as_before():
    request = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s", "upcard": "6c", "pile": "6c", "stock": 30}
    worlds = worlds_for(Request(**request, passed=2))
    assert worlds.model == "played" and worlds.opponent_turns == 0


def test_the_strategies_weigh_the_latest_turn_with_the_advisors_slip():
    from oklasim._kernels.advise_latest_nb import DEFAULT_SLIP

    assert DEFAULT_SLIP == Request().slip
