"""The review of a saved game (``/review/{game}``) and the player's statistics (``/stats``), as pages.

A review (``oklasim.review.review``) judges every decision of the person's seat with the advisor: a minute or so
for a game of six hands at the default budget, so it runs in a thread of the server process and the page polls its
progress; the job belongs to the server, so a reloaded page re-attaches to it. It is kept after every decision in
``GAMES/<id>.review.json``, the file ``oklasim review GAMES/<id>.json`` writes: either goes on from the other's
with the same worlds per decision and seed 0 (the file names the game by its fingerprint, not its path). One
review is judged at a time, since each keeps every core busy: a second request for the same game joins the running
one, a request for another game is refused (429) until it ends. The advisor's other users (the advise form, the
coach) are not held up: they share the cores meanwhile.

Stopping: ``review`` checks nothing itself, so the progress callback it calls after each decision raises
``Stopped`` once the server is stopping; the decisions being judged end (``judge_all`` waits for them), the
thread returns, and ``Reviews.stop_all`` waits for that: at most one decision's time. The decisions judged are in
the review file, and the next start goes on from them.

The statistics are ``oklasim stats`` over the games folder: the same tables, and the same figures rendered
server-side as PNG into memory (``/stats/points_per_hand.png``, ``/stats/outcomes.png``, and
``/stats/points_lost.png`` once a game has a complete review).
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from oklasim.errors import OklasimError
from oklasim.web.play import GAME_ID
from oklasim.web.safety import Refused, inside

log = logging.getLogger("oklasim.web")

REVIEW_SEED = 0  # the seed `oklasim review` uses by default: a review written there is shown here
DEFAULT_SAMPLES = 40_000  # ``oklasim.review.judge.REVIEW_SAMPLES``, here so that building the app loads no advisor
MAX_SAMPLES = 400_000  # worlds per decision a server may be set to: ten times the default, hours for one game
MAX_RUNNING = 1  # reviews judged at once: each already uses every core
RUNNING, COMPLETE, FAILED, NOT_STARTED, NOTHING = "running", "complete", "failed", "not started", "nothing to review"
SUITS = {"s": "\u2660", "c": "\u2663", "d": "\u2666", "h": "\u2665"}


class Stopped(Exception):
    """Raised in a review's thread, between two decisions, once the server is stopping."""


@dataclass
class ReviewJob:
    """A review being judged in its own thread: how far it is, and why it ended if it failed."""

    game_id: str
    total: int
    judged: int
    thread: threading.Thread | None = None
    status: str = RUNNING
    error: str | None = None

    def state(self) -> dict:
        return {"game": self.game_id, "status": self.status, "judged": self.judged, "total": self.total,
                "error": self.error}


