"""``oklasim play``: a person plays whole games against bots in the terminal (2-4 players).

The person's seat (``PersonSeat``) shows what the board's row of that seat
shows (the hand sorted into melds with its deadwood, the pile, the knock limit,
the scores), tells the table's events as text, reads typed moves and shows the
referee's reason when one is refused. The game is a ``Table``
(``oklasim.table.referee``): the engine's step machine, the bots deciding as in
the engine. A game is fixed by its seed, the rules, the bots and the person's
moves, so saving it is writing those down (after every move, atomically) and
resuming is replaying them. Only moves the referee took are saved, so a save
replays exactly or is refused whole (a hand-edited or damaged one), never half.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from oklasim._kernels import layout as L
from oklasim._kernels.melds_nb import MAX_MELDS_IN_ARRANGEMENT
from oklasim.errors import OklasimError, read_text
from oklasim.game import melds
from oklasim.game.cards import cards_of, format_card, format_hand, parse_card
from oklasim.game.rules import Rules
from oklasim.sim.board import Event, IllegalMove, pile_of
from oklasim.sim.engine import illegal_reason
from oklasim.strategies.registry import resolve
from oklasim.table import levels
from oklasim.table.coach import Coach
from oklasim.table.referee import BotSeat, Table
from oklasim.table.showdown import bracketed, game_end, game_lines, hand_end, hand_lines, sorted_hand

if TYPE_CHECKING:
    from oklasim.advise.brief import Brief

SAVE_FORMAT = 2  # 2: the moves of the step machine's decisions ('n' passes the upcard, 'p' takes the pile)
HELP = """moves: at the upcard offer 't' (take) or 'n' (no, pass); at a draw 'p' (pile) or 's' (stock);
after the draw a card to discard ('Kd'); when a knock is offered 'knock Kd' knocks (or goes gin) discarding it,
'big gin' lays all 11 cards; at the wall 'knock Kd' takes the last discard to knock, 'n' lets the hand be void.
any time: 'hand' shows the table again, 'why' the coach's numbers (with --coach), 'help' this text, 'quit' stops
(the game is saved with --save).
between hands: Enter deals the next hand."""
NEXT_HAND = "press Enter for the next hand > "
YES_NO = {"t": 1, "take": 1, "n": 0, "no": 0, "pass": 0}
PILE_STOCK = {"p": 1, "pile": 1, "s": 0, "stock": 0}


class Quit(Exception):
    """The person stopped the game."""


def arranged(hand: int) -> str:
    """The hand sorted into melds (best arrangement) then its deadwood cards: '[2h 3h 4h] [7s 7d 7h] Jc 5d  deadwood 15'."""
    shown = sorted_hand(hand)
    return " ".join(bracketed(shown["melds"]) + shown["loose"]) + f"   deadwood {shown['deadwood']}"


def deadwood(hand: int) -> int:
    return int(melds.deadwood([hand])[0])


def known_holdings(view: np.ndarray, seat: int) -> int:
    """Cards ``seat`` took from the pile and still holds, as the view shows them (a card taken again after its
    discard is left out)."""
    return int(view[L.V_TAKEN + seat] & ~view[L.V_DISCARDED + seat] & ~view[L.V_PILE_MASK])


class PersonSeat:
    """The person's seat (seat 0): what the board's row shows, told as text; decisions read from typed moves."""

    def __init__(self, rules: Rules, names: list[str], ask: Callable[[str], str], say: Callable[[str], None],
                 saved: list[str] = (), coach: Callable[[np.ndarray, list[Event]], Brief] | None = None,
                 on_move: Callable[[list[str]], None] | None = None, new_hand: Callable[[], None] | None = None):
        self.rules = rules
        self.names = names  # per seat; names[0] is "you"
        self.ask_raw, self.say_raw = ask, say
        self.saved = list(saved)  # the moves of a saved game, replayed before asking
        self.position = 0
        self.moves: list[str] = []  # every move the referee took so far (a refused one is dropped)
        self.from_save = False  # the move being read came from the save: a refusal means the save is damaged
        self.coach = coach
        self.brief: Brief | None = None  # the coach's word on the decision asked ('why' shows its numbers)
        self.on_move = on_move
        self.new_hand = new_hand
        self.seat = 0
        self.view: np.ndarray | None = None  # the row of the decision being asked
        self.scores = [0] * rules.players
        self.discard_next: int | None = None  # a plain discard typed at the knock offer: the answer to come
        self.seen: list[Event] = []  # the events of this hand, as this seat saw them (the coach's history)

    # -- output ---------------------------------------------------------------------------

    def say(self, text: str) -> None:
        if not self.replaying:
            self.say_raw(text)

    def who(self, seat: int, you: str, others: str) -> str:
        """'you pass' / 'greedy passes'."""
        return f"you {you}" if seat == self.seat else f"{self.names[seat]} {others}"

    def show(self) -> None:
        v = self.view
        limit = "gin only" if v[L.V_KNOCK_LIMIT] == 0 else f"knock limit {v[L.V_KNOCK_LIMIT]}"
        scores = ", ".join(f"{self.names[s]} {v[L.V_SCORES + s]}" for s in range(self.rules.players))
        self.say(f"\n-- hand {v[L.V_HAND_NUMBER] + 1} · {scores} (game to {self.rules.target_score}) · {limit} "
                 f"(upcard {format_card(v[L.V_UPCARD])}) · stock {v[L.V_STOCK_LEFT]} --")
        pile = pile_of(v)
        shown = " ".join(format_card(c) for c in pile[-8:])
        self.say(f"pile      {'... ' if len(pile) > 8 else ''}{shown}   (top {format_card(pile[-1])})" if pile
                 else "pile      empty")
        for seat in range(self.rules.players):
            held = known_holdings(v, seat) if seat != self.seat else 0
            if held:
                self.say(f"{self.names[seat]} holds {format_hand(held)} (taken from the pile)")
        self.say(f"your hand {arranged(int(v[L.V_HAND]))}")

    # -- what the table tells -----------------------------------------------------------------

    def tell(self, e: Event) -> None:
        self.seen = [] if e.name == "deal" else self.seen + [e]
        if e.name == "deal" and not self.replaying:
            if e.hand > 0:  # waited for at the next deal: the game's last hand goes straight on to its end
                self.next_hand()
            if self.new_hand is not None:
                self.new_hand()
        card = format_card(e.a) if 0 <= e.a < 52 else ""
        if e.name == "upcard":
            limit = "gin only" if e.b == 0 else f"knock limit {e.b}"
            self.say(f"\n=== hand {e.hand + 1}: {self.who(e.seat, 'deal', 'deals')}; the upcard is {card} ({limit}) ===")
        elif e.name == "pass":
            self.say(self.who(e.seat, "pass", "passes") + " the upcard")
        elif e.name == "take_upcard":
            self.say(self.who(e.seat, "take", "takes") + f" the upcard {card}")
        elif e.name == "draw_stock":
            self.say(f"you draw {card}" if e.seat == self.seat else f"{self.names[e.seat]} draws from the stock")
        elif e.name == "draw_pile":
            self.say(self.who(e.seat, "take", "takes") + f" {card} from the pile")
        elif e.name == "discard":
            self.say(self.who(e.seat, "discard", "discards") + f" {card}")
        elif e.name == "knock":
            what = ("big gin" if e.a == L.BIG_GIN else f"gin, discarding {card}" if e.b == 0
                    else f"a knock with {e.b} deadwood, discarding {card}")
            self.say(self.who(e.seat, "go", "goes") + f" down: {what}")
        elif e.name == "melds":
            self.say("  " + self.who(e.seat, "lay", "lays") + f" [{format_hand(e.a)}]")
        elif e.name == "layoff":
            laid = format_hand(e.a) or "nothing"
            self.say(self.who(e.seat, "lay", "lays") + f" off {laid}; deadwood {e.b}")
        elif e.name == "void":
            why = (f"it reached the limit of {self.rules.max_draws} draws" if e.a == L.OUT_GUARD
                   else "nobody knocked before the stock came down to its last two cards")
            self.say(f"the hand is void: {why}")

    def hand_over(self, record: np.ndarray, hands: list[int]) -> dict:
        """Every hand shown sorted into melds, the layoffs, how the points were counted and the score; returns
        those facts (``showdown.hand_end``)."""
        for seat in range(self.rules.players):
            self.scores[seat] += int(record[L.H_SEAT_POINTS + seat])
        facts = hand_end(self.rules, self.names, record, hands, self.seen, self.scores)
        for line in hand_lines(facts):
            self.say(line)
        return facts

    def next_hand(self) -> None:
        """Between hands the person reads the showdown, then presses Enter: the game is saved first (a 'quit' here
        loses nothing), and keys typed while the hand ended are dropped rather than taken for the Enter."""
        if self.on_move is not None:
            self.on_move(self.moves)
        if self.new_hand is not None:
            self.new_hand()
        if self.ask_raw(NEXT_HAND).strip().lower() == "quit":
            raise Quit

    def game_over(self, result: dict) -> dict:
        """The totals with the box and game bonuses, explained; returns those facts (``showdown.game_end``)."""
        facts = game_end(self.rules, self.names, result)
        for line in ["", *game_lines(facts)]:  # apart from the hand's end
            self.say(line)
        return facts

    # -- decisions ------------------------------------------------------------------------

    def decide(self, kind: int, view: np.ndarray) -> int:
        self.view = view
        if kind == L.D_DISCARD and self.discard_next is not None:
            card, self.discard_next = self.discard_next, None
            return card
        self.show()
        self.speak(kind, view)
        if kind == L.D_TAKE_UPCARD:
            return self.choose(f"take the upcard {format_card(view[L.V_UPCARD])}? [t]ake / [n]o > ", YES_NO)
        if kind == L.D_DRAW:
            return self.choose(f"draw: [p]ile ({format_card(pile_of(view)[-1])}) / [s]tock > ", PILE_STOCK)
        if kind == L.D_KNOCK:
            return self.knock_offer(view)
        if kind == L.D_DISCARD:
            return self.discard(view)
        return self.arrangement(view)

    def refused(self, refusal: IllegalMove) -> None:
        self.refuse(refusal.reason)

    def knock_offer(self, view: np.ndarray) -> int:
        hand = int(view[L.V_HAND])
        options = ", ".join(f"{format_card(c)} (deadwood {deadwood(hand & ~(1 << c))})"
                            for c in cards_of(int(view[L.V_KNOCK_DISCARDS])))
        options += ("; or " if options else "") + "big gin" if view[L.V_BIG_GIN] else ""
        last_chance = bool(view[L.V_LAST_CHANCE])
        if last_chance:
            top = format_card(pile_of(view)[-1])
            self.say(f"the wall: two stock cards left; you may take {top} only to knock with it: discarding {options}")
        else:
            self.say(f"you may knock: discarding {options}")
        prompt = "'knock CARD', or [n]o (the hand is void) > " if last_chance else "discard a card, or 'knock CARD' > "
        while True:
            words = self.read(prompt).split()
            said = [w.lower() for w in words]
            if said in (["big", "gin"], ["biggin"]):
                return L.BIG_GIN
            if last_chance and said in (["n"], ["no"], ["none"]):
                return L.NO_CARD
            try:
                card, knock = self.card_move(words)
            except OklasimError as exc:
                self.refuse(str(exc))
                continue
            if knock:
                return card
            if last_chance:
                self.refuse("at the wall the last discard is taken only to knock: 'knock CARD', or 'n'")
                continue
            if not hand >> card & 1 or card == view[L.V_FORBIDDEN]:  # refused now, while the knock is still offered
                self.refuse(illegal_reason(L.D_DISCARD, card, hand, int(view[L.V_FORBIDDEN]), 0))
                continue
            self.discard_next = card
            return L.NO_CARD

    def discard(self, view: np.ndarray) -> int:
        while True:
            try:
                card, knock = self.card_move(self.read("discard a card, or 'knock CARD' > ").split())
            except OklasimError as exc:
                self.refuse(str(exc))
                continue
            if not knock:
                return card
            after = deadwood(int(view[L.V_HAND]) & ~(1 << card))
            limit = "this hand is gin only" if view[L.V_KNOCK_LIMIT] == 0 else f"the knock limit is {view[L.V_KNOCK_LIMIT]}"
            self.refuse(f"you cannot knock discarding {format_card(card)}: {after} deadwood left, {limit}")

    @staticmethod
    def card_move(words: list[str]) -> tuple[int, bool]:
        """'Kd' or 'knock Kd' (also 'k Kd', 'gin Kd'): the card, and whether it knocks."""
        knock = bool(words) and words[0].lower() in ("knock", "gin", "k")
        if knock:
            words = words[1:]
        if len(words) != 1:
            raise OklasimError("name one card, e.g. 'Kd' or 'knock Kd'")
        return parse_card(words[0]), knock

    def arrangement(self, view: np.ndarray) -> int:
        count = int(view[L.V_N_ARRANGEMENTS])
        width = MAX_MELDS_IN_ARRANGEMENT
        self.say("lay which melds? (the same deadwood; your opponents lay off against them)")
        for k in range(count):
            row = view[L.V_ARRANGEMENTS + width * k : L.V_ARRANGEMENTS + width * (k + 1)]
            self.say(f"  {k + 1}: {' '.join('[' + format_hand(int(m)) + ']' for m in row if m)}")
        return self.choose(f"1-{count} > ", {str(k): k - 1 for k in range(1, count + 1)})

    # -- the coach ------------------------------------------------------------------------

    def speak(self, kind: int, view: np.ndarray) -> None:
        """The coach's one sentence on the decision asked (none on the melds to lay); 'why' shows its numbers."""
        self.brief = None
        if self.coach is None or self.replaying or kind == L.D_ARRANGE:
            return
        self.brief = self.coach(view, self.seen)
        self.say("coach | " + self.brief.sentence)

    def explain(self) -> None:
        """'why': the numbers behind the coach's sentence."""
        if self.brief is None:
            self.say("  the coach has nothing to say here" + ("" if self.coach else " (play with --coach)"))
            return
        for line in self.brief.details or [self.brief.sentence]:
            self.say("  " + line)

    # -- reading moves --------------------------------------------------------------------

    @property
    def replaying(self) -> bool:
        return self.position < len(self.saved)

    def choose(self, prompt: str, answers: dict):
        while True:
            key = self.read(prompt).strip().lower()
            if key in answers:
                return answers[key]
            self.refuse(f"{key!r} is not one of: {', '.join(k for k in answers if len(k) <= 2)}")

    def read(self, prompt: str) -> str:
        """The next move: from the saved game while replaying, else typed (commands handled here); kept until
        refused. The moves so far were all taken: they are saved before the next one is asked."""
        self.from_save = self.replaying
        if self.from_save:
            self.position += 1
            text = self.saved[self.position - 1]
        else:
            if self.on_move is not None:
                self.on_move(self.moves)
            text = self.typed(prompt)
        self.moves.append(text)
        return text

    def typed(self, prompt: str) -> str:
        while True:
            text = self.ask_raw(prompt).strip()
            command = text.lower()
            if command == "help":
                self.say(HELP)
            elif command == "hand":
                self.show()
            elif command == "why":
                self.explain()
            elif command == "quit":
                raise Quit
            elif text:
                return text

    def refuse(self, reason: str) -> None:
        """The move just read is refused: told, and not kept (a save holds only moves that were taken)."""
        move = self.moves.pop()
        if self.from_save:
            raise OklasimError(f"its move {self.position} {move!r} is refused: {reason}")
        self.say(f"  no: {reason}")


