"""The application: its pages, its API (``/api/...``, JSON) and the middleware that bounds and guards them.

``create_app(config)`` builds one server's app; nothing is compiled or loaded until a page needs it (the
engine's kernels, the strategies and polars load on the first advice, game, knock table or run). The event loop
never waits for a lock or the advisor: whatever may wait runs in a worker thread, so one slow request (the coach,
an advice) holds up no page.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from oklasim.errors import OklasimError
from oklasim.web import errors
from oklasim.web.safety import (
    LOCAL_HOSTS,
    MAX_BODY,
    TOKEN_HEADER,
    BodyLimit,
    Framing,
    Refused,
    bounded_int,
    check_token,
    is_local,
    new_token,
    read_json,
)

HERE = Path(__file__).resolve().parent
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
MAX_MOVES = 100_000  # the move number a page may send: far past any game's


@dataclass(frozen=True)
class Config:
    runs: Path = Path("runs")
    reports: Path = Path("reports")
    games: Path | None = None  # default: RUNS/web-games
    host: str = "127.0.0.1"
    review_samples: int | None = None  # worlds per decision of a review (None: `oklasim review`'s); tests use few
    review_workers: int | None = None  # decisions a review judges at once (None: every core)

    @property
    def games_dir(self) -> Path:
        return self.games if self.games is not None else self.runs / "web-games"


class Gate:
    """ASGI middleware: refuses a request for another host name when serving this machine only (a page of another
    site reaching it through DNS rebinding), and a state-changing request without this server's page token (403)."""

    def __init__(self, app, token: str, hosts: tuple[str, ...] | None):
        self.app, self.token, self.hosts = app, token, hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            try:
                self.check(scope)
            except Refused as refusal:
                response = errors.error_response(scope["path"], refusal.status, str(refusal), scope["method"])
                return await response(scope, receive, send)
        return await self.app(scope, receive, send)

    def check(self, scope) -> None:
        headers = dict(scope["headers"])
        if self.hosts is not None:
            host = headers.get(b"host", b"").decode("latin-1")
            name = host[1:].partition("]")[0] if host.startswith("[") else host.rpartition(":")[0] or host
            name = name.lower()  # host names are case-insensitive (RFC 4343)
            if name not in self.hosts:
                raise Refused(400, f"host {host!r} is not this server's (it serves {', '.join(self.hosts)})")
        if scope["method"] not in SAFE_METHODS:
            check_token(headers.get(TOKEN_HEADER.lower().encode(), b"").decode("latin-1"), self.token)


