"""``oklasim serve``'s review page (a saved game's review judged in the server, polled, shown) and statistics page,
through Starlette's TestClient."""

from __future__ import annotations

import html
import json
import re
import threading

import pytest
from processes import wait_for
from saved_games import save_bot_game
from starlette.testclient import TestClient
from test_web_api import TOKEN, refused

import oklasim.review.judge as judge_module
from oklasim.errors import OklasimError
from oklasim.review import review, saved_game
from oklasim.review.judge import MISTAKE, REVIEW_SAMPLES
from oklasim.review.report import KIND_WORDS
from oklasim.review.stats import player_stats, summary, tables
from oklasim.web.app import Config, create_app
from oklasim.web.safety import TOKEN_HEADER

SMALL = 300  # worlds per decision: a cut game is reviewed in seconds, with a mistake among its verdicts
GAME, OTHER, EMPTY = "a" * 32, "b" * 32, "c" * 32  # saved games' ids: 32 hex digits, as the table names them
POLLS = 120  # seconds a review may take to reach a state (a bound, not a timing claim)


@pytest.fixture
def runs(tmp_path):
    return tmp_path / "runs"


@pytest.fixture
def games(runs):
    folder = runs / "web-games"
    folder.mkdir(parents=True)
    return folder


def serve(runs, workers: int | None = None) -> TestClient:
    app = create_app(Config(runs=runs, reports=runs.parent / "reports", review_samples=SMALL,
                            review_workers=workers), token=TOKEN)
    return TestClient(app, base_url="http://127.0.0.1", headers={TOKEN_HEADER: TOKEN})


@pytest.fixture
def client(runs, games):
    with serve(runs) as client:
        yield client


def save(games, game_id: str, seed: int = 11, stop_after: int | None = 20):
    """A game of expert (typing the person's moves) against simple, cut after ``stop_after`` moves: its path."""
    path = games / f"{game_id}.json"
    save_bot_game(path, "expert", "simple", seed, stop_after=stop_after)
    return path


def state_of(client, game_id: str) -> dict:
    response = client.get(f"/api/review/{game_id}")
    assert response.status_code == 200, response.text
    return response.json()


def ended(client, game_id: str) -> dict:
    """The review's state once it is no longer running (polled, within a bound)."""
    assert wait_for(lambda: state_of(client, game_id)["status"] != "running", POLLS)
    return state_of(client, game_id)


def review_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("review-")]


@pytest.fixture
def gate(monkeypatch):
    """Each decision's judging waits for ``gate.open`` (set by the test, or the server's stopping event): a review
    is caught running. ``gate.judged`` lists the decisions judged, in order."""
    real = judge_module.judge

    class Gate:
        open = threading.Event()
        started = threading.Event()
        judged: list[int] = []

        @classmethod
        def judge(cls, game, decision, samples, seed):
            cls.started.set()
            assert cls.open.wait(POLLS)
            cls.judged.append(decision.number)
            return real(game, decision, samples, seed)

    monkeypatch.setattr(judge_module, "judge", Gate.judge)
    return Gate


# -- the page's HTML, read back ----------------------------------------------------------------------------------


