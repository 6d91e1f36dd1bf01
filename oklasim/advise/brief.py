"""The coach's words: an ``Advice`` told in one sentence a card player acts on, the numbers kept for who asks.

The sentence recommends on the measure that matters, the advice's objective: the points of this hand, or the
chance to win the game when the scores are given. It never recommends on a difference inside its interval: when
the runner-up's paired difference from the best (its ``vs_best``) includes 0, the call is too close and both are
named. The other measure is said when it is there, plainly when it favours the other option. Numbers are rounded
as a player reads them; the advice's table (``Advice.lines``) is the details.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from oklasim.advise.result import Advice, Candidate
from oklasim.game.cards import format_card

# What a candidate does, by its kind, to do ("Knock, discarding 5s") and as a noun ("knocking with 5s"); a plain
# discard beside a possible knock is "play on". {card} is the discard, {taken} the card taken.
WORDS = {
    "knock": ("knock, discarding {card}", "knocking with {card}"),
    "gin": ("go gin, discarding {card}", "going gin with {card}"),
    "big gin": ("go big gin", "going big gin"),
    "discard": ("discard {card}", "discarding {card}"),
    "play on": ("play on, discarding {card}", "discarding {card}"),
    "stock": ("draw from the stock", "drawing from the stock"),
    "pass": ("pass the upcard", "passing the upcard"),
    "decline": ("decline the last discard: the hand is void", "declining the last discard"),
    "take": ("take {taken}, then ", "taking {taken}, then "),
}
TAKES = ("pile", "upcard")  # the draws that take a known card: the upcard or the pile top


@dataclass(frozen=True)
class Brief:
    """The coach's answer for one decision: the sentence, the card to point at, the numbers on request."""

    sentence: str
    card: str | None  # the card to highlight: the card to take, or the one to discard now; None otherwise
    # The recommended action's kind (a key of WORDS but "play on"), "close" (too close to call), "unsure" (too
    # little evidence) or "none" (no advice here).
    action: str
    details: tuple[str, ...] = ()
    advice: Advice | None = None
    named: tuple[Candidate, ...] = ()  # what the sentence says to do: the recommendation, or the two too close

    def noting(self, note: str) -> Brief:
        """The same brief, its sentence ending with ``note`` in brackets."""
        return replace(self, sentence=f"{self.sentence.rstrip('.')} ({note}).")

    def to_dict(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "card": self.card, "action": self.action, "details": list(self.details),
                "advice": self.advice.to_dict() if self.advice is not None else None}


def unavailable(why: str) -> Brief:
    """No advice for this decision, and why, in one sentence."""
    return Brief(f"No advice here: {why}.", None, "none")


def brief(advice: Advice) -> Brief:
    """The advice in one sentence; against whom it holds and its table are the details."""
    details = (holds(advice), *advice.lines())
    best = next(c for c in advice.candidates if c.status in ("recommended", "leading"))
    rival = runner_up(advice)
    if advice.recommendation is None:  # too little evidence: no advice, but the leader is said
        return Brief(f"No recommendation, too little evidence: {phrase(advice, best, True)} leads, "
                     f"{value(advice, best)}.", None, "unsure", details, advice)
    if rival is None:
        return Brief(f"{phrase(advice, best)}: the only move here.", card_of(advice, best), kind(best), details,
                     advice, (best,))
    if rival.vs_best.low <= 0 <= rival.vs_best.high:
        sentence = (f"Too close to call: {pair(advice, best, rival)} are within the noise ({both(advice, best, rival)})"
                    f"{otherwise(advice, best, rival)}.")
        return Brief(sentence, None, "close", details, advice, (best, rival))
    sentence = (f"{phrase(advice, best)}: {value(advice, best)} ({phrase(advice, rival, True)}: "
                f"{short(advice, rival)}){otherwise(advice, best, rival)}.")
    return Brief(sentence, card_of(advice, best), kind(best), details, advice, (best,))


def runner_up(advice: Advice) -> Candidate | None:
    """The candidate closest behind the best on the objective (None: only one action)."""
    return max((c for c in advice.candidates if c.vs_best is not None), key=lambda c: c.vs_best.mean, default=None)


def holds(advice: Advice) -> str:
    """Against whom, and under which rules, the numbers hold: one short line."""
    who = "the opponent" if advice.position.players == 2 else "every opponent"
    return f"holds if {who} plays {advice.opponent}, under {advice.rules_text}"