def create_app(config: Config = Config(), token: str | None = None) -> Starlette:
    from oklasim.web.jobs import Jobs
    from oklasim.web.play import Games
    from oklasim.web.review import Reviews, StatsPages

    token = token or new_token()
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    games, jobs = Games(config.games_dir), Jobs(config.runs)
    reviews = Reviews(config.games_dir, config.review_samples, config.review_workers)
    stats = StatsPages(config.games_dir)

    def area_root(area: str) -> Path:
        if area not in ("reports", "runs"):
            raise Refused(404, f"no such folder: {area!r}")
        return config.reports if area == "reports" else config.runs

    def page(request: Request, name: str, **context):
        return templates.TemplateResponse(request, name, {"token": token, **context})

    async def body(request: Request) -> dict:
        data = read_json(await request.body())
        if not isinstance(data, dict):
            raise Refused(400, "send a JSON object")
        return data

    # -- pages --------------------------------------------------------------------------------------

    async def home(request):
        return page(request, "home.html")

    async def advise_page(request):
        return page(request, "advise.html", presets=_presets(), strategies=await run_in_threadpool(_strategies))

    async def play_page(request):
        saved, skipped = await run_in_threadpool(games.saved)
        from oklasim.table.levels import levels

        return page(request, "play_new.html", presets=_presets(), strategies=await run_in_threadpool(_strategies),
                    levels=levels(), saved=saved, skipped=skipped)

    def in_game(game_id: str, action):
        """``action(session)`` with the game's lock held; run in a worker thread, never on the event loop."""
        def run():
            with games.open(game_id) as session:
                return action(session)

        return run_in_threadpool(run)

    async def game_page(request):
        game_id = await in_game(request.path_params["game"], lambda session: session.id)
        return page(request, "play.html", game=game_id)

    async def knock_page(request):
        return page(request, "knock.html", presets=_presets())

    async def browse_page(request):
        from oklasim.web.files import browse, run_summary

        area = request.path_params["area"]
        root = area_root(area)
        relative = request.path_params.get("path", "")
        shown = await run_in_threadpool(browse, root, relative)
        summary = None
        if area == "runs" and shown["kind"] == "folder" and relative:
            summary = await run_in_threadpool(run_summary, root, relative)
        return page(request, "browse.html", area=area, root=str(root), shown=shown, summary=summary,
                    parents=_parents(relative))

    async def runs_page(request):
        from oklasim.web.files import runs_list

        return page(request, "runs.html", root=str(config.runs), presets=_presets(),
                    runs=await run_in_threadpool(runs_list, config.runs),
                    jobs=await run_in_threadpool(lambda: [j.state() for j in list(jobs.jobs.values())]))

    async def review_page(request):
        shown = await run_in_threadpool(reviews.shown, request.path_params["game"])
        return page(request, "review.html", game=request.path_params["game"], **shown)

    async def stats_page(request):
        return page(request, "stats.html", folder=str(config.games_dir), **await run_in_threadpool(stats.shown))

    async def stats_figure(request):
        png = await run_in_threadpool(stats.figure, request.path_params["figure"])
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})  # the games change

    async def raw_file(request):
        from oklasim.web.files import raw

        return raw(area_root(request.path_params["area"]), request.path_params["path"])

    # -- the API ------------------------------------------------------------------------------------

    async def api_advise(request):
        from oklasim.web.advise import advise_json

        return JSONResponse(await run_in_threadpool(advise_json, await body(request)))

    async def api_new_game(request):
        sent = await body(request)
        session = await run_in_threadpool(games.new, sent.get("rules", "seeds"), sent.get("players"),
                                          sent.get("against"), sent.get("seed"))
        return JSONResponse(session.state())

    async def api_game(request):
        return JSONResponse(await in_game(request.path_params["game"], lambda session: session.state()))

    async def api_move(request):
        sent = await body(request)
        move = sent.get("move")
        if not isinstance(move, str) or not move.strip():
            raise Refused(400, "send the move, e.g. {\"move\": \"Kd\", \"moves\": 12}")
        if "moves" not in sent:  # without it a stale page would play on a table it never saw
            raise Refused(400, "send the number of moves the page showed with the move, e.g. "
                               "{\"move\": \"Kd\", \"moves\": 12}")
        at = bounded_int(sent["moves"], "moves", 0, MAX_MOVES)

        def play(session):
            session.move(move, at=at)
            return session.state()

        return JSONResponse(await in_game(request.path_params["game"], play))

    async def api_coach(request):
        from oklasim.web.advise import ADVISOR, finite

        def coach():
            with games.open(request.path_params["game"]) as session:
                question = session.coach_question()
            with ADVISOR:  # beside the game: its moves and pages go on while the advisor samples
                return {**finite(question.brief()), "assumes": question.coach.opponent, "moves": question.moves}

        return JSONResponse(await run_in_threadpool(coach))

    async def api_knock(request):
        from oklasim.web.knock import knock_table

        q = request.query_params
        return JSONResponse(await run_in_threadpool(knock_table, q.get("rules", "seeds"), q.get("bonus"),
                                                    q.get("answer", "mix"), config.runs))

    async def api_review(request):
        return JSONResponse(await run_in_threadpool(reviews.status, request.path_params["game"]))

    async def api_start_review(request):
        return JSONResponse(await run_in_threadpool(reviews.start, request.path_params["game"]))

    async def api_simulate(request):
        job = await run_in_threadpool(jobs.start, await body(request))
        return JSONResponse(job.state())

    async def api_jobs(request):  # a job's state reads its files: in a worker thread
        return JSONResponse(await run_in_threadpool(lambda: [j.state() for j in list(jobs.jobs.values())]))

    async def api_job(request):
        return JSONResponse(await run_in_threadpool(lambda: jobs.get(request.path_params["job"]).state()))

    async def api_cancel(request):
        job = await run_in_threadpool(jobs.cancel, request.path_params["job"])
        return JSONResponse(job.state())

    @asynccontextmanager
    async def lifespan(app):
        yield
        reviews.stopping.set()  # the reviews stop between decisions while the runs are stopped
        await run_in_threadpool(jobs.stop_all)
        await run_in_threadpool(reviews.stop_all)

    routes = [
        Route("/", home),
        Route("/advise", advise_page),
        Route("/play", play_page),
        Route("/play/{game}", game_page),
        Route("/knock", knock_page),
        Route("/review/{game}", review_page),
        Route("/stats", stats_page),
        Route("/stats/{figure}", stats_figure),
        Route("/runs", runs_page),
        Route("/browse/{area:str}", lambda request: RedirectResponse(f"/browse/{request.path_params['area']}/")),
        Route("/browse/{area:str}/{path:path}", browse_page),
        Route("/raw/{area:str}/{path:path}", raw_file),
        Route("/api/advise", api_advise, methods=["POST"]),
        Route("/api/play", api_new_game, methods=["POST"]),
        Route("/api/play/{game}", api_game),
        Route("/api/play/{game}/move", api_move, methods=["POST"]),
        Route("/api/play/{game}/coach", api_coach, methods=["POST"]),
        Route("/api/knock", api_knock),
        Route("/api/review/{game}", api_review),
        Route("/api/review/{game}", api_start_review, methods=["POST"]),
        Route("/api/simulate", api_simulate, methods=["POST"]),
        Route("/api/jobs", api_jobs),
        Route("/api/jobs/{job}", api_job),
        Route("/api/jobs/{job}/cancel", api_cancel, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    hosts = LOCAL_HOSTS if is_local(config.host) else None  # served to the network: any name may reach it
    middleware = [Middleware(Framing), Middleware(errors.Guard), Middleware(Gate, token=token, hosts=hosts),
                  Middleware(BodyLimit, limit=MAX_BODY)]
    handlers = {OklasimError: errors.on_refusal, HTTPException: errors.on_http_error}
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers, lifespan=lifespan)
    app.state.token, app.state.jobs, app.state.games, app.state.reviews = token, jobs, games, reviews
    return app


def _presets() -> list[str]:
    from oklasim.game.rules import PRESETS

    return list(PRESETS)


def _strategies() -> list[str]:
    from oklasim.strategies.registry import names

    return names()


def _parents(relative: str) -> list[tuple[str, str]]:
    """The breadcrumb of a browsed path: (name, path) of each folder above it."""
    parts = [p for p in relative.split("/") if p]
    return [(part, "/".join(parts[: k + 1])) for k, part in enumerate(parts)]
