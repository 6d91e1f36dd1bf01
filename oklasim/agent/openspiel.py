"""An oklasim strategy in OpenSpiel's ``gin_rummy`` referee (``oklahoma=true``), through the agent's view.

``play_hands`` lets OpenSpiel referee single hands: an oklasim seat
(``SeatView``, the agent's view built from events) against OpenSpiel's own
simple bot or another oklasim seat. Each action OpenSpiel applies is told
to the oklasim seats as an agent-protocol event, hiding what the seat may
not see (the other player's stock draws); each decision of an oklasim seat
becomes OpenSpiel actions, every one checked against OpenSpiel's legal
actions. The knocker lays the melds its strategy chose; a defender lays off
and melds as oklasim's rules do (the least deadwood, RULES.md R18).

OpenSpiel's player 0 plays first: it is oklasim's non-dealer (dealer 1).
The matching oklasim rules are the ``openspiel`` preset.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np

from oklasim._kernels import layout as L
from oklasim.agent.seat import SeatView
from oklasim.analysis.stats import Z95, Estimate, mean_ci
from oklasim.errors import OklasimError
from oklasim.game import melds
from oklasim.game.cards import mask_of, parse_card
from oklasim.game.rules import Rules
from oklasim.sim.engine import simulate
from oklasim.strategies.registry import Strategy, resolve

OPENSPIEL_BOT = "openspiel-simple"  # OpenSpiel's own simple bot as the opponent
DEALER = 1


class IllegalAction(RuntimeError):
    """An action chosen for an oklasim seat that OpenSpiel does not allow."""


def import_pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise OklasimError("OpenSpiel is not installed: pip install 'oklasim[peer]' (or make peer)") from None
    return pyspiel


@dataclass
class HandRecord:
    """One hand refereed by OpenSpiel: the oklasim seat's position and both players' returns."""

    seat: int
    returns: tuple[float, float]
    knocker: int | None  # None: no knock (the wall, or OpenSpiel's repeated-move end)
    deadwood: tuple[int, int]


@dataclass
class Referee:
    """One OpenSpiel hand at a time between two seats, each an oklasim ``SeatView`` or OpenSpiel's bot."""

    pyspiel: object
    game: object
    seats: list  # per OpenSpiel player: a SeatView, or None for OpenSpiel's simple bot
    bots: list
    rng: random.Random
    meld_actions: dict[int, int] = field(default_factory=dict)  # meld mask -> OpenSpiel action
    actions: int = 0  # actions chosen for oklasim seats (all checked legal)
    knock_refused: int = 0  # turns where oklasim's rules allow a knock that OpenSpiel's inexact deadwood does not

    def __post_init__(self) -> None:
        state = self.game.new_initial_state()
        gin = self.pyspiel.gin_rummy
        for action in range(gin.MELD_ACTION_BASE, gin.MELD_ACTION_BASE + gin.NUM_MELD_ACTIONS):
            text = state.action_to_string(0, action).split("Action: ")[1]
            cards = [parse_card(text[k : k + 2]) for k in range(0, len(text), 2)]
            self.meld_actions[mask_of(cards)] = action

    # -- telling the oklasim seats --------------------------------------------------------

    def tell(self, event: str, *args) -> None:
        for seat in self.seats:
            if seat is not None:
                getattr(seat, event)(*args)

    def tell_draw(self, player: int, source: str, card: int | None) -> None:
        """A draw: the card shown to everyone if from the pile, else only to the drawer."""
        for k, seat in enumerate(self.seats):
            if seat is not None:
                seat.drew(player, source, card if source == "pile" or k == player else None)

    # -- one hand -------------------------------------------------------------------------

    def play_hand(self) -> HandRecord:
        state = self.game.new_initial_state()
        for bot in self.bots:
            bot.restart()  # the bot keeps its knock plan between calls
        while state.is_chance_node():
            self.chance(state)
        upcard = state.upcard()
        for player, seat in enumerate(self.seats):
            if seat is not None:
                seat.new_hand(player, DEALER, mask_of(state.hands()[player]), upcard, [0, 0], 0)
                if seat.view[L.V_KNOCK_LIMIT] != state.knock_card():  # both referees must agree on the limit
                    raise IllegalAction(f"knock limit {seat.view[L.V_KNOCK_LIMIT]} here, {state.knock_card()} in OpenSpiel")
        knocker = None
        while not state.is_terminal():
            player = state.current_player()
            phase = state.current_phase()
            if self.seats[player] is None:
                action = self.bots[player].step(state)
                knocker = self.observe(state, player, phase, action, knocker)
            else:
                knocker = self.act(state, player, phase, knocker)
        self.tell("hand_over")
        self.tell("game_over")
        deadwood = tuple(int(d) for d in state.deadwood())
        return HandRecord(-1, tuple(state.returns()), knocker, deadwood)

    def chance(self, state) -> int:
        outcomes = state.chance_outcomes()
        card = outcomes[self.rng.randrange(len(outcomes))][0]  # all equally likely
        state.apply_action(card)
        return card

    def apply(self, state, action: int) -> None:
        """An oklasim seat's action, refused unless OpenSpiel allows it."""
        if action not in state.legal_actions():
            raise IllegalAction(f"{state.action_to_string(state.current_player(), action)} is not legal in "
                                f"OpenSpiel's {state.current_phase()}")
        state.apply_action(action)
        self.actions += 1

    def draw_stock(self, state, player: int) -> None:
        """After a stock draw: OpenSpiel's chance node deals the card; only the drawer sees it."""
        card = self.chance(state)
        self.tell_draw(player, "stock", card)

    # -- OpenSpiel's bot acted: what the oklasim seats learn ------------------------------

    def observe(self, state, player: int, phase, action: int, knocker):
        gin, Phase = self.pyspiel.gin_rummy, self.pyspiel.gin_rummy.Phase
        upcard = state.upcard()
        state.apply_action(action)
        if phase in (Phase.FIRST_UPCARD, Phase.DRAW):
            if action == gin.PASS_ACTION:
                self.tell("passed", player)
            elif action == gin.DRAW_UPCARD_ACTION:
                self.tell_draw(player, "pile", upcard)
            else:
                self.draw_stock(state, player)
        elif phase == Phase.DISCARD and action < 52:
            self.tell("discarded", player, action)
        elif phase == Phase.WALL and action == gin.KNOCK_ACTION:
            self.tell_draw(player, "pile", upcard)
        elif phase in (Phase.DISCARD, Phase.WALL) and action == gin.KNOCK_ACTION:
            pass  # the knock is told with its discard, in the knock phase
        elif phase == Phase.KNOCK and action < 52:
            self.tell("discarded", player, action)
            self.tell("knocked", player)
            knocker = player
        return knocker

    # -- an oklasim seat acts -------------------------------------------------------------

    def act(self, state, player: int, phase, knocker):
        gin, Phase = self.pyspiel.gin_rummy, self.pyspiel.gin_rummy.Phase
        seat = self.seats[player]
        if phase == Phase.FIRST_UPCARD and gin.DRAW_STOCK_ACTION not in state.legal_actions():
            take = seat.take_upcard()
            upcard = state.upcard()
            self.apply(state, gin.DRAW_UPCARD_ACTION if take else gin.PASS_ACTION)
            self.tell_draw(player, "pile", upcard) if take else self.tell("passed", player)
        elif phase in (Phase.FIRST_UPCARD, Phase.DRAW):
            source = seat.draw()
            upcard = state.upcard()
            self.apply(state, gin.DRAW_UPCARD_ACTION if source == "pile" else gin.DRAW_STOCK_ACTION)
            self.tell_draw(player, "pile", upcard) if source == "pile" else self.draw_stock(state, player)
        elif phase == Phase.WALL:
            upcard = state.upcard()
            if gin.KNOCK_ACTION not in state.legal_actions():  # OpenSpiel sees no knock: the hand ends
                self.apply(state, gin.PASS_ACTION)
                return knocker
            if seat.draw() == "none":
                self.apply(state, gin.PASS_ACTION)
                return knocker
            self.apply(state, gin.KNOCK_ACTION)
            self.tell_draw(player, "pile", upcard)
            return self.knock(state, player, seat.play_turn())
        elif phase == Phase.DISCARD:
            allowed = gin.KNOCK_ACTION in state.legal_actions()
            self.knock_refused += not allowed and seat.may_knock()
            turn = seat.play_turn(allow_knock=allowed)
            if not turn.knock:
                self.apply(state, turn.card)
                self.tell("discarded", player, turn.card)
                return knocker
            self.apply(state, gin.KNOCK_ACTION)
            return self.knock(state, player, turn)
        elif phase == Phase.LAYOFF:
            self.defend(state, player, knocker)
        else:
            raise IllegalAction(f"an oklasim seat has nothing to do in OpenSpiel's {phase}")
        return knocker

    def knock(self, state, player: int, turn) -> int:
        """The knock phase: the discard, the strategy's melds one by one, then pass."""
        if turn.card is None:
            raise IllegalAction("OpenSpiel has no big gin")
        self.apply(state, turn.card)
        self.tell("discarded", player, turn.card)
        self.tell("knocked", player)
        self.lay(state, turn.melds)
        self.apply(state, self.pyspiel.gin_rummy.PASS_ACTION)
        return player

    def lay(self, state, laid: tuple[int, ...]) -> None:
        """Lay melds; OpenSpiel's longest run is 5 cards, so a longer one is laid in pieces of 3 to 5."""
        for meld in laid:
            cards = [c for c in range(52) if meld >> c & 1]
            while len(cards) > 5:
                self.apply(state, self.meld_actions[mask_of(cards[:3])])
                cards = cards[3:]
            self.apply(state, self.meld_actions[mask_of(cards)])

    def defend(self, state, player: int, knocker: int) -> None:
        """Lay off and meld as oklasim's defender does (R18): the least deadwood, layoffs chosen with the melds."""
        gin = self.pyspiel.gin_rummy
        hand = mask_of(state.hands()[player])
        if state.finished_layoffs():  # against gin nothing is laid off
            laid = 0
        else:
            knocker_melds = [self.meld_mask(m) for m in state.layed_melds()[knocker]]
            _, laid = melds.layoff_deadwood(knocker_melds, hand)
            while laid:  # one card at a time, in an order OpenSpiel accepts (a run grows from its ends)
                playable = [c for c in state.legal_actions() if c < 52 and laid >> c & 1]
                if not playable:
                    break
                self.apply(state, playable[0])
                laid &= ~(1 << playable[0])
            self.apply(state, gin.PASS_ACTION)
            hand = mask_of(state.hands()[player])
        self.lay(state, melds.optimal_arrangements(hand)[0])
        self.apply(state, gin.PASS_ACTION)

    def meld_mask(self, meld_id: int) -> int:
        return next(mask for mask, action in self.meld_actions.items()
                    if action == meld_id + self.pyspiel.gin_rummy.MELD_ACTION_BASE)