# -- a whole game ---------------------------------------------------------------------------


def write_save(path: Path, record: dict) -> None:
    """The saved game, written whole to a temporary name and renamed: an interruption never leaves half a file."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(temporary, path)


SAVE_FIELDS = {"against": "a strategy's name", "rules": "the rules' fields", "seed": "a whole number from 0",
               "moves": "a list of moves (text)", "coach": "true or false"}
MAX_SAVED_SEED = 2**63 - 1


def load_save(path: Path) -> dict:
    """A saved game's record, every field checked (its moves are checked when they are replayed)."""
    try:
        record = json.loads(read_text(path))
    except (ValueError, RecursionError) as exc:  # not JSON, or numbers or nesting past what JSON readers take
        raise OklasimError(f"cannot read the saved game {path}: {str(exc).splitlines()[0]}") from None
    if not isinstance(record, dict) or record.get("format") != SAVE_FORMAT or not SAVE_FIELDS.keys() <= record.keys():
        raise OklasimError(f"{path} is not a game saved by this oklasim play (save format {SAVE_FORMAT}); "
                           "start a new game")
    checks = {"against": isinstance(record["against"], str), "rules": isinstance(record["rules"], dict),
              "seed": type(record["seed"]) is int and 0 <= record["seed"] <= MAX_SAVED_SEED,
              "moves": isinstance(record["moves"], list) and all(isinstance(m, str) for m in record["moves"]),
              "coach": isinstance(record["coach"], bool)}
    checks["finished"] = isinstance(record.get("finished", False), bool)
    bad = next((name for name, good in checks.items() if not good), None)
    if bad is not None:
        want = SAVE_FIELDS.get(bad, "true or false")
        raise OklasimError(f"the saved game {path} is damaged: its {bad!r} is not {want}; start a new game")
    try:
        Rules.from_dict(record["rules"])
    except OklasimError as exc:
        raise OklasimError(f"the saved game {path} is damaged: {exc}") from None
    return record


