"""The public history of the hand, turn by turn, and what it says about the opponent.

Written as turns separated by ``;`` (or given as a list of turns), each
``<who> <draw> [<discard>]``, from the first offer of the upcard on::

    opp pass; me pass; opp stock 8d; me pile 4s; opp stock Qh; me stock

``who`` is ``me`` or ``opp``; ``draw`` is ``pass`` (the first upcard),
``upcard`` (took it), ``pile`` (took the top of the pile) or ``stock``. The
last turn may be yours without a discard: you have drawn and are deciding.
The history fixes the pile, the cards the opponent took, the stock, the
passes and the dealer, and it is replayed on an engine board so that the
opponent's view at each of its decisions is exactly what the engine showed
it (``Evidence``): the worlds are then weighted by how likely the named
opponent was to play as it did (``advise_history_nb``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oklasim._kernels import advise_history_nb as H
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim._kernels.rng_nb import HISTORY_VIEWS
from oklasim.errors import OklasimError
from oklasim.game.cards import N_CARDS, format_card, mask_of, parse_card
from oklasim.game.rules import Rules

ME, OPP = 0, 1  # seats in the advisor's views
DRAWS = ("pass", "upcard", "pile", "stock")
WHO = {"me": ME, "opp": OPP, "opponent": OPP}


@dataclass(frozen=True)
class Turn:
    seat: int  # ME or OPP
    draw: str  # one of DRAWS
    discard: int | None  # None: a pass, or your own last turn (drawn, deciding)


@dataclass(frozen=True)
class Replay:
    """What the history fixes (the arguments of ``read_position``), my view row, and the evidence."""

    pile: tuple[int, ...]
    opponent_took: int
    took: int | None
    passed: int  # passes of the first upcard (read_position uses them only on the first turn)
    dealer: str
    view: np.ndarray  # my view row after the history (its hand is filled in by the caller)
    turns: np.ndarray  # the opponent's turns, N_TURN_FIELDS each
    snapshots: np.ndarray  # its views at each turn: [turn, SNAP_CHOICE / SNAP_AFTER, V_SIZE]


def parse_history(value) -> list[Turn]:
    """Turns from text (``;``-separated) or a list of turn strings; ``ValueError`` on a bad one."""
    items = value.split(";") if isinstance(value, str) else list(value)
    turns = []
    for number, item in enumerate(items, 1):
        words = str(item).split()
        if not words:
            continue
        where = f"history turn {number} ({str(item).strip()!r})"
        if words[0].lower() not in WHO or len(words) < 2 or words[1].lower() not in DRAWS or len(words) > 3:
            raise OklasimError(f"{where}: write <me|opp> <pass|upcard|pile|stock> [discard]")
        draw = words[1].lower()
        discard = None
        if len(words) == 3:
            if draw == "pass":
                raise OklasimError(f"{where}: a pass discards nothing")
            try:
                discard = parse_card(words[2])
            except ValueError as exc:
                raise OklasimError(f"{where}: {exc}") from None
        turns.append(Turn(WHO[words[0].lower()], draw, discard))
    return turns


def replay(turns: list[Turn], upcard: int, rules: Rules, scores: tuple[int, int] | None, hand: int) -> Replay:
    """Play the public history on an engine board, checking that it can have happened; ``ValueError`` if not."""
    if not turns:
        raise OklasimError("history: give at least the first turn")
    board = np.zeros((L.BOARD_ROWS, L.V_SIZE), dtype=np.int64)
    E.load_rules_nb(board, rules.to_array())
    dealer = 1 - turns[0].seat  # the non-dealer is offered the upcard first
    start = rules.hand_size * 2
    board[L.HIDDEN, L.S_DECK + start] = upcard
    board[L.HIDDEN, L.S_STOCK_POS] = start
    E.start_hand_nb(board, dealer, 0, np.array(list(scores or (0, 0)) + [0, 0], dtype=np.int64))
    E.seed_views_nb(board, HISTORY_VIEWS, 0)
    taken = [0, 0]  # cards each seat took from the pile and still holds
    passes, offers_open = 0, True
    opp_turns, snapshots, unknown_discards = [], [], []
    took = None
    for i, turn in enumerate(turns):
        where = f"history turn {i + 1} ({_describe(turn)})"
        if i > 0 and turn.seat == turns[i - 1].seat:
            whose = "the opponent's" if turn.seat == ME else "yours"
            raise OklasimError(f"{where}: turns alternate, and this one is {whose}")
        last = i == len(turns) - 1
        if turn.discard is None and turn.draw != "pass" and not (last and turn.seat == ME):
            raise OklasimError(f"{where}: name the card discarded (only your own last turn may stop at the draw)")
        choice = board[turn.seat].copy()
        if turn.draw == "pass":
            if not offers_open:
                raise OklasimError(f"{where}: only the first upcard can be passed")
            passes += 1
            board[: 2, L.V_PASSED + turn.seat] = 1
            offers_open = passes < 2
            if turn.seat == OPP:
                opp_turns.append([H.TURN_PASS, L.NO_CARD, L.NO_CARD, L.NO_CARD, 0])
                snapshots.append([choice, choice])
            continue
        if turn.draw == "upcard" and not offers_open:
            raise OklasimError(f"{where}: the upcard can be taken only on the first offer; later write 'pile'")
        if turn.draw == "pile" and offers_open:
            raise OklasimError(f"{where}: on the first offer write 'upcard' or 'pass'")
        forced = turn.draw == "stock" and passes == 2 and board[0, L.V_DRAWS] == 0
        if turn.draw == "stock" and offers_open:
            raise OklasimError(f"{where}: on the first offer write 'upcard' or 'pass'")
        offers_open = False
        if turn.draw in ("upcard", "pile"):
            if board[0, L.V_PILE_SIZE] == 0:
                raise OklasimError(f"{where}: the pile is empty")
            card = int(E.draw_nb(board, turn.seat, True))
            taken[turn.seat] |= 1 << card
        else:
            if board[0, L.V_STOCK_LEFT] <= 2:
                raise OklasimError(f"{where}: the stock is down to 2 cards; the hand is over")
            board[L.HIDDEN, L.S_DECK + board[L.HIDDEN, L.S_STOCK_POS]] = 0  # a stand-in: the card is private
            E.draw_nb(board, turn.seat, False)
            card = L.NO_CARD
        forbidden = card if card >= 0 and not rules.discard_taken_card else L.NO_CARD
        after = board[turn.seat].copy()
        if turn.discard is None:
            took = card if card >= 0 else None
            break
        d = turn.discard
        if d == forbidden:
            raise OklasimError(f"{where}: the card taken from the pile may not go straight back")
        if board[0, L.V_PILE_MASK] >> d & 1 or taken[1 - turn.seat] >> d & 1:
            raise OklasimError(f"{where}: {format_card(d)} cannot be discarded: it is elsewhere")
        if turn.seat == OPP:
            if not taken[OPP] >> d & 1:
                unknown_discards.append((len(opp_turns), d))
            kind = {"upcard": H.TURN_UPCARD, "pile": H.TURN_PILE}.get(
                turn.draw, H.TURN_FORCED_STOCK if forced else H.TURN_STOCK)
            opp_turns.append([kind, card, d, forbidden, 0])
            after[L.V_ASKED] = d  # what a family confirming its discards is asked (D_CONFIRM_DISCARD)
            snapshots.append([choice, after])
        taken[turn.seat] &= ~(1 << d)
        E.discard_nb(board, turn.seat, d)
    pile = tuple(int(c) for c in board[0, L.V_PILE : L.V_PILE + board[0, L.V_PILE_SIZE]])
    theirs = taken[OPP] | (int(board[0, L.V_DISCARDED + OPP]) & ~int(board[0, L.V_TAKEN + ME]))
    if hand & theirs:
        raise OklasimError("history: your hand holds a card the opponent has or threw (and you did not take)")
    unseen = ((1 << N_CARDS) - 1) & ~hand & ~mask_of(pile) & ~taken[OPP]
    turns_array = np.array(opp_turns, dtype=np.int64).reshape(-1, H.N_TURN_FIELDS)
    for index, d in unknown_discards:  # its stock draws: an unseen card, or one it threw later
        turns_array[: index + 1, H.T_ELIGIBLE] |= 1 << d
    turns_array[:, H.T_ELIGIBLE] |= unseen
    shots = np.array(snapshots, dtype=np.int64).reshape(-1, 2, L.V_SIZE)
    view = board[ME].copy()
    return Replay(pile=pile, opponent_took=int(board[0, L.V_TAKEN + OPP]), took=took,
                  passed=passes,
                  dealer="me" if dealer == ME else "opponent", view=view,
                  turns=np.ascontiguousarray(turns_array), snapshots=np.ascontiguousarray(shots))


def _describe(turn: Turn) -> str:
    who = "me" if turn.seat == ME else "opp"
    return " ".join([who, turn.draw] + ([format_card(turn.discard)] if turn.discard is not None else []))
