"""``oklasim serve``'s application through Starlette's TestClient: every page and endpoint, and every refusal."""

import html
import json
import logging

import pytest
from processes import session_pids, wait_for
from starlette.testclient import TestClient

from oklasim.advise import advise
from oklasim.table.terminal import Quit, load_save, play
from oklasim.web.app import Config, create_app
from oklasim.web.safety import MAX_BODY, TOKEN_HEADER

TOKEN = "test-token"
POSITION = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", "upcard": "9c", "pile": "9c 8d 4s", "opponent": "simple",
            "seed": 1, "max_samples": 3000, "max_seconds": None}


@pytest.fixture
def folders(tmp_path):
    runs, reports = tmp_path / "runs", tmp_path / "reports"
    (reports / "study").mkdir(parents=True)
    (reports / "study" / "report.md").write_text("# A study\n\nfigures below\n")
    (reports / "study" / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    (reports / "outside").symlink_to("/etc")
    (reports / "passwd").symlink_to("/etc/passwd")
    runs.mkdir()
    return runs, reports


@pytest.fixture
def app(folders):
    runs, reports = folders
    return create_app(Config(runs=runs, reports=reports), token=TOKEN)


@pytest.fixture
def client(app):
    with TestClient(app, base_url="http://127.0.0.1", headers={TOKEN_HEADER: TOKEN}) as client:
        yield client


def refused(response, status: int, words: str):
    assert response.status_code == status, response.text
    message = response.json()["error"] if response.headers["content-type"].startswith("application/json") \
        else html.unescape(response.text)
    assert words in message, message
    assert "Traceback" not in response.text


# -- pages ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["/", "/advise", "/play", "/knock", "/runs", "/browse/reports/", "/browse/runs/"])
def test_every_page_renders_with_the_token_and_local_assets_only(client, page):
    response = client.get(page)
    assert response.status_code == 200
    assert f'content="{TOKEN}"' in response.text
    assert "http://" not in response.text and "https://" not in response.text  # no CDN: everything is local


def test_the_static_assets_are_served(client):
    for name in ("oklasim.css", "oklasim.js", "advise.js", "play.js", "play_new.js", "knock.js", "runs.js"):
        assert client.get(f"/static/{name}").status_code == 200


def test_an_unknown_page_is_a_plain_404_page(client):
    refused(client.get("/nope"), 404, "Not Found")
    refused(client.get("/api/nope"), 404, "Not Found")


# -- safety --------------------------------------------------------------------------------------------------


def test_a_post_without_the_token_or_with_a_wrong_one_is_refused(app, caplog):
    with TestClient(app, base_url="http://127.0.0.1") as bare, caplog.at_level(logging.WARNING, "oklasim.web"):
        refused(bare.post("/api/play", json={}), 403, "page token")
        refused(bare.post("/api/play", json={}, headers={TOKEN_HEADER: "guess"}), 403, "page token")
        refused(bare.post("/api/advise", json=POSITION), 403, "page token")
        refused(bare.post("/api/simulate", json={}), 403, "page token")
    lines = [r.getMessage() for r in caplog.records if r.name == "oklasim.web"]
    assert len(lines) == 4 and all(line.startswith("refused POST /api/") and "403" in line for line in lines)


def test_another_host_name_is_refused_on_a_local_server(client):
    refused(client.get("/", headers={"host": "evil.example:8765"}), 400, "not this server's")
    assert client.get("/", headers={"host": "localhost:8765"}).status_code == 200


def test_an_oversized_body_is_refused(client):
    refused(client.post("/api/advise", content=b"{" + b" " * MAX_BODY + b"}",
                        headers={"content-type": "application/json"}), 413, "request body over")

    def chunks():  # no content-length: counted as it is read
        for _ in range(MAX_BODY // 1024 + 2):
            yield b" " * 1024

    refused(client.post("/api/advise", content=chunks(), headers={"content-type": "application/json"}), 413,
            "request body over")


def test_a_body_that_is_not_a_json_object_is_refused(client):
    refused(client.post("/api/advise", content=b"not json", headers={"content-type": "application/json"}), 400,
            "not JSON")
    refused(client.post("/api/advise", json=[1, 2]), 400, "JSON object")


@pytest.mark.parametrize("path", ["%2e%2e/%2e%2e/etc/passwd", "study/%2e%2e/%2e%2e/secret", "..%2fsecret",
                                  "%2fetc%2fpasswd", "/etc/passwd", "outside/passwd", "passwd"])
def test_no_path_leaves_its_folder(client, path):
    for prefix in ("/browse/reports/", "/raw/reports/"):
        refused(client.get(prefix + path), 404, "no such file")


def test_a_symlink_out_is_not_listed_and_an_unknown_area_is_refused(client):
    listing = client.get("/browse/reports/").text
    assert "study" in listing and "outside" not in listing and "passwd" not in listing
    refused(client.get("/browse/etc/passwd"), 404, "no such folder")
    refused(client.get("/raw/home/x.png"), 404, "no such folder")


def test_an_unexpected_error_is_a_one_line_500(app, client, monkeypatch, caplog):
    def broken(*args):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(app.state.games, "new", broken)
    with caplog.at_level(logging.WARNING, "oklasim.web"):
        refused(client.post("/api/play", json={}), 500, "internal error")
    assert "boom" not in client.post("/api/play", json={}).text
    assert any("RuntimeError: boom" in r.getMessage() for r in caplog.records)


# -- reports and runs ----------------------------------------------------------------------------------------


def test_reports_are_browsed_text_shown_and_figures_inline(client):
    assert "study/" in client.get("/browse/reports/").text
    folder = client.get("/browse/reports/study").text
    assert "report.md" in folder and "figure.png" in folder
    assert "# A study" in client.get("/browse/reports/study/report.md").text
    figure = client.get("/browse/reports/study/figure.png").text
    assert '<img class="figure" src="/raw/reports/study/figure.png"' in figure
    raw = client.get("/raw/reports/study/figure.png")
    assert raw.status_code == 200 and raw.headers["content-type"] == "image/png"
    assert "default-src 'none'" in raw.headers["content-security-policy"]
    refused(client.get("/browse/reports/study/none.md"), 404, "no such file")


def test_a_missing_folder_is_said_not_an_error(tmp_path):
    app = create_app(Config(runs=tmp_path / "no-runs", reports=tmp_path / "no-reports"), token=TOKEN)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert "there is no folder" in client.get("/browse/reports/").text
        assert "no runs under" in client.get("/runs").text


# -- advise --------------------------------------------------------------------------------------------------


def test_the_advice_equals_the_advisors_for_the_same_seed_and_sample_budget(client):
    sent = {k: (None if v is None else str(v)) for k, v in POSITION.items()}  # as the page's fields send them
    response = client.post("/api/advise", json=sent)
    assert response.status_code == 200, response.text
    web, direct = response.json(), advise(**POSITION).to_dict()
    for timing in ("seconds", "setup_seconds"):
        web.pop(timing), direct.pop(timing)
    assert web == direct
    assert web["candidates"] and web["stop_reason"] != "time"


@pytest.mark.parametrize("change, status, words", [
    ({"hand": "2h 3h Zz"}, 400, "Zz"),
    ({"hand": "2h 2h 4h 7s 7d 7h Jc Qc Kc 5d Ks"}, 400, "2h"),
    ({"hand": ""}, 400, "give your hand"),
    ({"opponent": "nosuch"}, 400, "unknown strategy"),
    ({"rules": "/etc/passwd"}, 400, "one of the presets"),
    ({"workers": 64}, 400, "refused field"),
    ({"bogus": 1}, 400, "unknown or refused field"),
    ({"max_seconds": 4000}, 400, "max_seconds"),
    ({"max_seconds": "soon"}, 400, "a number"),
    ({"max_seconds": 10, "max_samples": 10**9}, 400, "max_samples"),
    ({"max_seconds": None, "max_samples": 200_000}, 400, "without a time budget"),
    ({"max_seconds": None, "max_samples": None}, 400, "without a time budget"),
    ({"seed": -1}, 400, "seed"),
    ({"confidence": 2}, 400, "confidence"),
    ({"history": 5}, 400, "text"),
])
def test_bad_advise_fields_are_refused_in_one_line(client, change, status, words):
    refused(client.post("/api/advise", json={**POSITION, **change}), status, words)


@pytest.mark.parametrize("samples", [1, 64])
def test_every_budget_of_a_request_is_honoured(client, samples):
    """A sample budget is a cap even short of the evidence a recommendation needs (then there is none)."""
    answer = client.post("/api/advise", json={**POSITION, "max_samples": samples, "max_seconds": 60})
    assert answer.status_code == 200, answer.text
    advice = answer.json()
    assert advice["samples"] == samples and advice["stop_reason"] == "samples"
    assert advice["recommendation"] is None and advice["no_recommendation"]


# -- play ----------------------------------------------------------------------------------------------------


def simple_move(state: dict) -> str:
    """A plain policy for the tests: pass, draw from the stock, knock when offered, discard the worst card."""
    decision = state["decision"]
    kind = decision["kind"]
    if kind == "take_upcard":
        return "n"
    if kind == "draw":
        return "s"
    if kind == "arrange":
        return "1"
    if kind == "knock" and decision["knocks"]:
        return "knock " + decision["knocks"][0]["card"]
    if kind == "knock" and decision["big_gin"]:
        return "big gin"
    return next(c for c in state["hand"]["loose"] + state["cards"] if c != decision.get("forbidden"))


def send(client, state: dict, move: str):
    """A move played from the page that showed ``state``: with the number of moves it showed."""
    return client.post(f"/api/play/{state['id']}/move", json={"move": move, "moves": state["moves"]})


def test_a_whole_game_is_played_saved_and_told(client, folders):
    state = client.post("/api/play", json={"against": "simple", "seed": 3}).json()
    assert state["decision"]["kind"] == "take_upcard" and len(state["cards"]) == 10
    while not state["over"]:
        response = send(client, state, simple_move(state))
        assert response.status_code == 200, response.text
        state = response.json()
    assert state["result"]["winner"] in (0, 1) and max(state["result"]["scores"]) >= 100
    assert state["showdowns"] and all(len(s["hands"]) == 2 for s in state["showdowns"])
    record = load_save(folders[0] / "web-games" / f"{state['id']}.json")  # the terminal table's own format
    assert record["finished"] and record["seed"] == 3 and len(record["moves"]) == state["moves"]
    refused(send(client, state, "s"), 409, "game is over")


def test_a_saved_game_resumes_in_another_server(folders):
    runs, reports = folders
    first = TestClient(create_app(Config(runs=runs, reports=reports), token=TOKEN), base_url="http://127.0.0.1",
                       headers={TOKEN_HEADER: TOKEN})
    state = first.post("/api/play", json={"against": "greedy", "seed": 11}).json()
    for _ in range(6):
        state = send(first, state, simple_move(state)).json()
    second = TestClient(create_app(Config(runs=runs, reports=reports), token=TOKEN), base_url="http://127.0.0.1")
    again = second.get(f"/api/play/{state['id']}").json()
    assert again == state
    assert state["id"][:8] in second.get("/play").text and second.get(f"/play/{state['id']}").status_code == 200


def test_a_game_saved_here_resumes_at_the_terminal_table(client, folders):
    """The save is the terminal table's format 2: ``oklasim play --resume`` replays the clicks to the same hand."""
    state = client.post("/api/play", json={"against": "simple", "seed": 9}).json()
    while state["moves"] < 12 and not state["over"]:
        state = send(client, state, simple_move(state)).json()
    said = []

    def stop(prompt):
        raise Quit

    play(resume=str(folders[0] / "web-games" / f"{state['id']}.json"), ask=stop, say=said.append)
    assert said[0] == "resuming the game from " + str(folders[0] / "web-games" / f"{state['id']}.json") + \
        f": {state['moves']} moves replayed"
    shown = next(line for line in reversed(said) if line.startswith("your hand"))
    assert shown.endswith(f"deadwood {state['hand']['deadwood']}") and all(c in shown for c in state["cards"])


def test_three_players_sit_at_the_table(client):
    state = client.post("/api/play", json={"against": "simple", "players": 3, "seed": 2}).json()
    assert state["players"] == 3 and len(state["names"]) == 3 and len(state["cards"]) == 7
    assert state["decision"]["coach"] is False  # the advisor weighs two-player hands


def test_illegal_moves_are_refused_with_the_referees_reason(client):
    state = client.post("/api/play", json={"against": "simple", "seed": 1}).json()
    refused(send(client, state, "s"), 400, "is not one of: t, n")
    state = send(client, state, "n").json()
    while state["decision"]["kind"] != "draw":
        state = send(client, state, simple_move(state)).json()
    state = send(client, state, "s").json()
    assert state["decision"]["kind"] in ("discard", "knock")
    absent = next(c for c in ("As", "2s", "3s", "4s", "5s") if c not in state["cards"])
    refused(send(client, state, absent), 400, "not in")  # the referee's illegal_reason
    refused(send(client, state, "Zz"), 400, "Zz")
    refused(send(client, state, "knock Ks Kd"), 400, "name one card")
    if state["decision"]["kind"] == "discard":
        refused(send(client, state, "knock " + state["cards"][0]), 400, "'knock' is not asked now")
    refused(send(client, state, ""), 400, "send the move")
    after = client.get(f"/api/play/{state['id']}").json()
    assert after == state  # every refusal left the game as it was


@pytest.mark.parametrize("sent, status, words", [
    ({"against": "nosuch"}, 400, "unknown strategy"),
    ({"rules": "../../etc/passwd"}, 400, "unknown rules preset"),
    ({"players": 5}, 400, "players 5"),
    ({"seed": "x"}, 400, "seed"),
    ({"seed": -4}, 400, "seed"),
])
def test_a_bad_new_game_is_refused(client, sent, status, words):
    refused(client.post("/api/play", json=sent), status, words)


@pytest.mark.parametrize("game, words", [("0" * 32, "no game"), ("nope", "no game"), ("..%2f..%2fetc", "Not Found")])
def test_an_unknown_game_is_not_found(client, game, words):
    refused(client.get(f"/api/play/{game}"), 404, words)
    refused(client.get(f"/play/{game}"), 404, words)


def test_a_damaged_save_is_a_clear_error(client, folders):
    state = client.post("/api/play", json={"seed": 5}).json()
    path = folders[0] / "web-games" / f"{state['id']}.json"
    path.write_text("{broken")
    client.app.state.games.sessions.clear()
    refused(client.get(f"/api/play/{state['id']}"), 400, "cannot read the saved game")


@pytest.mark.slow  # the advisor: a few seconds
def test_the_coach_advises_with_the_hands_history(client, monkeypatch):
    """The coach's sentence, the card it points at (one of the hand, or the upcard to take), the numbers, and the
    advice whole for tools."""
    from oklasim.table import coach as table_coach

    monkeypatch.setattr(table_coach, "COACH_SAMPLES", 300)  # the answer's shape is tested here, not the advice
    state = client.post("/api/play", json={"against": "simple", "seed": 4}).json()
    coach = client.post(f"/api/play/{state['id']}/coach", json={})
    assert coach.status_code == 200, coach.text
    told = coach.json()
    assert told["assumes"] == "simple" and told["moves"] == 0 and told["sentence"].endswith(".")
    assert told["card"] in [None, *state["cards"], state["pile"][-1]]
    assert told["details"][0] == "holds if the opponent plays simple, under default rules"
    assert told["advice"]["strategies"]["opponent"] == "simple"


# -- when to knock -------------------------------------------------------------------------------------------


def test_the_knock_table_for_the_shipped_policy(client):
    table = client.get("/api/knock", params={"rules": "seeds"}).json()
    assert table["answer"] == "mix" and table["undercut_bonus"] == 10 and table["rows"][0]["gain"] is None
    measured = table["rows"][1:]  # the first limit is gin only: nothing to choose
    assert len(measured) == 9 and all(r["low"] <= r["gain"] <= r["high"] for r in measured)
    assert "mix:" in table["details"] and "equilibrium:" in table["details"]
    bonus = client.get("/api/knock", params={"rules": "seeds", "bonus": 25, "answer": "max-min"}).json()
    assert bonus["undercut_bonus"] == 25 and all(r["worst"] for r in bonus["rows"] if r["gain"] is not None)


@pytest.mark.parametrize("query, words", [
    ({"rules": "pagat"}, "no knock policy measured under exactly these rules"),
    ({"rules": "seeds", "bonus": 13}, "no knock policy measured"),
    ({"rules": "seeds", "bonus": 10**6}, "undercut bonus"),
    ({"rules": "nosuch"}, "unknown rules preset"),
    ({"rules": "seeds", "answer": "bogus"}, "no answer 'bogus'"),
])
def test_knock_questions_without_an_answer_say_why(client, query, words):
    refused(client.get("/api/knock", params=query), 400, words)


# -- simulate ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sent, status, words", [
    ({"name": "../escape", "count": 100}, 400, "run name"),
    ({"name": "/abs", "count": 100}, 400, "run name"),
    ({"name": "ok", "count": 10**7}, 400, "games 10,000,000"),
    ({"name": "ok", "count": 100, "mode": "rounds"}, 400, "games or hands"),
    ({"name": "ok", "count": 100, "workers": 999}, 400, "workers"),
    ({"name": "ok", "count": 100, "strategies": "nosuch"}, 400, "unknown strategy"),
    ({"name": "ok", "count": 100, "rules": "x.toml"}, 400, "unknown rules preset"),
])
def test_a_bad_simulate_is_refused(client, sent, status, words):
    refused(client.post("/api/simulate", json=sent), status, words)