def abandons(previous: Brief, now: Brief) -> bool:
    """Whether ``now``, asked after the draw, drops the plan ``previous`` made before it (take a card, then discard
    or knock): none of the options ``now`` names is that second step."""
    if len(previous.named) != 1 or previous.named[0].draw not in TAKES:
        return False
    if not now.named or any(c.draw is not None for c in now.named):
        return False
    plan = previous.named[0]
    return all((c.action, c.discard, c.big_gin) != (plan.action, plan.discard, plan.big_gin) for c in now.named)


# -- the words ------------------------------------------------------------------------------------------------


def kind(c: Candidate) -> str:
    """The candidate's kind: a key of ``WORDS`` (a take, with what follows it, is "take")."""
    return "take" if c.draw in TAKES else step(c)


def step(c: Candidate) -> str:
    """What the candidate does besides taking a card."""
    if c.draw in ("stock", "pass"):
        return c.draw
    if c.action == "decline":
        return "decline"
    if c.big_gin:
        return "big gin"
    if c.action == "knock":
        return "gin" if c.deadwood == 0 else "knock"
    return "discard"


def phrase(advice: Advice, c: Candidate, gerund: bool = False) -> str:
    """What the candidate does: to do ('Take Qd, then discard 4s'), or as a noun ('taking Qd, then discarding 4s')."""
    what = step(c)
    if what == "discard" and c.draw is None and any(x.action == "knock" for x in advice.candidates):
        what = "play on"
    text = WORDS[what][gerund].format(card=c.discard)
    if c.draw in TAKES:
        text = WORDS["take"][gerund].format(taken=taken(advice)) + text
    return text if gerund else text[0].upper() + text[1:]


def pair(advice: Advice, best: Candidate, rival: Candidate) -> str:
    """Both, as nouns: 'knocking with 5s and discarding 7h'; 'discarding 5s and 9h' when only the last card differs."""
    first, second = phrase(advice, best, True), phrase(advice, rival, True)
    head, _, card = second.rpartition(" ")
    return f"{first} and {card}" if head and first.rpartition(" ")[0] == head else f"{first} and {second}"


def taken(advice: Advice) -> str:
    """The card a take takes: the pile's top (at the first offer, the upcard)."""
    return format_card(advice.position.pile[-1])


def card_of(advice: Advice, c: Candidate) -> str | None:
    """The card a recommendation points at: the card to take, else the one to discard now."""
    if c.draw in TAKES:
        return taken(advice)
    return c.discard if c.draw is None else None


def points(mean: float) -> str:
    """'+9', '-3', '0': points as a player reads them."""
    n = round(mean)
    return f"{n:+d}" if n else "0"


def percent(mean: float) -> str:
    return f"{round(100 * mean)}%"


def value(advice: Advice, c: Candidate) -> str:
    """A candidate's value on the objective, in words."""
    if advice.objective == "win":
        return f"{percent(c.win.mean)} to win the game"
    return f"about {points(c.points.mean)} points this hand"


def short(advice: Advice, c: Candidate) -> str:
    return percent(c.win.mean) if advice.objective == "win" else points(c.points.mean)


def both(advice: Advice, best: Candidate, rival: Candidate) -> str:
    """'about +9 and +8 points this hand' / '62% and 61% to win the game'."""
    if advice.objective == "win":
        return f"{percent(best.win.mean)} and {percent(rival.win.mean)} to win the game"
    return f"about {points(best.points.mean)} and {points(rival.points.mean)} points this hand"


def otherwise(advice: Advice, best: Candidate, rival: Candidate) -> str:
    """What the other measure says, when there is one: plainly when it favours the rival. No paired interval backs
    it, so it is told as its rounded numbers, never as the reason to choose."""
    if advice.objective == "win":
        if round(rival.points.mean) > round(best.points.mean):
            return (f", though {phrase(advice, rival, True)} scores more this hand ({points(rival.points.mean)} "
                    f"against {points(best.points.mean)} points)")
        return ""  # the points agree with the game's chance, which is what counts
    if best.win is None:
        return ""
    mine, theirs = percent(best.win.mean), percent(rival.win.mean)
    if mine == theirs:
        return "; same chance to win the game"
    if round(100 * rival.win.mean) > round(100 * best.win.mean):
        return f", though {phrase(advice, rival, True)} wins the game more often ({theirs} against {mine})"
    return f"; {mine} to win the game against {theirs}"