class Reviews:
    """The reviews of the games saved in ``folder``: read from their files, and judged here one at a time."""

    def __init__(self, folder: Path, samples: int | None = None, workers: int | None = None):
        samples = DEFAULT_SAMPLES if samples is None else samples
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
            raise OklasimError(f"review samples {samples!r}: worlds per decision, from 1 to {MAX_SAMPLES:,}")
        self.folder, self.samples = folder, samples
        self.workers = workers or os.cpu_count() or 1
        self.jobs: dict[str, ReviewJob] = {}  # running ones, and failed ones until started again
        self.lock = threading.Lock()  # guards ``jobs``: one start at a time decides who runs
        self.stopping = threading.Event()

    # -- the files ----------------------------------------------------------------------------------------------

    def files(self, game_id: str) -> tuple[Path, Path]:
        """The save and the review file of a game; ``Refused`` (404) for anything that is not a saved game's id."""
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            raise Refused(404, f"no game {game_id!r}")
        for name in (f"{game_id}.json", f"{game_id}.review.json"):
            inside(self.folder, name)  # neither may be a link out of the folder
        save = self.folder / f"{game_id}.json"
        if not save.is_file():
            raise Refused(404, f"no game {game_id!r}")
        return save, save.with_name(f"{game_id}.review.json")

    def _kept(self, game_id: str):
        """The game replayed, its review file and the decisions that file holds with this server's settings."""
        from oklasim.review import saved_game
        from oklasim.review.report import judged_before

        save, out = self.files(game_id)
        game = saved_game(save)
        return game, out, judged_before(out, game, self.samples, REVIEW_SEED)

    # -- what the page shows ------------------------------------------------------------------------------------

    def status(self, game_id: str) -> dict:
        """The review's state (running, complete, failed, not started, nothing to review: decisions judged of
        all), with the whole review (``Review.to_dict``) once complete."""
        job = self._running(game_id)
        if job is not None:
            return job.state()
        state, review = self._on_file(game_id)
        return {**state, "review": review.to_dict() if review is not None else None}

    def shown(self, game_id: str) -> dict:
        """The review page's context: the state, and the review told as a teacher would once it is complete."""
        job = self._running(game_id)
        if job is not None:
            return {"state": job.state(), "taught": None}
        state, review = self._on_file(game_id)
        return {"state": state, "taught": taught(review) if review is not None else None}

    def _running(self, game_id: str) -> ReviewJob | None:
        self.files(game_id)  # an unknown id is not found, running or not
        with self.lock:
            job = self.jobs.get(game_id)
        return job if job is not None and job.status == RUNNING else None

    def _on_file(self, game_id: str):
        """(state, the complete ``Review`` or None) from the review file; a failed job's reason is kept in it."""
        from oklasim.review.report import Review

        game, _, judged = self._kept(game_id)
        total = len(game.decisions)
        status = NOTHING if not total else COMPLETE if len(judged) == total else NOT_STARTED
        with self.lock:
            job = self.jobs.get(game_id)
        error = job.error if job is not None and status != COMPLETE else None
        state = {"game": game_id, "status": status, "judged": len(judged), "total": total, "error": error}
        if status != COMPLETE:
            return state, None
        return state, Review(game, tuple(judged[d.number] for d in game.decisions), self.samples, REVIEW_SEED)

    # -- judging ------------------------------------------------------------------------------------------------

    def start(self, game_id: str) -> dict:
        """Judge the game's review in a thread, going on from its file; the running one joined if there is one.
        ``Refused``: 429 while another game's review runs, 503 once the server is stopping."""
        if self.stopping.is_set():
            raise Refused(503, "the server is stopping")
        with self.lock:  # held while the game replays (milliseconds): two starts cannot both pass the checks
            job = self.jobs.get(game_id)
            if job is not None and job.status == RUNNING:
                return job.state()
            running = [j for j in self.jobs.values() if j.status == RUNNING]
            if len(running) >= MAX_RUNNING:
                raise Refused(429, f"the review of game {running[0].game_id[:8]} is being judged (one at a time: "
                                   "each keeps every core busy); start this one when it ends")
            game, out, judged = self._kept(game_id)
            if not game.decisions:
                raise Refused(409, "no decision of yours to review yet: play a few moves first")
            if len(judged) == len(game.decisions):
                return {"game": game_id, "status": COMPLETE, "judged": len(judged), "total": len(judged),
                        "error": None}
            job = self.jobs[game_id] = ReviewJob(game_id, len(game.decisions), len(judged))
            job.thread = threading.Thread(target=self._judge, args=(job, game, out), name=f"review-{game_id[:8]}")
            job.thread.start()
            return job.state()

    def _judge(self, job: ReviewJob, game, out: Path) -> None:
        """The review's thread: it ends complete, failed with a one-line reason, or stopped with the server."""
        from oklasim.review import review

        def progress(judged: int, total: int) -> None:
            if self.stopping.is_set():
                raise Stopped
            job.judged = judged

        try:
            review(game, self.samples, REVIEW_SEED, self.workers, out, progress=progress)
        except Stopped:
            self._end(job, "the server stopped: start the review again to go on from the decisions judged")
        except OklasimError as exc:
            self._end(job, str(exc).splitlines()[0])
        except Exception as exc:  # a bug: without this the page would show "running" for ever
            log.error("review of game %s failed: %s: %s", job.game_id, type(exc).__name__, exc)
            log.debug("traceback", exc_info=exc)
            self._end(job, "internal error (a bug in oklasim; the server log says more)")
        else:
            self._end(job, None)

    def _end(self, job: ReviewJob, error: str | None) -> None:
        with self.lock:
            job.status, job.error = (FAILED, error) if error else (COMPLETE, None)
            if error is None:  # a complete review is read from its file: the job is no longer needed
                self.jobs.pop(job.game_id, None)

    def stop_all(self) -> None:
        """At the server's shutdown: each running review stops after the decisions being judged, and is waited for."""
        self.stopping.set()
        with self.lock:
            threads = [job.thread for job in self.jobs.values() if job.thread is not None]
        for thread in threads:
            thread.join()