def cells(row: str) -> list[str]:
    return [text_of(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]


def rows(table: str) -> list[list[str]]:
    return [cells(row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]


def tagged(page: str, tag: str, marker: str) -> list[str]:
    """The inner HTML of each ``tag`` element whose opening tag holds ``marker``."""
    return re.findall(rf"<{tag}[^>]*{re.escape(marker)}[^>]*>(.*?)</{tag}>", page, re.S)


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


# -- a review judged in the server -------------------------------------------------------------------------------


def test_a_review_is_judged_in_the_server_polled_to_its_end_and_shown(client, games):
    path = save(games, GAME)
    game = saved_game(path)
    reviewed = review(game, SMALL, 0, workers=1)
    expected = reviewed.to_dict()
    assert any(j["verdict"] == MISTAKE for j in expected["judgements"])  # the costliest decisions have one to draw

    page = client.get(f"/review/{GAME}").text
    assert 'data-status="not started"' in page and 'id="review-go"' in page
    assert state_of(client, GAME) == {"game": GAME, "status": "not started", "judged": 0,
                                      "total": len(game.decisions), "error": None, "review": None}
    started = client.post(f"/api/review/{GAME}", json={}).json()
    assert started["status"] == "running" and started["total"] == len(game.decisions)
    done = ended(client, GAME)
    assert done["status"] == "complete" and done["judged"] == done["total"] == len(game.decisions)
    assert done["review"] == expected  # the very review `oklasim review` gives for this game and budget
    assert json.loads((games / f"{GAME}.review.json").read_text()) == expected
    assert not review_threads()

    page = client.get(f"/review/{GAME}").text
    summary_ = expected["summary"]
    assert text_of(tagged(page, "strong", 'id="points-lost"')[0]) == f"{summary_['points_lost']:.1f}"
    assert text_of(tagged(page, "strong", 'id="points-lost-per-hand"')[0]) == \
        f"{summary_['points_lost_per_hand']:.1f}"
    for kind, row in summary_["by_kind"].items():
        shown = tagged(page, "tr", f'data-kind="{kind}"')
        if not row["decisions"]:
            assert not shown
            continue
        assert cells(shown[0]) == [KIND_WORDS[kind], *(str(row[v]) for v in ("decisions", "best", "close", "mistake",
                                                                             "not judged")),
                                   f"{row['points_lost']:.1f}"]
    assert [text_of(line) for line in re.findall(r"<li>(.*?)</li>", tagged(page, "ul", 'id="knocks"')[0])] == \
        reviewed.knock_lines()
    assert text_of(tagged(page, "p", 'id="assumptions"')[0]) == expected["assumptions"]

    mistakes = sorted((j for j in expected["judgements"] if j["verdict"] == MISTAKE), key=lambda j: -j["lost"]["mean"])
    drawn = re.findall(r'<section class="position" data-number="(\d+)">(.*?)</section>', page, re.S)
    assert [int(n) for n, _ in drawn] == [j["number"] + 1 for j in mistakes[:3]]
    for (_, position), j in zip(drawn, mistakes):
        low, high = j["lost"]["ci95"]
        assert f"lost {j['lost']['mean']:.1f} [{low:.1f}, {high:.1f}] points" in text_of(position)
        assert position.count('class="card suit-') == len(j["cards"].split()) + bool(j["upcard"])  # held, upcard
        assert f"you played: {j['played']}" in text_of(position) and f"best: {j['best']}" in text_of(position)

    decisions = [row for table in tagged(page, "table", 'class="list decisions') for row in rows(table)[1:]]
    assert [int(row[0]) for row in decisions] == [j["number"] + 1 for j in expected["judgements"]]
    for row, j in zip(decisions, expected["judgements"]):
        assert row[1:5] == [j["kind"], j["played"], j["best"] or "-", j["verdict"]]
        assert row[5] == (j["reason"] if j["verdict"] == "not judged" else
                          "0" if j["verdict"] == "best" else
                          f"{j['lost']['mean']:.1f} [{j['lost']['ci95'][0]:.1f}, {j['lost']['ci95'][1]:.1f}]")
    assert page.count('<tr class="verdict-mistake"') == len(mistakes)


def test_a_second_start_joins_the_running_review_another_game_waits_and_a_reload_reattaches(runs, games, gate):
    save(games, GAME)
    save(games, OTHER, seed=4, stop_after=6)
    with serve(runs, workers=1) as client:
        first = client.post(f"/api/review/{GAME}", json={}).json()
        assert gate.started.wait(POLLS) and first["status"] == "running"
        again = client.post(f"/api/review/{GAME}", json={})
        assert again.status_code == 200 and again.json()["status"] == "running"
        assert len(review_threads()) == 1
        refused(client.post(f"/api/review/{OTHER}", json={}), 429, "one at a time")
        page = client.get(f"/review/{GAME}").text  # the page reloaded: it finds the review running
        assert 'data-status="running"' in page and "review.js" in page
        gate.open.set()
        done = ended(client, GAME)
        assert done["status"] == "complete"
        assert gate.judged == list(range(done["total"]))  # every decision judged once: one review ran
        assert client.post(f"/api/review/{OTHER}", json={}).json()["status"] == "running"  # its turn now
        assert ended(client, OTHER)["status"] == "complete"


def test_a_stopping_server_stops_its_review_between_decisions_and_the_next_goes_on(runs, games, gate):
    path = save(games, GAME)
    with serve(runs, workers=1) as client:
        gate.open = client.app.state.reviews.stopping  # decision 0 ends once the server is stopping
        client.post(f"/api/review/{GAME}", json={})
        assert gate.started.wait(POLLS)
        reviews = client.app.state.reviews
    assert not review_threads()  # the shutdown waited for the review's thread
    assert reviews.jobs[GAME].state()["status"] == "failed" and "server stopped" in reviews.jobs[GAME].error
    kept = json.loads((games / f"{GAME}.review.json").read_text())
    assert kept["complete"] is False and [j["number"] for j in kept["judgements"]] == [0]

    with serve(runs, workers=1) as client:  # the server started again: the review goes on from decision 1
        assert state_of(client, GAME)["judged"] == 1
        assert client.post(f"/api/review/{GAME}", json={}).json()["judged"] == 1
        done = ended(client, GAME)
    assert done["review"] == review(saved_game(path), SMALL, 0, workers=1).to_dict()


@pytest.mark.parametrize("game", ["nope", "0" * 32, "A" * 32, "a" * 31, "a" * 33, "%2e%2e%2f" + "a" * 32,
                                  "a" * 32 + ".json"])
def test_an_unknown_or_malformed_game_is_not_found(client, games, game):
    save(games, GAME)
    for response in (client.get(f"/review/{game}"), client.get(f"/api/review/{game}"),
                     client.post(f"/api/review/{game}", json={})):
        assert response.status_code == 404, response.text


def test_a_save_linked_from_outside_the_games_folder_is_not_found(client, games, tmp_path):
    outside = save(tmp_path, OTHER)
    (games / f"{GAME}.json").symlink_to(outside)
    refused(client.get(f"/api/review/{GAME}"), 404, "no such file")
    refused(client.post(f"/api/review/{GAME}", json={}), 404, "no such file")


def test_a_game_without_a_decision_yet_has_nothing_to_review(client, games):
    save(games, EMPTY, stop_after=0)
    assert state_of(client, EMPTY)["status"] == "nothing to review"
    assert "play a few moves" in client.get(f"/review/{EMPTY}").text
    refused(client.post(f"/api/review/{EMPTY}", json={}), 409, "no decision of yours")


def test_a_start_needs_the_page_token(runs, games):
    save(games, GAME)
    with serve(runs) as client:
        refused(client.post(f"/api/review/{GAME}", json={}, headers={TOKEN_HEADER: "guess"}), 403, "page token")
        assert state_of(client, GAME)["status"] == "not started"


@pytest.mark.parametrize("samples", [0, -1, 400_001, True, 1.5])
def test_the_review_budget_is_bounded_where_the_server_is_built(runs, samples):
    with pytest.raises(OklasimError, match="review samples"):
        create_app(Config(runs=runs, review_samples=samples))


def test_a_server_reviews_with_the_budget_of_oklasim_review_by_default(runs):
    assert create_app(Config(runs=runs)).state.reviews.samples == REVIEW_SAMPLES


def test_the_saved_games_link_to_their_review_and_every_page_is_local(client, games):
    save(games, GAME)
    assert f'href="/review/{GAME}"' in client.get("/play").text
    assert 'href="/stats"' in client.get("/").text  # in the menu of every page
    for page in (f"/review/{GAME}", "/stats"):
        text = client.get(page).text
        assert f'content="{TOKEN}"' in text and "http://" not in text and "https://" not in text
    assert client.get("/static/review.js").status_code == 200


# -- the statistics ----------------------------------------------------------------------------------------------


def test_the_statistics_page_shows_the_figures_of_oklasim_stats(client, games):
    save(games, GAME, stop_after=None)
    reviewed = save(games, OTHER, seed=4, stop_after=30)
    refused(client.get("/stats/points_lost.png"), 404, "no figure")  # no game reviewed yet
    review(saved_game(reviewed), SMALL, 0, workers=1, out=games / f"{OTHER}.review.json")  # now its points lost
    (games / "notes.json").write_text("{}")
    stats = player_stats(games)
    page = client.get("/stats").text
    assert text_of(tagged(page, "p", 'id="stats-summary"')[0]) == summary(stats) + "."
    shown = tagged(page, "table", 'class="list stats')
    expected = tables(stats)
    assert stats.reviewed and [rows(table) for table in shown] == [[list(t.headers), *t.rows] for t in expected]
    assert [text_of(s) for s in re.findall(r"<li>(.*?)</li>", tagged(page, "ul", 'id="skipped"')[0])] == \
        [f"notes.json: {stats.skipped[0].reason}"]
    for game_id in (GAME, OTHER):
        assert f'href="/review/{game_id}"' in page
    figures = [t.figure for t in expected if t.figure]
    assert {"points_per_hand.png", "outcomes.png", "points_lost.png"} <= set(figures)
    for figure in figures:
        assert f'src="/stats/{figure}"' in page
        response = client.get(f"/stats/{figure}")
        assert response.status_code == 200 and response.headers["content-type"] == "image/png"
        assert response.content.startswith(b"\x89PNG")
    refused(client.get("/stats/secret.png"), 404, "no figure")


@pytest.mark.parametrize("made, words", [(False, "no folder"), (True, "no saved game")])
def test_an_empty_games_folder_asks_for_a_game_not_an_error(runs, made, words):
    if made:  # else the games folder does not exist yet, as before the first game
        (runs / "web-games").mkdir(parents=True)
    with serve(runs) as client:
        response = client.get("/stats")
        assert response.status_code == 200 and "play a game first" in response.text and words in response.text
        refused(client.get("/stats/outcomes.png"), 404, words)
