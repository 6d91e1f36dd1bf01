"""Should I knock now? Monte Carlo advice for one concrete two-player situation.

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
``Advice.stop_reason`` says which.

Which worlds (``prior``): ``uniform`` deals the opponent's unknown cards
uniformly from the unseen ones. A real opponent has improved its hand
turn after turn, so uniform worlds overrate a knock by some 30 points
(``experiments/advise_prior_calibration.py``). The default, ``played``,
improves a uniform hand by the opponent's stock draws (each followed by
the discard leaving least deadwood) and keeps only worlds where its last
discard was such a discard and it could not have knocked: within about a
point of the truth for opponents that play like simple or greedy. Nothing
else is inferred from its earlier choices.
"""

from .position import Position, read_position, view_of
from .request import Request, load_request
from .result import Advice, Candidate, Estimate
from .rollouts import advise
from .worlds import estimated_opponent_draws, world_prior

__all__ = ["Advice", "Candidate", "Estimate", "Position", "Request", "advise", "estimated_opponent_draws", "load_request",
           "read_position", "view_of", "world_prior"]
