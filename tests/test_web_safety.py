"""``oklasim serve`` holding up under concurrent, stale, hostile or damaged input: the coach beside the game, one
lock per game, stale pages, saves that do not replay, bounded JSON, no framing, host names in any case."""

import json
import threading

import httpx
import pytest
from starlette.testclient import TestClient
from test_web_api import TOKEN, refused, send, simple_move
from web_server import serving

import oklasim.web.play as web_play
from oklasim.table import coach as table_coach
from oklasim.advise.brief import Brief
from oklasim.web.app import Config, create_app
from oklasim.web.safety import MAX_DEPTH, TOKEN_HEADER


@pytest.fixture
def app(tmp_path):
    return create_app(Config(runs=tmp_path / "runs", reports=tmp_path / "reports"), token=TOKEN)


@pytest.fixture
def client(app):
    with TestClient(app, base_url="http://127.0.0.1", headers={TOKEN_HEADER: TOKEN}) as client:
        yield client


def save_of(app, game_id: str):
    return app.state.games.folder / f"{game_id}.json"


def played(client, moves: int, seed: int = 3) -> dict:
    """A new game against simple with ``moves`` moves played."""
    state = client.post("/api/play", json={"against": "simple", "seed": seed}).json()
    while state["moves"] < moves:
        state = send(client, state, simple_move(state)).json()
    return state


# -- the coach runs beside the game --------------------------------------------------------------------------


def test_the_coach_runs_beside_the_game_and_holds_up_no_page(app, monkeypatch):
    """While the advisor samples for the coach, the same game's table, its moves and every page answer: the coach
    advises on a copy, outside the game's lock, and no lock is awaited on the event loop."""
    started, release, under_lock = threading.Event(), threading.Event(), []

    def slow_coach(view, seen, against, rules):
        under_lock.append(any(s.lock.locked() for s in app.state.games.sessions.values()))
        started.set()
        assert release.wait(60)
        return Brief("Discard Kd: about +3 points this hand.", "Kd", "discard")

    monkeypatch.setattr(table_coach, "coach_brief", slow_coach)
    with serving(app) as url, httpx.Client(base_url=url, headers={TOKEN_HEADER: TOKEN}, timeout=10) as http:
        state = http.post("/api/play", json={"against": "simple", "seed": 4}).json()
        coach = {}
        asking = threading.Thread(target=lambda: coach.update(
            response=http.post(f"/api/play/{state['id']}/coach", json={}, timeout=90)))
        asking.start()
        try:
            assert started.wait(30)
            assert http.get(f"/api/play/{state['id']}").json() == state  # the same game, while it is advised on
            moved = http.post(f"/api/play/{state['id']}/move", json={"move": "n", "moves": 0})
            assert moved.status_code == 200 and moved.json()["moves"] == 1
            for page in ("/play", f"/play/{state['id']}", "/advise", "/"):
                assert http.get(page).status_code == 200
            assert asking.is_alive()  # every answer above came while the coach was still sampling
        finally:
            release.set()
            asking.join(60)
    assert coach["response"].status_code == 200
    assert coach["response"].json() == {"sentence": "Discard Kd: about +3 points this hand.", "card": "Kd",
                                        "action": "discard", "details": [], "advice": None, "assumes": "simple",
                                        "moves": 0}
    assert under_lock == [False]


# -- stale pages ---------------------------------------------------------------------------------------------


def test_a_stale_page_cannot_play_on_a_table_it_never_saw(client):
    state = client.post("/api/play", json={"against": "simple", "seed": 3}).json()
    now = send(client, state, "n").json()  # played in one tab
    refused(send(client, state, "n"), 409, "the table has moved on")  # the other tab still shows move 0
    assert client.get(f"/api/play/{state['id']}").json() == now  # nothing was played by it
    refused(client.post(f"/api/play/{state['id']}/move", json={"move": "n"}), 400, "number of moves the page showed")
    refused(client.post(f"/api/play/{state['id']}/move", json={"move": "n", "moves": "x"}), 400, "moves 'x'")
    assert send(client, now, simple_move(now)).status_code == 200


