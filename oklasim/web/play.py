"""Games at the web table: the person in seat 0 against bots, on the same referee as ``oklasim play``.

A ``Session`` is a ``Table`` (``oklasim.table.referee``: the engine's step machine, ``BotSeat`` bots) driven one
decision at a time: the bots play until the person is asked, the person's click arrives as a move in the
terminal table's words ('t', 'n', 'p', 's', 'Kd', 'knock Kd', 'big gin', '1'), and the referee takes it or
refuses it with its own reason. Games are saved after every move in the terminal table's save format
(``oklasim.table.terminal``, format 2: rules, bot, seed and moves), so a game saved here resumes here or with
``oklasim play --resume``, and one saved there resumes here; a save that does not replay exactly is refused.

Each game has one lock, kept while anyone holds the game, loads from its save included: one request at a time
changes or reads a game. The coach never runs under it: it advises on a copy of what the seat sees.
"""

from __future__ import annotations

import re
import secrets
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from oklasim._kernels import layout as L
from oklasim._kernels.melds_nb import MAX_MELDS_IN_ARRANGEMENT
from oklasim.errors import OklasimError
from oklasim.game import melds
from oklasim.game.cards import cards_of, format_card
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim.board import Event, IllegalMove, pile_of
from oklasim.sim.engine import DECISION_NAMES, illegal_reason
from oklasim.strategies.registry import resolve
from oklasim.table import levels
from oklasim.table.coach import Coach
from oklasim.table.referee import BotSeat, Table
from oklasim.table.showdown import sorted_hand
from oklasim.table.terminal import (
    PILE_STOCK,
    SAVE_FORMAT,
    YES_NO,
    PersonSeat,
    ending_mismatch,
    known_holdings,
    load_save,
    rules_label,
    seat_names,
    write_save,
)
from oklasim.web.safety import Refused, bounded_int, inside

GAME_ID = re.compile(r"^[0-9a-f]{32}$")
MAX_SESSIONS = 64  # games kept in memory; older ones are reloaded from their save when opened again
MAX_SEED = 2**31 - 1
MAX_LOG = 400  # lines of the table's story kept for the page
DECISION_KINDS = ("take_upcard", "draw", "knock", "discard", "arrange")  # layout.D_*, as the page names them
TURN_STARTS = {"pass": "passed the upcard", "take_upcard": "took the upcard {}", "draw_stock": "drew from the stock",
               "draw_pile": "took {} from the pile"}  # a seat's turn, as the page tells a bot's
TURN_ENDS = {"discard": "threw {}", "knock": "went down, throwing {}"}


def bot_turns(events: list[Event], names: list[str]) -> list[dict]:
    """The bots' turns since the person's last move this hand: 'greedy drew from the stock and threw 7h', with the
    card each took from the pile and the one it threw (the page marks them on the table)."""
    turns: list[dict] = []
    for e in events:
        if e.name not in TURN_STARTS and e.name not in TURN_ENDS:
            continue
        card = format_card(e.a) if 0 <= e.a < 52 else None  # none: a stock card it drew, or a big gin's knock
        if e.seat == 0:
            turns = []
        elif e.name in TURN_STARTS:
            took = card if e.name in ("take_upcard", "draw_pile") else None
            turns.append({"name": names[e.seat], "did": [TURN_STARTS[e.name].format(card)], "took": took,
                          "threw": None})
        elif turns:
            turns[-1]["did"].append(TURN_ENDS[e.name].format(card) if card else "went down with big gin")
            turns[-1]["threw"] = card
    return [{"text": f"{t['name']} {' and '.join(t['did'])}", "took": t["took"], "threw": t["threw"]} for t in turns]


class WebSeat(PersonSeat):
    """The person's seat: ``PersonSeat`` tells the table's events as text (kept for the page) and keeps the hand's
    history for the coach; each showdown is also kept whole. Its decisions come from ``Session.move``."""

    def __init__(self, rules: Rules, names: list[str]):
        self.story: list[str] = []
        self.told = 0  # lines of the story told so far, those dropped from it included
        self.showdowns: list[dict] = []
        self.ending: dict | None = None  # the game's end (``showdown.game_end``), once it is over
        super().__init__(rules, names, ask=self._no_prompt, say=self._keep)

    def _keep(self, text: str) -> None:
        lines = text.strip("\n").splitlines()
        self.story += lines
        self.told += len(lines)
        del self.story[:-MAX_LOG]

    @staticmethod
    def _no_prompt(prompt: str) -> str:
        raise OklasimError("the web table takes moves, it does not prompt")  # a bug: Session never calls decide

    def hand_over(self, record: np.ndarray, hands: list[int]) -> dict:
        """The hand's end kept whole, with the number of moves it came after (``self.moves`` is the session's) and
        of lines told by then: the page shows it, and the story up to it, until the person moves on."""
        facts = super().hand_over(record, hands)
        self.showdowns.append({**facts, "moves": len(self.moves), "told": self.told})
        return facts

    def game_over(self, result: dict) -> dict:
        self.ending = super().game_over(result)
        return self.ending

    def next_hand(self) -> None:
        pass  # the page waits for its own 'next hand' click