# -- the review told as a teacher would -----------------------------------------------------------------------------

def taught(review) -> dict:
    """What the page shows of a complete review: the summary by kind of decision, the knock decisions, the costliest
    decisions drawn as cards, then every decision hand by hand, and the assumptions (``review.to_dict()``)."""
    from oklasim.review.report import COSTLIEST, KIND_WORDS

    data = review.to_dict()
    kinds = [{"kind": kind, "words": KIND_WORDS[kind], **row} for kind, row in data["summary"]["by_kind"].items()
             if row["decisions"]]
    costliest = sorted(review.mistakes(), key=lambda j: -j.lost.mean)[:COSTLIEST]  # as ``Review.lines`` picks them
    return {"data": data, "kinds": kinds, "knock_lines": review.knock_lines(),
            "costliest": [drawn(j) for j in costliest], "hands": hands_of(review), "ending": ending(review.game)}


def drawn(judgement) -> dict:
    """A decision drawn as cards: the hand sorted into melds and loose cards, the upcard, the play and the best."""
    from oklasim.game.cards import parse_hand
    from oklasim.table.showdown import sorted_hand

    hand = sorted_hand(parse_hand(judgement.cards))
    return {"judgement": judgement, "melds": [[face(c) for c in meld] for meld in hand["melds"]],
            "loose": [face(c) for c in hand["loose"]], "deadwood": hand["deadwood"],
            "upcard": face(judgement.upcard) if judgement.upcard else None, "lost": lost_text(judgement)}


def face(card: str) -> dict:
    """A card ("Th") as the page draws it: "10" and the suit's sign, coloured by its suit (as ``OK.card``)."""
    suit = card[-1].lower()
    return {"rank": card[:-1].upper().replace("T", "10"), "suit": suit, "sign": SUITS[suit]}


def lost_text(judgement) -> str:
    """The points a play lost and their 95% interval; '0' for the best play, '' when not judged."""
    from oklasim.review.judge import BEST

    lost = judgement.lost
    if lost is None:
        return ""
    if judgement.verdict == BEST:
        return "0"
    return f"{lost.mean:.1f} [{lost.low:.1f}, {lost.high:.1f}]"


def hands_of(review) -> list[dict]:
    """Each hand: how it ended, the points its mistakes lost, and its decisions."""
    from oklasim.review.judge import MISTAKE

    ended = {facts["hand"]: facts for facts in review.game.hands}
    out = []
    for number in range(review.hands):
        mine = [j for j in review.judgements if j.hand == number]
        out.append({"number": number + 1, "ended": hand_ending(ended.get(number)),
                    "decisions": [decision_row(j) for j in mine],
                    "lost": sum(j.lost.mean for j in mine if j.verdict == MISTAKE)})
    return out


