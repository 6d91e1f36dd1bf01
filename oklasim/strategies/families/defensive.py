"""defensive: plays against the opponent's hand as well as its own.

Where the idea comes from: the standard defensive advice of gin rummy
books and guides (John Scarne's *Scarne on Cards*, pagat.com's Gin Rummy
page and the many "safe discards" / "reading your opponent" tutorials):
remember what the opponent picked up, do not feed its melds, throw what it
threw, keep cards that are still live, lay your melds so that the opponent
lays off little, and do not knock into an undercut.

* **Draw**: take the pile top when it would be melded in every optimal
  arrangement or lets the hand knock at once (``simple``'s rule, the kit's
  ``meld_or_knock_take_nb``); otherwise draw from the stock. Taking any card
  that merely lowers deadwood (``greedy``) measured clearly worse.
* **Discard**: among discards within ``slack`` deadwood points of the
  least-deadwood one, minimise ``deadwood - outs_weight * live outs +
  danger_weight * danger - safe_weight * safe`` (kit:
  ``scored_discard_nb``). *Live outs* are the unseen cards that would meld
  with two cards kept; *danger* is 2 for a card completing or extending a
  meld with cards the opponent is known to hold (it took them from the
  pile, V_TAKEN, and did not throw them back), 1 for a card of the same rank
  or of the same suit within two ranks of such a card that could still be
  melded, 0 otherwise; *safe* is 1 for a card of the rank of, or of the suit
  within two ranks of, a card the opponent discarded (V_DISCARDED) or passed
  as the first upcard (V_PASSED): it did not want those.
* **Knock**: gin always; otherwise knock unless the estimated undercut risk
  exceeds ``max_undercut_risk`` (kit: ``undercut_risk_nb``: the opponent's
  deadwood is modelled from the mean value of the unseen cards and the
  opponent's draw count, with a Gamma(2) spread; see its docstring). Under
  the fiftieth-card rule the last discard is taken to knock by the same test
  (declining it leaves the hand void).
* **Lay melds**: the optimal arrangement onto which the opponent can lay off
  the least value, counting the cards it is known to hold in full and unseen
  cards at the chance that they are in its hand (kit:
  ``least_exposed_arrangement_nb``).

What its presets were measured to be worth: the measured results page of the
documentation (docs/results.md).
"""

from oklasim.strategy_api import (
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    NO_CARD,
    Family,
    Param,
    allowed_discards_nb,
    decide_kernel,
    knock_deadwood_nb,
    knock_if_at_most_nb,
    least_exposed_arrangement_nb,
    meld_or_knock_take_nb,
    scored_discard_nb,
    undercut_risk_nb,
)

FAMILY = Family(
    name="defensive",
    uses_drawn_card=False,  # its knock and discard never read V_DRAWN
    doc="Feeds the opponent nothing it can meld, keeps live cards, lays melds it can't lay off on, avoids undercuts.",
    params=(
        Param("outs_weight", 1.5, 0, 10, "deadwood points one live out of the kept hand is worth when discarding"),
        Param("danger_weight", 3, 0, 20, "deadwood points per unit of danger (0-2) of a discard to the opponent"),
        Param("slack", 4, 0, 20, "most deadwood points a discard may give up for outs or safety"),
        Param("safe_weight", 0.5, 0, 20, "deadwood points a discard is worth when next to a card the opponent threw"),
        Param(
            "max_undercut_risk",
            0.5,
            0,
            1,
            "skip a knock (not gin) when the estimated undercut chance is above this (1 = always knock)",
        ),
        Param("lay_safe", 1, 0, 1, "1 = lay the arrangement least exposed to layoffs, 0 = the first optimal one"),
    ),
    presets={
        "bold": {"max_undercut_risk": 1},
        "cautious": {"max_undercut_risk": 0.25},
        "plain": {
            "outs_weight": 0,
            "danger_weight": 0,
            "slack": 0,
            "safe_weight": 0,
            "max_undercut_risk": 1,
            "lay_safe": 0,
        },
    },
)

OUTS_WEIGHT, DANGER_WEIGHT, SLACK, SAFE_WEIGHT, MAX_UNDERCUT_RISK, LAY_SAFE = FAMILY.indexes(
    "outs_weight", "danger_weight", "slack", "safe_weight", "max_undercut_risk", "lay_safe"
)


@decide_kernel()
def decide_nb(kind, view, params):
    if kind == D_TAKE_UPCARD or kind == D_DRAW:
        return meld_or_knock_take_nb(view)
    if kind == D_KNOCK:
        max_risk = params[MAX_UNDERCUT_RISK]
        if max_risk < 1 and undercut_risk_nb(view, knock_deadwood_nb(view)) > max_risk:
            return knock_if_at_most_nb(view, 0)  # gin or big gin only
        return knock_if_at_most_nb(view, 10)
    if kind == D_DISCARD:
        allowed = allowed_discards_nb(view)
        return scored_discard_nb(
            view, allowed, params[OUTS_WEIGHT], params[DANGER_WEIGHT], params[SLACK], params[SAFE_WEIGHT]
        )
    if kind == D_ARRANGE:
        return least_exposed_arrangement_nb(view) if params[LAY_SAFE] else 0
    return NO_CARD