class Session:
    """One game: the table, the person's seat, the moves so far and where they are saved."""

    def __init__(self, game_id: str, rules: Rules, against: str, seed: int, path: Path, coach: bool = True,
                 lock: threading.Lock | None = None):
        self.id, self.rules, self.against, self.seed, self.path, self.coach = game_id, rules, against, seed, path, coach
        self.advisor = Coach(against, rules)  # keeps the hand's last advice: a dropped plan says what was seen since
        strategy = resolve(against)
        self.person = WebSeat(rules, seat_names(rules, strategy.name))
        self.table = Table(rules, [self.person] + [BotSeat(strategy) for _ in range(rules.players - 1)], seed)
        self.moves = self.person.moves  # one list: the seat counts the moves each showdown came after
        self.asked: tuple[int, int] | None = None
        self.result: dict | None = None
        self.lock = lock or threading.Lock()  # one request at a time per game (``Games.open``)
        self._advance()

    @property
    def board(self):
        return self.table.game

    # -- moves ----------------------------------------------------------------------------------

    def move(self, text: str, save: bool = True, at: int | None = None) -> None:
        """Play the person's move (the terminal table's words); ``Refused`` with the referee's reason if illegal,
        and 409 when ``at`` (the number of moves the page showed) is not this table's: the page is stale."""
        if at is not None and at != len(self.moves):
            raise Refused(409, f"the table has moved on (move {len(self.moves)}; the page showed move {at}): "
                               "it is shown again, play again")
        if self.asked is None:
            raise Refused(409, "the game is over")
        text = " ".join(str(text).split())
        kind = self.asked[1]
        for step, (step_kind, answer) in enumerate(self._answers(kind, text)):
            if step:  # the plain discard at a knock offer: the board asks for it once the knock is declined
                self._advance()
            try:
                self.board.apply(0, step_kind, answer)
            except IllegalMove as refusal:
                raise Refused(400, refusal.reason) from None
            self.asked = None
        self.moves.append(text)
        self._advance()
        if save:
            self.save()

    def _answers(self, kind: int, text: str) -> list[tuple[int, int]]:
        """The (decision, answer) pairs a move means at decision ``kind``, as ``PersonSeat`` reads typed moves."""
        said = text.lower()
        if kind == L.D_TAKE_UPCARD:
            return [(kind, self._choice(said, YES_NO))]
        if kind == L.D_DRAW:
            return [(kind, self._choice(said, PILE_STOCK))]
        if kind == L.D_ARRANGE:
            count = int(self.view[L.V_N_ARRANGEMENTS])
            return [(kind, self._choice(said, {str(k): k - 1 for k in range(1, count + 1)}))]
        if kind == L.D_KNOCK and said in ("big gin", "biggin"):
            return [(kind, L.BIG_GIN)]
        last_chance = kind == L.D_KNOCK and bool(self.view[L.V_LAST_CHANCE])
        if last_chance and said in ("n", "no", "none"):
            return [(kind, L.NO_CARD)]
        try:
            card, knock = PersonSeat.card_move(text.split())
        except OklasimError as exc:
            raise Refused(400, str(exc)) from None
        if knock:
            return [(L.D_KNOCK, card)]  # asked to discard only: the referee says no knock is asked
        if kind == L.D_DISCARD:
            return [(kind, card)]
        if last_chance:
            raise Refused(400, "at the wall the last discard is taken only to knock: 'knock CARD', or 'n'")
        hand, forbidden = int(self.view[L.V_HAND]), int(self.view[L.V_FORBIDDEN])
        if not hand >> card & 1 or card == forbidden:  # refused now, while the knock is still offered
            raise Refused(400, illegal_reason(L.D_DISCARD, card, hand, forbidden, 0))
        return [(L.D_KNOCK, L.NO_CARD), (L.D_DISCARD, card)]

    @staticmethod
    def _choice(said: str, answers: dict) -> int:
        if said not in answers:
            raise Refused(400, f"{said!r} is not one of: {', '.join(k for k in answers if len(k) <= 2)}")
        return answers[said]

    def _advance(self) -> None:
        """The bots play (deciding on their own rows, as in the engine) until the person is asked or the game ends."""
        game = self.board
        while (asked := game.next_decision()) is not None:
            self.table.publish()
            seat, kind = asked
            if seat == 0:
                self.asked = asked
                return
            answer = self.table.seats[seat].decide(kind, game.view(seat))
            try:
                game.apply(seat, kind, answer)
            except IllegalMove as refusal:
                self.table.seats[seat].refused(refusal)  # a bot's refusal is a bug in it: it ends the game
        self.table.publish()
        self.asked = None
        self.result = game.result()
        self.person.game_over(self.result)

    # -- what the page shows --------------------------------------------------------------------

    @property
    def view(self) -> np.ndarray:
        return self.board.view(0)

    def state(self) -> dict:
        v, players = self.view, self.rules.players
        pile = [format_card(c) for c in pile_of(v)]
        hand = int(v[L.V_HAND])
        out = {
            "id": self.id, "against": self.against, "seed": self.seed, "players": players, "names": self.person.names,
            "rules": rules_label(self.rules), "target": self.rules.target_score,
            "hand_number": int(v[L.V_HAND_NUMBER]) + 1, "upcard": _card(v[L.V_UPCARD]),
            "knock_limit": int(v[L.V_KNOCK_LIMIT]), "stock": int(v[L.V_STOCK_LEFT]), "pile": pile,
            "scores": self.result["scores"] if self.result else [int(v[L.V_SCORES + s]) for s in range(players)],
            "holdings": {self.person.names[s]: [format_card(c) for c in cards_of(known_holdings(v, s))]
                         for s in range(1, players) if known_holdings(v, s)},
            "hand": sorted_hand(hand), "cards": [format_card(c) for c in cards_of(hand)],
            "story": self.person.story[-60:], "told": self.person.told, "showdowns": self.person.showdowns,
            "moves": len(self.moves),
            "bots": bot_turns(self.person.seen, self.person.names), "over": self.asked is None,
            "result": self.result, "ending": self.person.ending, "decision": None,
        }
        if self.asked is not None:
            out["decision"] = self._decision(self.asked[1], v)
        return out

    def _decision(self, kind: int, v: np.ndarray) -> dict:
        hand = int(v[L.V_HAND])
        decision = {"kind": DECISION_KINDS[kind],
                    "text": DECISION_NAMES[kind], "coach": kind != L.D_ARRANGE and self.rules.players == 2}
        if kind == L.D_KNOCK:
            decision["knocks"] = [{"card": format_card(c), "deadwood": int(melds.deadwood([hand & ~(1 << c)])[0])}
                                  for c in cards_of(int(v[L.V_KNOCK_DISCARDS]))]
            decision["big_gin"] = bool(v[L.V_BIG_GIN])
            decision["last_chance"] = bool(v[L.V_LAST_CHANCE])
        if kind in (L.D_KNOCK, L.D_DISCARD):
            decision["forbidden"] = _card(v[L.V_FORBIDDEN])
        if kind == L.D_ARRANGE:
            width = MAX_MELDS_IN_ARRANGEMENT
            rows = [v[L.V_ARRANGEMENTS + width * k : L.V_ARRANGEMENTS + width * (k + 1)]
                    for k in range(int(v[L.V_N_ARRANGEMENTS]))]
            decision["arrangements"] = [[[format_card(c) for c in cards_of(int(m))] for m in row if m] for row in rows]
        return decision

    def coach_question(self) -> CoachQuestion:
        """What the coach needs for the decision asked, copied: it is advised on outside the game's lock."""
        if self.asked is None or self.asked[1] == L.D_ARRANGE:
            raise Refused(409, "no decision of yours to advise on now")
        return CoachQuestion(self.view.copy(), list(self.person.seen), self.advisor, len(self.moves))

    # -- saving -------------------------------------------------------------------------------------

    def save(self) -> None:
        write_save(self.path, {"format": SAVE_FORMAT, "against": self.against, "rules": self.rules.to_dict(),
                               "seed": self.seed, "coach": self.coach, "moves": self.moves,
                               "finished": self.asked is None})


