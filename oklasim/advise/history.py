"""The public history of the hand, turn by turn, and what it says about the opponent.

Written as turns separated by ``;`` (or given as a list of turns), each
``<who> <draw> [<discard>]``, from the first offer of the upcard on::

    opp pass; me pass; opp stock 8d; me pile 4s; opp stock Qh; me stock

``who`` is ``me`` or ``opp``; ``draw`` is ``pass`` (the first upcard),
``upcard`` (took it), ``pile`` (took the top of the pile) or ``stock``. The
last turn may be yours without a discard: you have drawn and are deciding.
The history fixes the pile, the cards the opponent took, the stock, the
passes and the dealer. It is played on the engine's step machine (the hidden
cards a completion, ``oklasim.sim.completion``), which refuses an impossible
turn with the reason any referee of oklasim gives, and the opponent's view at
each of its decisions is exactly what the engine showed it (``Evidence``):
the worlds are then weighted by how likely the named opponent was to play as
it did (``advise_history_nb``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from oklasim._kernels import advise_history_nb as H
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim._kernels.rng_nb import HISTORY_VIEWS
from oklasim.advise.request import FieldError
from oklasim.game.cards import N_CARDS, format_card, mask_of, parse_card
from oklasim.game.rules import Rules
from oklasim.sim.board import Event, IllegalMove, pile_of
from oklasim.sim.completion import CompletedBoard, Unseen

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
        where = (number, repr(str(item).strip()))
        if words[0].lower() not in WHO or len(words) < 2 or words[1].lower() not in DRAWS or len(words) > 3:
            raise _refused(where, "write <me|opp> <pass|upcard|pile|stock> [discard]")
        draw = words[1].lower()
        discard = None
        if len(words) == 3:
            if draw == "pass":
                raise _refused(where, "a pass discards nothing")
            try:
                discard = parse_card(words[2])
            except ValueError as exc:
                raise _refused(where, exc) from None
        turns.append(Turn(WHO[words[0].lower()], draw, discard))
    return turns


def replay(turns: list[Turn], upcard: int, rules: Rules, scores: tuple[int, int] | None, hand: int) -> Replay:
    """Play the public history on the engine's step machine (the hidden cards a completion), checking that it can
    have happened; ``ValueError`` if not."""
    if not turns:
        raise FieldError("{history}: give at least the first turn")
    dealer = 1 - turns[0].seat  # the non-dealer is offered the upcard first
    game = CompletedBoard(rules, observer=None)
    game.deal(dealer, 0, list(scores or (0, 0)), upcard)
    E.seed_views_nb(game.board, HISTORY_VIEWS, 0)
    opp_turns, snapshots, unknown_discards = [], [], []
    took, passes = None, 0
    for i, turn in enumerate(turns):
        where = (i + 1, _describe(turn))
        if turn.discard is None and turn.draw != "pass" and not (i == len(turns) - 1 and turn.seat == ME):
            raise _refused(where, "name the card discarded (only your own last turn may stop at the draw)")
        choice = game.board[turn.seat].copy()
        try:
            card = _draw(game, turn)
        except IllegalMove as refusal:
            raise _refused(where, refusal.reason) from None
        if turn.draw == "pass":
            passes += 1
            if turn.seat == OPP:
                opp_turns.append([H.TURN_PASS, L.NO_CARD, L.NO_CARD, L.NO_CARD, 0])
                snapshots.append([choice, choice])
            continue
        after = game.board[turn.seat].copy()
        E.close_knock_offer_nb(after)  # the view at the draw's end: the completion's knock offer means nothing
        after[L.V_FORBIDDEN] = L.NO_CARD
        if turn.discard is None:
            took = card if card >= 0 else None
            break
        d = turn.discard
        known = game.held_known[turn.seat] >> d & 1
        try:
            game.discard(turn.seat, d)
        except Unseen:
            raise _refused(where, f"{format_card(d)} cannot be discarded: it is elsewhere") from None
        except IllegalMove as refusal:
            raise _refused(where, refusal.reason) from None
        if turn.seat == OPP:
            if not known:
                unknown_discards.append((len(opp_turns), d))
            forced = turn.draw == "stock" and choice[L.V_PASSED + ME] and choice[L.V_PASSED + OPP] and not choice[L.V_DRAWS]
            kind = {"upcard": H.TURN_UPCARD, "pile": H.TURN_PILE}.get(
                turn.draw, H.TURN_FORCED_STOCK if forced else H.TURN_STOCK)
            forbidden = card if card >= 0 and not rules.discard_taken_card else L.NO_CARD
            opp_turns.append([kind, card, d, forbidden, 0])
            after[L.V_ASKED] = d  # what a family confirming its discards is asked (D_CONFIRM_DISCARD)
            snapshots.append([choice, after])
    view = game.board[ME]
    pile = tuple(pile_of(view))
    theirs = game.held_known[OPP] | (int(view[L.V_DISCARDED + OPP]) & ~int(view[L.V_TAKEN + ME]))
    if hand & theirs:
        raise FieldError("{history}: your hand holds a card the opponent has or threw (and you did not take; "
                         "{hand})")
    unseen = ((1 << N_CARDS) - 1) & ~hand & ~mask_of(pile) & ~game.held_known[OPP]
    turns_array = np.array(opp_turns, dtype=np.int64).reshape(-1, H.N_TURN_FIELDS)
    for index, d in unknown_discards:  # its stock draws: an unseen card, or one it threw later
        turns_array[: index + 1, H.T_ELIGIBLE] |= 1 << d
    turns_array[:, H.T_ELIGIBLE] |= unseen
    shots = np.array(snapshots, dtype=np.int64).reshape(-1, 2, L.V_SIZE)
    return Replay(pile=pile, opponent_took=int(view[L.V_TAKEN + OPP]), took=took, passed=passes,
                  dealer="me" if dealer == ME else "opponent", view=view.copy(),
                  turns=np.ascontiguousarray(turns_array), snapshots=np.ascontiguousarray(shots))


def _refused(where: tuple[int, str], reason) -> FieldError:
    """The error of one turn of the history: ``where`` is its number and how it reads."""
    number, text = where
    return FieldError("{history} turn {number} ({text}): {reason}", number=number, text=text, reason=reason)


def _draw(game: CompletedBoard, turn: Turn) -> int:
    """Play the turn's pass or draw; returns the card taken from the pile (NO_CARD: none, or the stock's)."""
    if game.phase == L.PHASE_FORCED_STOCK:  # both passed: the machine draws the stock by itself
        if turn.draw != "stock" or turn.seat != game.turn:
            raise IllegalMove(turn.seat, _unasked(turn, game.turn, L.D_DRAW))
        game.pending()
        return L.NO_CARD
    seat, kind = game.pending()
    answer = {"pass": 0, "upcard": 1, "pile": 1, "stock": 0}[turn.draw]
    wanted = L.D_TAKE_UPCARD if turn.draw in ("pass", "upcard") else L.D_DRAW
    if (seat, kind) != (turn.seat, wanted):
        raise IllegalMove(turn.seat, _unasked(turn, seat, kind))
    game.apply(seat, kind, answer)
    return int(game.board[seat, L.V_DRAWN]) if answer else L.NO_CARD


def _unasked(turn: Turn, seat: int, kind: int) -> str:
    """Why the machine does not take this turn here, in the history's words."""
    if kind == L.D_NONE or kind == L.D_KNOCK:
        return "the stock is down to 2 cards; the hand is over"
    if seat != turn.seat:
        return f"turns alternate, and this one is {'yours' if seat == ME else 'the opponent'}'s"
    if kind == L.D_TAKE_UPCARD:
        return "on the first offer write 'upcard' or 'pass'"
    return "only the first upcard can be passed or taken; later write 'pile' or 'stock'"


def _describe(turn: Turn) -> str:
    who = "me" if turn.seat == ME else "opp"
    return " ".join([who, turn.draw] + ([format_card(turn.discard)] if turn.discard is not None else []))


DRAW_WORDS = {"take_upcard": "upcard", "draw_pile": "pile", "draw_stock": "stock"}


def history_text(events: Iterable[Event], me: int) -> str:
    """The hand's history in the format above, from the engine's events of one two-player hand (``Event``) as
    seat ``me`` saw them: what a table passes to the advisor."""
    turns: list[str] = []
    for event in events:
        who = "me" if event.seat == me else "opp"
        if event.name == "pass":
            turns.append(f"{who} pass")
        elif event.name in DRAW_WORDS:
            turns.append(f"{who} {DRAW_WORDS[event.name]}")
        elif event.name == "discard":
            turns[-1] += f" {format_card(event.a)}"
    return "; ".join(turns)