def play_hands(strategy: Strategy, opponent: Strategy | None, hands: int, seed: int = 0) -> tuple[list[HandRecord], Referee]:
    """``hands`` OpenSpiel hands, the oklasim seat alternating between players 0 and 1.

    ``opponent`` None plays OpenSpiel's simple bot. Returns the hands and the
    referee (its counts of the actions chosen for oklasim seats, each checked
    legal, and of the knocks OpenSpiel refused).
    """
    pyspiel = import_pyspiel()
    rules = Rules.preset("openspiel")
    game = pyspiel.load_game("gin_rummy", {"oklahoma": True})
    bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in range(2)]
    ours = [SeatView(rules, strategy, seed), SeatView(rules, strategy, seed + 1)]
    theirs = [None, None] if opponent is None else [SeatView(rules, opponent, seed + 2), SeatView(rules, opponent, seed + 3)]
    referee = Referee(pyspiel, game, [None, None], bots, random.Random(seed))
    records = []
    for hand in range(hands):
        me = hand % 2
        referee.seats = [ours[0], theirs[1]] if me == 0 else [theirs[0], ours[1]]
        record = referee.play_hand()
        record.seat = me
        records.append(record)
    return records, referee



# -- the cross-check: the same match refereed by OpenSpiel and by oklasim's engine ------------------