def test_an_unknown_run_is_not_found(client):
    refused(client.get("/api/jobs/nope"), 404, "no run")
    refused(client.post("/api/jobs/nope/cancel", json={}), 404, "no run")
    assert client.get("/api/jobs").json() == []


def test_a_simulate_runs_to_the_end_and_appears(client, folders):
    job = client.post("/api/simulate", json={"name": "small", "strategies": "simple,greedy", "count": 300}).json()
    assert job["status"] == "running" and job["shards"] >= 1
    refused(client.post("/api/simulate", json={"name": "other", "count": 10}), 409, "a run is going on")
    assert wait_for(lambda: client.get(f"/api/jobs/{job['id']}").json()["status"] != "running", 120)
    done = client.get(f"/api/jobs/{job['id']}").json()
    assert done["status"] == "complete" and done["progress"] == 1.0, done
    assert "small" in client.get("/runs").text and "simple, greedy" in client.get("/runs").text
    assert "points" in client.get("/browse/runs/small").text  # oklasim show's summary
    refused(client.post("/api/simulate", json={"name": "small", "count": 10}), 409, "exists")


def test_a_cancelled_simulate_leaves_no_process(client, folders):
    job = client.post("/api/simulate", json={"name": "big", "strategies": "expert,expert", "count": 100_000,
                                             "workers": 2}).json()
    # the command in its own session: it, multiprocessing's forkserver and resource tracker, two workers
    assert wait_for(lambda: len(session_pids(job["pid"])) >= 5, 60), session_pids(job["pid"])
    cancelled = client.post(f"/api/jobs/{job['id']}/cancel", json={}).json()
    assert cancelled["status"] == "cancelled" and cancelled["progress"] < 1
    assert wait_for(lambda: not session_pids(job["pid"]), 10), session_pids(job["pid"])
    manifest = json.loads((folders[0] / "big" / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"  # the command's own interrupt marked it
