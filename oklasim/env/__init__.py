"""The research environment: Oklahoma Gin for reinforcement learning, refereed by the engine's step machine.

Needs the ``rl`` extra (``pip install 'oklasim[rl]'``: gymnasium, pettingzoo);
the core ``oklasim`` never imports them. Importing this package registers
``oklasim/OklahomaGin-v0`` with Gymnasium (when it is installed).

* ``env(...)`` / ``raw_env(...)`` (alias ``OklahomaGinAEC``): PettingZoo AEC,
  every seat an agent ``player_0..``; ``parallel_env(...)`` the parallel API
  on the cycle order (``aec.py``).
* ``OklahomaGinEnv`` (``gymnasium.make("oklasim/OklahomaGin-v0", ...)``): one
  learning seat, the others played by an oklasim strategy in numba.
* ``VectorGin(num_envs, rules, opponent=...)``: the same, N games per numba
  call, a ``gymnasium.vector.VectorEnv``.
* ``dataset``: every decision of a simulated run, observation, mask and
  action as these envs encode them, to parquet (``oklasim dataset``); it
  needs neither gymnasium nor pettingzoo.

Common arguments: ``rules`` (a ``Rules``, a preset name or a TOML path),
``players`` (2-4), ``episode`` ("hand": one hand dealt as
``simulate(hands=...)`` deals it; "game": a game to the target), ``win_bonus``
(game episodes). Rewards are real points and zero-sum: each seat gets its
points of the hand less the mean of the others' (with two players: the
difference), and at the end of a game episode its share of the rules' box,
game and shutout bonuses and of ``win_bonus`` to the winner, shared the same
way. Episode ``e`` after ``reset(seed=s)`` is game ``e`` of seed ``s``; slot
``j`` of ``VectorGin`` plays games ``(j << 32) + e``.

**Actions (``N_ACTIONS`` = 143; one id per answer the step machine takes)**

| id | decision | answer |
|---|---|---|
| 0 / 1 | take the upcard | pass / take (``D_TAKE_UPCARD``) |
| 2 / 3 | draw | stock / top of the pile (``D_DRAW``) |
| 4 + c | discard | card ``c`` (``D_DISCARD``; c = suit*13 + rank) |
| 56 + c | knock | knock by discarding ``c`` (``D_KNOCK``); at the fiftieth-card offer: take the last discard and knock by discarding ``c`` |
| 108 | knock | big gin: lay all 11 cards (when on offer) |
| 109 | knock | play on: no knock (at the fiftieth card: leave the last discard; the hand is void) |
| 110 + k | arrange | the knocker's arrangement ``k`` of the optimal ones on offer (``D_ARRANGE``; k < 32) |
| 142 | (cycle order) | wait: the only action of an agent not asked |

The mask (``int8``, 1 = legal) is exactly the set of answers ``apply_nb``
accepts at the decision (tested action by action); every other action is
illegal. ``spaces.action_of(kind, answer)`` maps an oklasim strategy's
answer to its id, ``spaces.answer_of`` the other way.

**Observation (``int8[OBS_SIZE]``, ``OBS_SIZE`` = 938), from the seat's view row alone**

Ten card planes of 52 (index ``plane * 52 + card``), then 34 scalars, then the
arrangements on offer. "Seat +r" is the seat r places to the left (relative
seating: 1..players-1; planes of absent seats are 0).

| offset | content |
|---|---|
| 0 | own hand (11 cards between the draw and the discard; at the fiftieth-card offer the last discard shows in it, as the machine shows it) |
| 52 | top of the discard pile |
| 104 | the rest of the pile, out of play: the depth under the top (1 = just below) |
| 156 | unseen: neither in hand, nor in the pile, nor known in another hand (in the stock or in an opponent's hand) |
| 208, 260, 312 | known held by seat +1, +2, +3: taken from the pile and not thrown since (replayed from the hand's public log) |
| 364, 416, 468 | discarded by seat +1, +2, +3 this hand |
| 520 | decision asked, one-hot: take upcard, draw, knock, discard, arrange (all 0 for a seat not asked / an episode over) |
| 525 | fiftieth-card offer (1: the knock takes the last discard) |
| 526 | big gin on offer |
| 527 | knock limit (0 = gin only) |
| 528 | score multiplier (2: spade upcard doubling) |
| 529 | stock cards left |
| 530 | pile size |
| 531 | draws this hand, all seats (capped at 127) |
| 532 | own draws this hand (capped) |
| 533 | arrangements on offer |
| 534 | own seat, one-hot (4) |
| 538 | dealer, one-hot places to the left of me (4; 0 = I deal) |
| 542 | players, one-hot 2 / 3 / 4 |
| 545 | game scores, me then seat +1, +2, +3, in percent of the target score (exact for a target of 100; capped at 127) |
| 549 | passed the first upcard: me, seat +1, +2, +3 |
| 553 | hand number in the game (capped) |
| 554 | the arrangements on offer (at the arrange decision): 32 x 4 melds x 3: (1, rank, suits as a 4-bit mask) for a set, (2 + suit, lowest rank, length) for a run, zeros for none |

The seat's random stream and the strategies' memory and game memory slots of the view row are
never shown; the hidden row and the other seats' rows are never read.
``ENCODING_VERSION`` numbers this layout (it changes with any id or offset).
"""

from oklasim import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "env": "aec",
    "raw_env": "aec",
    "OklahomaGinAEC": "aec",
    "parallel_env": "aec",
    "OklahomaGinEnv": "single",
    "VectorGin": "vector",
    "IllegalAction": "episodes",
    "observe": "spaces",
    "action_of": "spaces",
    "answer_of": "spaces",
    "action_name": "spaces",
    "strategy_action": "spaces",
    "N_ACTIONS": "spaces",
    "OBS_SIZE": "spaces",
    "ENCODING_VERSION": "spaces",
})
__all__ = ["env", "raw_env", "OklahomaGinAEC", "parallel_env", "OklahomaGinEnv", "VectorGin", "IllegalAction",
           "observe", "action_of", "answer_of", "action_name", "strategy_action", "N_ACTIONS", "OBS_SIZE",
           "ENCODING_VERSION"]
ENV_ID = "oklasim/OklahomaGin-v0"


def _register() -> None:
    """Register the Gymnasium env (entry point by name: nothing heavy is imported until ``gymnasium.make``)."""
    try:
        import gymnasium
    except ImportError:  # the env's classes say what to install when used
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="oklasim.env.single:OklahomaGinEnv")


_register()