@dataclass(frozen=True)
class CoachQuestion:
    """The seat's view and the hand's history at one decision (the move number it was asked at)."""

    view: np.ndarray
    seen: list
    coach: Coach  # its opponent is the one the advice assumes
    moves: int

    def brief(self) -> dict:
        """The coach's word on the decision, with the hand's real history (``oklasim play --coach``), for the page."""
        return self.coach(self.view, self.seen).to_dict()


def _card(card) -> str | None:
    return format_card(int(card)) if 0 <= card < 52 else None


class Games:
    """The games of this server: new ones, and saved ones reopened from the games folder by their id."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        # One lock per game id while anyone holds it (a game evicted from memory but still in use keeps its lock,
        # so its reload waits for that use to end).
        self.locks: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
        self.broken: dict[str, tuple[float, str]] = {}  # saves that did not replay: modification time, why
        self.lock = threading.Lock()  # guards the maps above

    def new(self, preset: str, players, against: str, seed) -> Session:
        if preset not in PRESETS:
            raise Refused(400, f"unknown rules preset {preset!r}; choose from {', '.join(PRESETS)}")
        rules = Rules.preset(preset)
        if players not in (None, ""):
            rules = rules.replace(players=bounded_int(players, "players", 2, 4))
        seed = secrets.randbelow(MAX_SEED) if seed in (None, "") else bounded_int(seed, "seed", 0, MAX_SEED)
        self.folder.mkdir(parents=True, exist_ok=True)
        game_id = secrets.token_hex(16)
        strategy = levels.opponent(str(against or "simple"))[0]  # a level is kept as the strategy it stands for
        session = Session(game_id, rules, strategy, seed, self._path(game_id),
                          lock=self._lock_of(game_id))
        session.save()
        return self._keep(session)

    @contextmanager
    def open(self, game_id: str) -> Iterator[Session]:
        """The game, its lock held for the ``with`` block: from memory, or replayed from its save under that lock."""
        path = self._path(game_id)
        lock = self._lock_of(game_id)
        with lock:
            yield self._session(game_id, path, lock)

    def _lock_of(self, game_id: str) -> threading.Lock:
        with self.lock:
            lock = self.locks.get(game_id)
            if lock is None:
                lock = self.locks[game_id] = threading.Lock()
            return lock

    def _session(self, game_id: str, path: Path, lock: threading.Lock) -> Session:
        with self.lock:
            if game_id in self.sessions:
                self.sessions.move_to_end(game_id)
                return self.sessions[game_id]
        if not path.is_file():
            raise Refused(404, f"no game {game_id!r}")
        try:
            session = self._replay(game_id, path, lock)
        except OklasimError as exc:
            with self.lock:
                self.broken[game_id] = (_mtime(path), str(exc))
            raise
        return self._keep(session)

    @staticmethod
    def _replay(game_id: str, path: Path, lock: threading.Lock) -> Session:
        """A saved game replayed move by move; ``Refused`` (400) unless every move is taken and it ends as saved."""
        record = load_save(path)
        session = Session(game_id, Rules.from_dict(record["rules"]), record["against"], record["seed"], path,
                          record["coach"], lock)
        for number, move in enumerate(record["moves"], 1):
            try:
                session.move(move, save=False)
            except Refused as exc:
                raise Refused(400, f"the saved game {game_id} does not replay: its move {number} {move!r} is "
                                   f"refused: {exc}; start a new game") from None
        mismatch = ending_mismatch(record, session.asked is None)
        if mismatch:
            raise Refused(400, f"the saved game {game_id} does not replay: {mismatch}")
        return session

    def saved(self) -> tuple[list[dict], list[str]]:
        """The saved games, newest first (id, opponent, moves, whether it is over), and a note for each save
        skipped because it cannot be read or does not replay."""
        out, skipped = [], []
        if not self.folder.is_dir():
            return out, skipped
        paths = [p for p in self.folder.glob("*.json") if GAME_ID.match(p.stem)]
        for path in sorted(paths, key=_mtime, reverse=True)[:50]:
            with self.lock:
                broken = self.broken.get(path.stem)
            try:
                if broken is not None and broken[0] == _mtime(path):
                    raise OklasimError(broken[1])
                record = load_save(path)
            except OklasimError as exc:
                skipped.append(f"{path.stem[:8]}: {exc}")
                continue
            out.append({"id": path.stem, "against": record["against"], "seed": record["seed"],
                        "moves": len(record["moves"]), "finished": bool(record.get("finished"))})
        return out, skipped

    def _path(self, game_id: str) -> Path:
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            raise Refused(404, f"no game {game_id!r}")
        return inside(self.folder, f"{game_id}.json")

    def _keep(self, session: Session) -> Session:
        with self.lock:
            self.sessions[session.id] = session
            self.broken.pop(session.id, None)
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        return session


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # gone meanwhile
        return 0.0
