"""What the end of a hand and of a game show, as facts both tables tell: ``oklasim play`` as text (``hand_lines``,
``game_lines``), the web table as JSON (the same dicts).

The facts come from the referee: the hand's record (``layout.H_*``), every seat's cards at the end, and the
showdown's events (the knocker's melds as laid, each opponent's layoffs and deadwood after them). The points are
the record's; each is explained by the rule that gave it (RULES.md §6, as ``engine_nb.score_pair_nb`` counts).
"""

from __future__ import annotations

import numpy as np

from oklasim._kernels import layout as L
from oklasim.game import melds as meld_search
from oklasim.game.cards import card_value, cards_of, format_card
from oklasim.game.rules import Rules
from oklasim.sim.board import Event

OUTCOMES = {L.OUT_KNOCK: "knock", L.OUT_GIN: "gin", L.OUT_BIG_GIN: "big gin", L.OUT_UNDERCUT: "undercut",
            L.OUT_VOID: "void", L.OUT_GUARD: "void", L.OUT_TIE: "tie"}


def sorted_hand(hand: int, laid: list[int] | None = None) -> dict:
    """A hand sorted into melds (``laid``, else its best arrangement) and its other cards, highest first, with
    their deadwood."""
    groups = meld_search.optimal_arrangements(hand)[0] if laid is None and hand else laid or ()
    loose = hand
    for meld in groups:
        loose &= ~meld
    rest = sorted(cards_of(loose), key=lambda c: (-card_value(c), c))
    return {"melds": [_cards(m) for m in groups], "loose": [format_card(c) for c in rest],
            "deadwood": sum(map(card_value, rest))}


def bracketed(melds: list[list[str]]) -> list[str]:
    """Melds as the terminal writes them: '[2h 3h 4h]'."""
    return [f"[{' '.join(meld)}]" for meld in melds]


def _cards(mask: int) -> list[str]:
    return [format_card(c) for c in cards_of(int(mask))]


def hand_end(rules: Rules, names: list[str], record: np.ndarray, hands: list[int], events: list[Event],
             scores: list[int]) -> dict:
    """The facts of a hand's end: every hand sorted into melds (the knocker's as laid, each opponent's best after
    its layoffs, the laid-off cards apart), deadwood before and after the layoffs, how each point was counted and
    the game's score after the hand (``scores``)."""
    knocker = int(record[L.H_KNOCKER])
    laid_melds = [e.a for e in events if e.name == "melds"]
    layoffs = {e.seat: e.a for e in events if e.name == "layoff"}
    shown = []
    for seat, hand in enumerate(hands):
        before = sorted_hand(hand, laid_melds if seat == knocker else None)
        laid = layoffs.get(seat, 0)
        after = sorted_hand(hand & ~laid) if laid else before
        role = "knocker" if seat == knocker else "opponent" if knocker >= 0 else None
        shown.append({"name": names[seat], "role": role, "melds": after["melds"], "laid_off": _cards(laid),
                      "loose": after["loose"], "before": before["deadwood"], "deadwood": after["deadwood"]})
    points = [_pair(rules, names, record, knocker, seat) for seat in _opponents(knocker, len(hands))]
    winner = int(record[L.H_WINNER])
    outcome = OUTCOMES[int(record[L.H_OUTCOME])]
    summary = (f"{outcome}: {names[winner]} {'score' if winner == 0 else 'scores'} {int(record[L.H_POINTS])}"
               if winner >= 0 else f"the hand is {'a tie' if outcome == 'tie' else outcome}: nobody scores")
    return {"hand": int(record[L.H_HAND]) + 1, "outcome": outcome, "summary": summary, "hands": shown,
            "points": points, "scored": [int(record[L.H_SEAT_POINTS + s]) for s in range(len(hands))],
            "scores": list(scores), "names": names, "target": rules.target_score}


def _opponents(knocker: int, players: int) -> list[int]:
    """The knocker's opponents in the order the referee settles them (round the table from the knocker)."""
    return [] if knocker < 0 else [(knocker + k) % players for k in range(1, players)]