def ending_mismatch(record: dict, over: bool) -> str | None:
    """Why a replayed save is not the game it says it is: over when saved as unfinished, or the other way round
    (None when they agree)."""
    finished = bool(record.get("finished"))
    if over == finished:
        return None
    return (f"after its {len(record['moves'])} moves the game is {'over' if over else 'not over'}, yet it is saved "
            f"as {'finished' if finished else 'unfinished'}")


class _Replayed(Exception):
    """A saved game's moves are all replayed: the next one would be typed."""


def check_replay(rules: Rules, strategy, seed: int, moves: list[str], where) -> None:
    """The saved ``moves`` replay exactly (each taken by the referee, the game not over before the last is used);
    ``OklasimError`` in one line otherwise, before anything is shown or saved."""
    def replayed(prompt: str) -> str:
        raise _Replayed

    person = PersonSeat(rules, seat_names(rules, strategy.name), replayed, lambda text: None, moves)
    table = Table(rules, [person] + [BotSeat(strategy) for _ in range(rules.players - 1)], seed)
    try:
        table.play_game()
    except _Replayed:
        return
    except OklasimError as exc:
        raise OklasimError(f"the game saved in {where} does not replay: {exc}; start a new game") from None
    raise OklasimError(f"the game saved in {where} does not replay: it is over after move {person.position} of "
                       f"{len(moves)}, yet saved as unfinished; start a new game")


