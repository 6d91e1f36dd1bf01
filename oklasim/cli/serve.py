"""``oklasim serve``: the advisor, a table, the knock policy and the runs in a local web page (registered in
``oklasim.cli``). The web application is imported only when the command runs, so ``--help`` stays instant."""

from __future__ import annotations

import socket
from pathlib import Path

import click

from oklasim.cli.options import Interrupted
from oklasim.cli.review import DEFAULT_SAMPLES
from oklasim.errors import OklasimError


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but this machine's own (127.0.0.1, localhost) lets others on the "
                   "network use the server: a warning is printed.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="Port to listen on.")
@click.option("--runs", "runs_root", default="runs", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="The runs folder: browsed, simulate runs go there, knock policies are read from it.")
@click.option("--reports", "reports_root", default="reports", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="The reports folder, browsed.")
@click.option("--games", "games_root", type=click.Path(file_okay=False, path_type=Path),
              help="Where games played in the page are saved (resumable).  [default: RUNS/web-games]")
@click.option("--review-samples", type=click.IntRange(min=1), default=DEFAULT_SAMPLES, show_default=True,
              help="Worlds per decision of a game's review (as oklasim review --samples).")
def serve_command(host, port, runs_root, reports_root, games_root, review_samples) -> None:
    """Serve the advisor, a game table against the bots, the knock policy and the runs as a local web page.

    Open the address it prints in a browser. Pages: advise (click your cards, get the
    table of `oklasim advise`), play (a whole game against any strategy, with a coach),
    when to knock (the measured policy by knock limit), runs and reports (browse them,
    start a small simulate and watch or cancel it), a review of every saved game (as
    oklasim review) and your statistics (as oklasim stats). Every asset is in the
    package: it works offline. Ctrl-C stops it.
    """
    import uvicorn

    from oklasim.web.app import Config, create_app
    from oklasim.web.safety import is_local

    check_free(host, port)
    if not is_local(host):
        click.echo(f"warning: serving on {host}: anyone who can reach this machine on port {port} can use the "
                   "server and its folders; use --host 127.0.0.1 to keep it to this machine", err=True)
    app = create_app(Config(runs=runs_root, reports=reports_root, games=games_root, host=host,
                            review_samples=review_samples))
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"oklasim serve: http://{shown}:{port}/  (Ctrl-C stops it)", err=True)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False))
    try:
        # uvicorn closes the server on Ctrl-C or SIGTERM (its runs stopped), then raises the signal again: an
        # interrupt, which ends the command as every command's does (exit 130, one line). uvicorn.run would
        # swallow it and exit 0.
        server.run()
    except KeyboardInterrupt:
        raise Interrupted("the server stopped") from None


def check_free(host: str, port: int) -> None:
    """Say in one line that the address is taken (or not this machine's) before starting the server."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: a closed port is free
            probe.bind((host, port))
    except OSError as exc:
        raise OklasimError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port or --host")
