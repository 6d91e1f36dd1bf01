"""Index constants of ``Rules.to_array()`` and codes of its enumerated fields.

Kernels read the packed rules through these names; ``oklasim.rules`` packs
them. Plain module-level ints, which numba treats as compile-time constants.
"""

R_PLAYERS = 0
R_HAND_SIZE = 1
R_OKLAHOMA = 2
R_FIXED_KNOCK_LIMIT = 3
R_ACE_UPCARD = 4
R_SPADE_DOUBLE = 5
R_GIN_BONUS = 6
R_BIG_GIN = 7
R_BIG_GIN_BONUS = 8
R_UNDERCUT_BONUS = 9
R_TIE_RULE = 10
R_DISCARD_TAKEN_CARD = 11
R_WALL_RULE = 12
R_DEALER_RULE = 13
R_TARGET_SCORE = 14
R_BOX_BONUS = 15
R_GAME_BONUS = 16
R_SHUTOUT_RULE = 17
R_SINGLE_HAND = 18
R_MAX_DRAWS = 19
N_RULE_FIELDS = 20

ACE_GIN_ONLY = 0
ACE_ONE = 1

TIE_UNDERCUT = 0
TIE_NO_SCORE = 1
TIE_KNOCKER_ZERO = 2

WALL_VOID = 0
WALL_FIFTIETH_CARD = 1

DEALER_WINNER = 0
DEALER_ALTERNATE = 1
DEALER_LOSER = 2

SHUTOUT_NONE = 0
SHUTOUT_DOUBLE_BONUS = 1
SHUTOUT_DOUBLE_TOTAL = 2