def discard_typeahead() -> None:
    """Keys typed before a hand starts are not its moves (they would answer its first offer): the terminal's
    pending input is dropped. Only on a terminal; elsewhere (a pipe, a file) the input is read as it comes."""
    try:
        import termios

        if sys.stdin.isatty():
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError):  # no termios (not Unix), or no usable stdin
        pass


def seat_names(rules: Rules, bot: str) -> list[str]:
    """'you', then the bots: by their strategy's name, numbered by seat when there are several."""
    if rules.players == 2:
        return ["you", bot]
    return ["you"] + [f"{bot} (seat {seat})" for seat in range(1, rules.players)]


def play(rules: Rules | None = None, against: str | None = None, seed: int | None = None, save: str | None = None,
         resume: str | None = None, coach: bool = False, ask: Callable[[str], str] = input,
         say: Callable[[str], None] = print, overwrite: bool = False) -> dict | None:
    """Play one game in the terminal (the person in seat 0, bots playing ``against`` in the others); returns the
    result, or None if the person quit. On ``resume``, the saved rules, bot, seed and coach are kept: ``rules``
    and ``against`` must then be None or the saved ones. ``save`` is refused when it holds an unfinished game
    other than the one resumed (unless ``overwrite``) and when it cannot be written, before the first move."""
    saved: list[str] = []
    if resume:
        record = load_save(Path(resume))
        if record.get("finished"):
            raise OklasimError(f"the game saved in {resume} is over; start a new one")
        if against is not None and levels.opponent(against)[0] != record["against"]:
            raise OklasimError(f"the game saved in {resume} is against {record['against']}, not {against}: "
                               "leave out --against to resume it")
        if seed is not None and seed != record["seed"]:
            raise OklasimError(f"the game saved in {resume} has seed {record['seed']}: leave out --seed to resume it")
        if rules is not None and rules != Rules.from_dict(record["rules"]):
            raise OklasimError(f"the game saved in {resume} has its own rules: leave out --rules and --players")
        rules, against, seed, saved = Rules.from_dict(record["rules"]), record["against"], record["seed"], record["moves"]
        coach = coach or record["coach"]
        save = save or resume
    rules = rules or Rules()
    against, shown = levels.opponent(against or "simple")  # a level is saved as the strategy it stands for
    seed = secrets.randbelow(2**31) if seed is None else seed
    strategy = resolve(against)
    save_path = Path(save) if save else None
    if save_path is not None and not save_path.parent.is_dir():
        raise OklasimError(f"cannot save to {save_path}: no folder {save_path.parent}")
    if save_path is not None and not overwrite and not (resume and save_path.resolve() == Path(resume).resolve()):
        _check_free(save_path)
    if saved:
        check_replay(rules, strategy, seed, saved, resume)

    def on_move(moves: list[str], finished: bool = False) -> None:
        if save_path is not None:
            write_save(save_path, {"format": SAVE_FORMAT, "against": against, "rules": rules.to_dict(), "seed": seed,
                                   "coach": coach, "moves": moves, "finished": finished})

    try:
        on_move(saved)  # written now: a save that cannot be written is said before the first move, not at it
    except OSError as exc:
        raise OklasimError(f"cannot save to {save_path}: {exc.strerror or exc}") from None
    names = seat_names(rules, strategy.name if shown == against else shown)
    person = PersonSeat(rules, names, ask, say, saved, on_move=on_move,
                        coach=Coach(against, rules) if coach else None,
                        new_hand=discard_typeahead if ask is input else None)
    table = Table(rules, [person] + [BotSeat(strategy) for _ in range(rules.players - 1)], seed)
    if saved:
        say(f"resuming the game from {resume}: {len(saved)} moves replayed")
    bots = strategy.name if rules.players == 2 else f"{rules.players - 1} bots playing {strategy.name}"
    say(f"you play {bots} under the {rules_label(rules)} rules; type 'help' for the moves")
    try:
        result = table.play_game()
    except Quit:
        say(f"stopped; the game is saved in {save_path} (oklasim play --resume {save_path})" if save_path
            else "stopped (use --save FILE to keep a game)")
        return None
    on_move(person.moves, finished=True)
    return result


def _check_free(path: Path) -> None:
    """A new game is saved over a file only when that file is a finished game."""
    if not path.exists():
        return
    try:
        unfinished = not load_save(path).get("finished")
    except OklasimError:
        raise OklasimError(f"{path} exists and is not a saved game: choose another file for --save, or give "
                           "--overwrite to replace it") from None
    if unfinished:
        raise OklasimError(f"{path} holds an unfinished game: go on with it with --resume {path}, or give "
                           "--overwrite to start a new one there")


def rules_label(rules: Rules) -> str:
    from oklasim.game.rules import PRESETS

    for name in PRESETS:
        if Rules.preset(name).replace(players=rules.players) == rules:
            return name if rules.players == Rules.preset(name).players else f"{name} ({rules.players} players)"
    return "custom"