FIGURES = ("net points per hand", "first player's net points per hand", "gin share", "undercut share",
           "no-knock share")


def openspiel_figures(records: list[HandRecord]) -> dict[str, np.ndarray]:
    """Per-hand samples of each figure, from the oklasim seat's point of view."""
    mine = np.array([r.returns[r.seat] for r in records])
    knocker = [r.knocker for r in records]
    return {
        FIGURES[0]: mine,
        FIGURES[1]: np.array([r.returns[0] for r in records]),
        FIGURES[2]: np.array([k is not None and r.deadwood[k] == 0 for r, k in zip(records, knocker)], dtype=float),
        FIGURES[3]: np.array([k is not None and r.returns[k] < 0 for r, k in zip(records, knocker)], dtype=float),
        FIGURES[4]: np.array([k is None for k in knocker], dtype=float),
    }


def engine_figures(strategy: Strategy, opponent: Strategy, hands: int, seed: int) -> dict[str, np.ndarray]:
    """The same figures from oklasim's engine under the ``openspiel`` preset (seat 0 plays ``strategy``)."""
    h = simulate(Rules.preset("openspiel"), [strategy, opponent], hands=hands, seed=seed).hands
    net = (h["points_0"] - h["points_1"]).to_numpy().astype(float)
    first = np.where(h["dealer"].to_numpy() == 1, net, -net)  # the non-dealer plays first
    outcome = h["outcome"].to_numpy()
    return {
        FIGURES[0]: net,
        FIGURES[1]: first,
        FIGURES[2]: np.isin(outcome, ("gin", "big_gin")).astype(float),
        FIGURES[3]: (outcome == "undercut").astype(float),
        FIGURES[4]: np.isin(outcome, ("void", "guard")).astype(float),
    }