# -- one lock per game, loads included -----------------------------------------------------------------------


def test_two_moves_racing_a_reload_from_disk_are_one_game(app, client, monkeypatch):
    """Two pages send a move for a game that is not in memory (evicted, or the server restarted): the game is
    loaded once, under its lock; one move is played, the other is stale (409), and the save is that one game."""
    state = played(client, 4)
    while state["decision"]["kind"] != "draw":  # where two different moves are both legal: 's' and 'p'
        state = send(client, state, simple_move(state)).json()
    app.state.games.sessions.clear()
    both_loading = threading.Barrier(2)
    load_save = web_play.load_save

    def racing_load(path):  # without one lock per game, both requests load it side by side
        try:
            both_loading.wait(timeout=2)
        except threading.BrokenBarrierError:
            pass
        return load_save(path)

    monkeypatch.setattr(web_play, "load_save", racing_load)
    answers = [None, None]
    moves = ["s", "p"]

    def play(k):
        answers[k] = client.post(f"/api/play/{state['id']}/move", json={"move": moves[k], "moves": state["moves"]})

    racers = [threading.Thread(target=play, args=(k,)) for k in range(2)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(60)
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409], [a.text for a in answers]
    winner = next(a.json() for a in answers if a.status_code == 200)
    saved = json.loads(save_of(app, state["id"]).read_text())
    assert len(saved["moves"]) == state["moves"] + 1
    app.state.games.sessions.clear()
    monkeypatch.setattr(web_play, "load_save", load_save)
    assert client.get(f"/api/play/{state['id']}").json() == winner


# -- saves that do not replay --------------------------------------------------------------------------------


def damage(app, state, **changes) -> None:
    path = save_of(app, state["id"])
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, **changes}))
    app.state.games.sessions.clear()


@pytest.mark.parametrize("changes, words", [
    ({"moves": 5}, "its 'moves' is not a list of moves"),
    ({"moves": ["n", 7]}, "its 'moves' is not a list of moves"),
    ({"seed": "x"}, "its 'seed' is not a whole number"),
    ({"seed": 2**70}, "its 'seed' is not a whole number"),
    ({"rules": ["seeds"]}, "its 'rules' is not the rules' fields"),
    ({"rules": {"players": 9}}, "players=9"),
    ({"finished": "no"}, "its 'finished' is not true or false"),
])
def test_a_damaged_save_is_refused_in_one_line_and_listed_as_skipped(app, client, changes, words):
    state = played(client, 3)
    damage(app, state, **changes)
    refused(client.get(f"/api/play/{state['id']}"), 400, words)
    refused(client.get(f"/play/{state['id']}"), 400, words)
    listing = client.get("/play")
    assert listing.status_code == 200 and f"{state['id'][:8]}: the saved game" in listing.text
    assert f'href="/play/{state["id"]}"' not in listing.text


@pytest.mark.parametrize("edit, words", [
    (lambda moves: moves[:2] + ["Zz"] + moves[2:], "its move 3 'Zz' is refused"),
    (lambda moves: moves[:1] + ["t"] + moves[1:], "is refused"),  # a second answer to the upcard offer
    (lambda moves: moves[:-1], "saved as finished"),
])
def test_a_save_that_does_not_replay_exactly_is_refused_whole(app, client, edit, words):
    state = played(client, 6)
    record = json.loads(save_of(app, state["id"]).read_text())
    damage(app, state, moves=edit(record["moves"]), finished=words == "saved as finished")
    refused(client.get(f"/api/play/{state['id']}"), 400, words)
    refused(send(client, state, simple_move(state)), 400, "does not replay")  # never half-replayed and played on
    assert f"{state['id'][:8]}: the saved game {state['id']} does not replay" in client.get("/play").text


# -- bounded JSON --------------------------------------------------------------------------------------------


DEEP = b"[" * 30_000
BIG = b"1" + b"0" * 5_000


