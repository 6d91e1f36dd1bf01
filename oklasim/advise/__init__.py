"""Should I knock now? Monte Carlo advice for one concrete situation (2 players; 3-4 with uniform worlds).

>>> advice = advise("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", upcard="9c", pile="9c 8d 4s",
...                 max_samples=2048, precision=None, seed=1)              # doctest: +SKIP
>>> advice.recommendation.action, advice.recommendation.discard        # doctest: +SKIP
('knock', 'Ks')

What you know (your hand, the knock limit, the discard pile, the cards the
opponent took from it, the scores) fixes a set of *worlds*: the opponent's
hand and the stock order. ``advise`` samples worlds consistent with what
you know, plays every candidate action in the same worlds (common random
numbers) with the chosen continuation strategies, and stops when the best
action is separated from the others with confidence, when every remaining
estimate is within ``precision`` points, or at the sample or time budget;
``Advice.stop_reason`` says which. Without an effective sample of
``rollouts.RECOMMEND_ESS`` worlds there is no recommendation (``None``, and
``Advice.no_recommendation`` says why); until then only the time budget
stops the sampling.

Which worlds: without a history, ``prior`` says how the opponent's unknown
cards are drawn: ``uniform`` among the unseen ones (a real opponent has
improved its hand, so these overrate a knock by some 30 points), or
``played`` (default): improved by least-deadwood stock draws and repaired to
fit its last discard and an opponent that knocks when it can; good against
simple or greedy, several points too kind to the knock against an opponent
that holds for gin (``reports/advise_calibration``). With a ``history`` of
the hand (``history.py``) every world is weighted by how likely the named
opponent, replayed with its own ``decide`` on the views it had, was to play
its latest ``window`` turns as it did (``worlds.py``); the estimates are
weighted means and ``Advice.ess`` is their effective sample size. With
3-4 players every opponent's unknown cards are uniform (the prior and the
history model one opponent), and the points are yours minus the
opponents' together. At the fiftieth card (``wall_rule = fiftieth_card``)
declining the last discard is weighed as an action.

The package: ``position`` (what the player knows), ``history`` (the hand
so far), ``worlds`` (which worlds and their weights), ``rollouts`` (the
Monte Carlo), ``result`` (the answer), ``request`` (every field, once),
``cli`` (the command), ``played`` (positions from real games).
"""

from oklasim import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "Position": "position", "read_position": "position", "view_of": "position",
    "Request": "request", "load_request": "request",
    "Advice": "result", "Candidate": "result", "Estimate": "result",
    "advise": "rollouts",
    "estimated_opponent_draws": "worlds", "world_prior": "worlds",
})

__all__ = ["Advice", "Candidate", "Estimate", "Position", "Request", "advise", "estimated_opponent_draws",
           "load_request", "read_position", "view_of", "world_prior"]