def _pair(rules: Rules, names: list[str], record: np.ndarray, knocker: int, seat: int) -> str:
    """How the knocker and one opponent settled: the rule, its arithmetic and who scored."""
    mine, theirs = int(record[L.H_KNOCKER_DEADWOOD]), int(record[L.H_SEAT_DEADWOOD + seat])
    owner, other = _owner(names, knocker), _owner(names, seat)
    if mine == 0:
        big = record[L.H_OUTCOME] == L.OUT_BIG_GIN
        bonus = rules.big_gin_bonus if big else rules.gin_bonus
        how = f"{'big gin' if big else 'gin'} bonus {bonus} + {other} deadwood {theirs}"
        points, scorer = bonus + theirs, knocker
    elif mine < theirs:
        how, points, scorer = f"{other} deadwood {theirs} - {owner} {mine}", theirs - mine, knocker
    elif mine == theirs and rules.tie_rule != "undercut":
        return f"{owner} deadwood and {other} are equal ({mine}): nobody scores"
    else:
        bonus = rules.undercut_bonus
        how = f"undercut: {owner} deadwood {mine} - {other} {theirs} + undercut bonus {bonus}"
        points, scorer = mine - theirs + bonus, seat
    multiplier = int(record[L.H_MULTIPLIER])
    if multiplier > 1:  # a spade upcard under spade_double
        how = f"({how}) x {multiplier} for the spade upcard {format_card(int(record[L.H_UPCARD]))}"
        points *= multiplier
    return f"{how} = {points} to {names[scorer]}"


def _owner(names: list[str], seat: int) -> str:
    """'your' / "greedy's"."""
    return "your" if seat == 0 else f"{names[seat]}'s"


def game_end(rules: Rules, names: list[str], result: dict) -> dict:
    """The facts of a game's end: the winner and each seat's total, the score from the hands plus the box and game
    bonuses; each total is explained when bonuses make it differ from the score."""
    winner = result["winner"]
    said = "nobody wins" if winner is None else "you win" if winner == 0 else f"{names[winner]} wins"
    seats = zip(names, result["scores"], result["boxes"], result["totals"])
    bonuses = [] if result["totals"] == result["scores"] else [_total(rules, *seat) for seat in seats]
    return {"winner": said, "line": f"game over: {said}; totals {score_text(names, result['totals'])}",
            "scores": result["scores"], "totals": result["totals"], "bonuses": bonuses}


def _total(rules: Rules, name: str, score: int, boxes: int, total: int) -> str:
    """'greedy: score 105 + 4 x 25 box bonus + game bonus 100 = 305' (a box: a hand won)."""
    parts = [f"score {score}"]
    if rules.box_bonus:
        parts.append(f"{boxes} x {rules.box_bonus} box bonus")
    game_bonus = total - score - boxes * rules.box_bonus  # the winner's, doubled or doubling for a shutout
    if game_bonus:
        parts.append(f"game bonus {game_bonus}")
    return f"{name}: " + " + ".join(parts) + f" = {total}"


def hand_lines(facts: dict) -> list[str]:
    """The hand's end as ``oklasim play`` prints it."""
    lines = []
    for seat, hand in enumerate(facts["hands"]):
        owner = "your hand" if seat == 0 else f"{hand['name']}'s hand"
        laid = f"| laid off {' '.join(hand['laid_off'])} |" if hand["laid_off"] else ""
        cards = " ".join(filter(None, [*bracketed(hand["melds"]), laid, *hand["loose"]]))
        deadwood = f"deadwood {hand['deadwood']}"
        if hand["role"] == "opponent":
            deadwood = f"deadwood {hand['before']} before layoffs, {hand['deadwood']} after"
        elif hand["role"] == "knocker":
            deadwood += " (knocked)"
        lines.append(f"{owner}: {cards}   {deadwood}")
    lines += [f"points: {line}" for line in facts["points"]]
    lines.append(f"hand {facts['hand']}: {facts['summary']}; score {score_text(facts['names'], facts['scores'])}")
    return lines


def game_lines(facts: dict) -> list[str]:
    """The game's end as ``oklasim play`` prints it: each seat's total, then the verdict."""
    return [f"  {line}" for line in facts["bonuses"]] + [f"*** {facts['line']} ***"]


def score_text(names: list[str], scores: list[int]) -> str:
    return ", ".join(f"{name} {score}" for name, score in zip(names, scores))