@pytest.mark.parametrize("endpoint", ["/api/advise", "/api/play", "/api/simulate", "/api/play/{game}/move"])
def test_deep_json_huge_numbers_and_constants_are_a_400(client, endpoint):
    game = client.post("/api/play", json={"seed": 1}).json()["id"]
    url = endpoint.format(game=game)
    headers = {"content-type": "application/json"}
    refused(client.post(url, content=DEEP, headers=headers), 400, "nests 30000 deep")
    refused(client.post(url, content=b'{"a": ' + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1) + b"}",
                        headers=headers), 400, f"at most {MAX_DEPTH}")
    for number in (BIG, b"-" + BIG, BIG + b".5", b"1e" + BIG):
        refused(client.post(url, content=b'{"seed": ' + number + b"}", headers=headers), 400, "a number of")
    refused(client.post(url, content=b'{"seed": NaN}', headers=headers), 400, "NaN is not a JSON number")
    assert client.post(url, content=b'{"x": "[[[[[[[[[[[[[[[[[[[[\\"]]]"}', headers=headers).status_code != 500


def test_a_5000_digit_seed_to_the_advisor_is_a_400(client):
    sent = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", "upcard": "9c"}
    body = json.dumps(sent)[:-1].encode() + b', "seed": ' + BIG + b"}"
    refused(client.post("/api/advise", content=body, headers={"content-type": "application/json"}), 400,
            "a number of 5001 characters")
    refused(client.post("/api/advise", json={**sent, "seed": "9" * 5000}), 400, "seed")
    refused(client.post("/api/play", json={"seed": "9" * 5000}), 400, "seed '999")
    assert len(client.post("/api/play", json={"seed": "9" * 5000}).json()["error"]) < 200  # one short line


# -- framing, host names -------------------------------------------------------------------------------------


def test_no_response_may_be_framed(app, client, tmp_path, monkeypatch):
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    answers = [client.get(p) for p in ("/", "/advise", "/play", "/static/advise.js", "/nope", "/api/nope",
                                       "/raw/reports/figure.png", "/api/jobs")]
    answers.append(client.post("/api/play", json={}, headers={TOKEN_HEADER: "wrong"}))
    answers.append(client.get("/", headers={"host": "evil.example"}))
    monkeypatch.setattr(app.state.games, "new", lambda *a: 1 / 0)
    answers.append(client.post("/api/play", json={}))  # an internal error, answered by the outermost guard
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 404, 404, 200, 200, 403, 400, 500]
    for answer in answers:
        assert answer.headers["x-frame-options"] == "DENY", answer.request.url
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"], answer.request.url
    raw = answers[6].headers["content-security-policy"]
    assert "default-src 'none'" in raw and raw.count("frame-ancestors") == 1  # the file's own policy kept


@pytest.mark.parametrize("host", ["LOCALHOST:8765", "LocalHost", "127.0.0.1:1"])
def test_the_host_check_ignores_case(client, host):
    assert client.get("/", headers={"host": host}).status_code == 200


def test_a_permalink_fills_the_form_but_does_not_run_the_advisor(client):
    """The advisor runs on a click only: a link from another site must not make this machine sample (the page's
    script; driven in a browser by tests/test_web_browser.py)."""
    script = client.get("/static/advise.js").text
    loading = script[script.index("const query = new URLSearchParams(location.search)"):]
    assert "submit(" not in loading and 'query.set("go"' not in script


def test_an_advice_with_an_undefined_figure_is_null_not_a_500(client, monkeypatch):
    """An interval over too few worlds may be infinite or undefined: JSON has neither, the page gets null."""
    class Advice:
        def to_dict(self):
            return {"samples": 3, "candidates": [{"points": {"mean": 1.5, "low": float("-inf"), "high": float("nan")}}]}

    monkeypatch.setattr("oklasim.advise.advise", lambda **fields: Advice())
    response = client.post("/api/advise", json={"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", "upcard": "9c"})
    assert response.status_code == 200, response.text
    assert response.json()["candidates"][0]["points"] == {"mean": 1.5, "low": None, "high": None}