@dataclass(frozen=True)
class CrossCheck:
    strategy: str
    against: str
    hands: int
    engine_hands: int
    actions: int  # actions chosen for oklasim seats in OpenSpiel, every one legal
    knock_refused: int  # turns where OpenSpiel's inexact deadwood refused a knock oklasim's rules allow
    openspiel: dict[str, Estimate]
    engine: dict[str, Estimate]

    def gap_z(self, figure: str) -> float:
        """The difference between the referees in standard errors."""
        a, b = self.openspiel[figure], self.engine[figure]
        spread = math.hypot(a.half_width, b.half_width) / Z95
        return abs(a.mean - b.mean) / spread if spread > 0 else 0.0

    def as_dict(self) -> dict:
        return {"strategy": self.strategy, "against": self.against, "hands": self.hands,
                "engine_hands": self.engine_hands, "actions_checked_legal": self.actions,
                "knocks_refused_by_openspiel": self.knock_refused,
                "figures": {f: {"openspiel": self.openspiel[f].as_dict(), "engine": self.engine[f].as_dict(),
                                "gap_in_standard_errors": round(self.gap_z(f), 2)} for f in FIGURES}}

    def lines(self) -> list[str]:
        out = [f"{self.strategy} against {self.against}: {self.hands:,} hands refereed by OpenSpiel "
               f"(gin_rummy, oklahoma=true; {self.actions:,} actions, all legal) beside {self.engine_hands:,} "
               "hands in oklasim's engine (openspiel preset); 95% intervals",
               f"{'':<38}{'OpenSpiel':>24}{'oklasim engine':>24}{'gap (s.e.)':>12}"]
        for f in FIGURES:
            a, b = self.openspiel[f], self.engine[f]
            out.append(f"{f:<38}{a.mean:>9.3f} [{a.low:.3f}, {a.high:.3f}]{b.mean:>9.3f} [{b.low:.3f}, {b.high:.3f}]"
                       f"{self.gap_z(f):>12.1f}")
        if self.knock_refused:
            out.append(f"OpenSpiel refused {self.knock_refused} knock(s) that oklasim's exact deadwood allows; "
                       "the seat discarded instead")
        if self.against == OPENSPIEL_BOT:
            out.append("(the engine's opponent is oklasim's simple, standing in for OpenSpiel's simple bot)")
        return out


def crosscheck(strategy: str, against: str = OPENSPIEL_BOT, hands: int = 2000, seed: int = 0,
               engine_hands: int = 100_000) -> CrossCheck:
    """Play ``strategy`` against ``against`` in OpenSpiel's referee and in oklasim's engine; the figures of both."""
    mine = resolve(strategy)
    theirs = None if against == OPENSPIEL_BOT else resolve(against)
    records, referee = play_hands(mine, theirs, hands, seed)
    stand_in = theirs if theirs is not None else resolve("simple")
    samples = openspiel_figures(records), engine_figures(mine, stand_in, engine_hands, seed)
    summary = [{f: mean_ci(s[f]) for f in FIGURES} for s in samples]
    return CrossCheck(mine.name, against, hands, engine_hands, referee.actions, referee.knock_refused, *summary)