def decision_row(judgement) -> dict:
    """A decision as its table row shows it: the hand sorted into melds, the verdict's colour, and the points lost
    with their interval, or why it was not judged."""
    from oklasim.game.cards import parse_hand
    from oklasim.review.judge import NOT_JUDGED
    from oklasim.table.terminal import arranged

    judged = judgement.verdict != NOT_JUDGED
    return {"judgement": judgement, "cards": arranged(parse_hand(judgement.cards)),
            "css": "verdict-" + judgement.verdict.replace(" ", "-"),
            "lost": lost_text(judgement) if judged else judgement.reason, "lost_css": "lost" if judged else "reason"}


def hand_ending(facts: dict | None) -> str:
    """'won by knock, +23 points'; for the hand the save ends in, that it is not over."""
    from oklasim.review.stats import OPPONENT, PERSON, hand_result

    if facts is None:
        return "not over: the save ends in it"
    return f"{hand_result(facts)}, {facts['points'][PERSON] - facts['points'][OPPONENT]:+d} points"


def ending(game) -> str:
    """How the game ended, or that the save stops before its end."""
    if game.result is None:
        return "the game is not over: the review goes as far as its save"
    totals = game.result["totals"]
    winner = "you" if game.result["winner"] == game.seat else game.opponent
    return f"the game is over: {winner} won, {totals[game.seat]} to {totals[1 - game.seat]}"


# -- the statistics -------------------------------------------------------------------------------------------------

FIGURES = threading.Lock()  # pyplot keeps global state: one figure drawn at a time


class StatsPages:
    """``oklasim stats`` over the games folder, computed again only when its saves change (the page and its two
    figures ask for the same statistics one after the other)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.lock = threading.Lock()
        self.cached: tuple[tuple, object] | None = None  # (the folder's saves as (name, mtime, size), the stats)

    def stats(self):
        """``PlayerStats`` of the folder; ``OklasimError`` (its one-line reason) when it holds no saved game."""
        from oklasim.review.stats import player_stats

        with self.lock:
            key = self._listing()
            if self.cached is None or self.cached[0] != key:
                self.cached = (key, player_stats(self.folder))
            return self.cached[1]

    def _listing(self) -> tuple:
        if not self.folder.is_dir():
            return ()
        listed = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                stat = path.stat()
            except OSError:  # gone meanwhile
                continue
            listed.append((path.name, stat.st_mtime_ns, stat.st_size))
        return tuple(listed)

    def shown(self) -> dict:
        """The stats page's context: the summary line, the tables, the figures, the games and the files skipped;
        ``empty`` (why) when the folder holds no saved game yet."""
        from oklasim.review.stats import FIGURE_TITLES, summary, tables

        try:
            stats = self.stats()
        except OklasimError as exc:
            return {"empty": str(exc).splitlines()[0]}
        games = [{"file": g.file, "id": Path(g.file).stem if GAME_ID.match(Path(g.file).stem) else None,
                  "opponent": g.opponent, "rules": g.rules, "finished": g.finished, "won": g.won,
                  "hands": len(g.hands)} for g in stats.games]
        return {"empty": None, "summary": summary(stats), "tables": tables(stats), "titles": FIGURE_TITLES,
                "games": games, "skipped": stats.skipped}

    def figure(self, name: str) -> bytes:
        """A figure of ``oklasim stats`` as PNG: one its tables show (the reviewed points lost only once a game has
        a complete review); ``Refused`` (404) for any other name."""
        from oklasim.review import stats as player

        try:
            stats = self.stats()
        except OklasimError as exc:
            raise Refused(404, str(exc).splitlines()[0]) from None
        if name not in {table.figure for table in player.tables(stats) if table.figure}:
            raise Refused(404, f"no figure {name!r}")
        draw = {player.POINTS_FIGURE: player.points_figure, player.OUTCOMES_FIGURE: player.outcomes_figure,
                player.LOST_FIGURE: player.lost_figure}[name]
        with FIGURES:
            return player.png(draw(stats))
