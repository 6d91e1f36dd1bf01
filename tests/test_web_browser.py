"""``oklasim serve`` end to end in a real headless Chromium (Selenium): the real server, clicked as a person would.

Each test saves a screenshot of its page in its temporary folder; with ``OKLASIM_SCREENSHOTS=DIR`` set it is also
copied to ``DIR/<page>.png`` (``OKLASIM_SCREENSHOTS=docs/web`` refreshes the README's). Skipped when the system's
chromium or chromedriver is missing.
"""

import json
import os
import shutil
import signal
import re
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from processes import answers, descendants, free_port, session_pids, wait_for

from oklasim.table import levels

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
SHOTS = os.environ.get("OKLASIM_SCREENSHOTS")  # where the screenshots are kept beyond the test (docs/web)
POSITION = ["2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", "9c", ["8d", "4s"]]  # hand, upcard, the pile after it
DESKTOP, PHONE = 1280, 390  # page widths, px
REVIEW_SAMPLES = 300  # worlds per decision of the server's reviews: quick
LEVEL_AT = {DESKTOP: "beginner", PHONE: "club"}  # two levels: each width plays a whole game against one

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)),
                       reason=f"needs {CHROMIUM} and {CHROMEDRIVER} (Debian: apt-get install chromium "
                              "chromium-driver)"),
]
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def games_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("web-games")


@pytest.fixture(scope="module")
def server(tmp_path_factory, games_folder):
    """``oklasim serve`` on a free port, in its own session; it and everything it started are gone afterwards."""
    root = tmp_path_factory.mktemp("serve")
    (root / "reports").mkdir()
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "oklasim.cli", "serve", "--port", str(port), "--runs",
                                str(root / "runs"), "--reports", str(root / "reports"), "--games",
                                str(games_folder), "--review-samples", str(REVIEW_SAMPLES)],
                               stdout=subprocess.DEVNULL, stderr=open(root / "server.log", "w"), start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        assert wait_for(lambda: answers(url + "/"), 30), (root / "server.log").read_text()
        yield url, process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            pass
        if session_pids(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextmanager
def chromium(width: int = DESKTOP):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={DESKTOP},1100"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        fit(driver, width)
        yield driver
    finally:
        driver.quit()


def fit(driver, width: int) -> None:
    """The tab's page ``width`` px wide: Chrome keeps a window at least 500 px wide, so a phone's narrower screen is
    the viewport's (as a desktop page: a phone's page would zoom out to fit what overflows, hiding it)."""
    if width != DESKTOP:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": False})


@pytest.fixture
def browser():
    with chromium() as driver:
        yield driver


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def any_width(request):
    with chromium(request.param) as driver:
        yield driver


def screenshot(driver, tmp_path: Path, name: str) -> None:
    shot = tmp_path / f"{name}.png"
    driver.save_screenshot(str(shot))
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(SHOTS) / f"{name}.png")


def wait(driver, condition, seconds: float = 30):
    # a page that redraws or reloads (the runs page, when a run ends) while it is read is read again
    return WebDriverWait(driver, seconds, poll_frequency=0.1,
                         ignored_exceptions=[StaleElementReferenceException]).until(lambda d: condition(d))


def click_card(driver, card: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f'#deck button[data-card="{card}"]').click()


def test_a_hand_played_by_clicking(server, browser, tmp_path):
    url, _ = server
    browser.get(url + "/play")
    browser.find_element(By.ID, "g-seed").send_keys("3")
    browser.find_element(By.ID, "new-game-go").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#game[data-moves]"))
    refusal_seen = False
    while not browser.find_elements(By.CSS_SELECTOR, "#showdowns .showdown"):
        moves = browser.find_element(By.ID, "game").get_attribute("data-moves")
        try:
            refused = click_a_move(browser, refusal_seen)
        except StaleElementReferenceException:  # the page redrew while it was read: read it again
            continue
        if refused != refusal_seen:
            refusal_seen = True
            continue
        wait(browser, lambda d: d.find_element(By.ID, "game").get_attribute("data-moves") != moves
             or d.find_element(By.ID, "status").text)
        assert not browser.find_element(By.ID, "status").text, browser.find_element(By.ID, "status").text
    showdown = browser.find_element(By.CSS_SELECTOR, "#showdowns .showdown").text
    assert "you:" in showdown and "simple:" in showdown and "deadwood" in showdown
    assert refusal_seen
    browser.find_element(By.ID, "next-hand").click()  # the hand's end read: the next deal shows
    browser.find_element(By.ID, "coach-go").click()  # the next hand's first decision, advised; it says whom it assumes
    sentence = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#coach p.coach-sentence"), 300)[0].text
    assert sentence.endswith(".") and "\n" not in sentence  # one sentence first; the numbers a click away
    browser.find_element(By.CSS_SELECTOR, "#coach details summary").click()
    assert "holds if the opponent plays simple" in browser.find_element(By.CSS_SELECTOR, "#coach details").text
    screenshot(browser, tmp_path, "play")


def click_a_move(browser, refusal_seen: bool) -> bool:
    """One click of a plain policy: pass, draw from the stock, knock when offered, lay the first arrangement, discard
    the worst card. Once, first, a knock that is not offered: refused with the referee's reason, nothing played.
    Returns whether that refusal was seen."""
    buttons = {b.get_attribute("data-move"): b
               for b in browser.find_element(By.ID, "decision").find_elements(By.TAG_NAME, "button")}
    knocks = [b for move, b in buttons.items() if move.startswith("knock")]
    if "t" in buttons:
        buttons["n"].click()  # pass the upcard
    elif "s" in buttons:
        buttons["s"].click()  # draw from the stock
    elif knocks:
        knocks[0].click()
    elif buttons:
        next(iter(buttons.values())).click()  # lay the first arrangement
    elif not refusal_seen:
        browser.find_element(By.ID, "knock-toggle").click()
        browser.find_elements(By.CSS_SELECTOR, "#hand button.card")[-1].click()
        wait(browser, lambda d: "not asked now" in d.find_element(By.ID, "status").text)
        browser.find_element(By.ID, "knock-toggle").click()
        return True
    else:
        worst = browser.find_elements(By.CSS_SELECTOR, "#hand button.card.loose") or \
            browser.find_elements(By.CSS_SELECTOR, "#hand button.card")
        worst[0].click()
    return refusal_seen


def test_advice_from_the_card_picker_equals_the_command_line(server, browser, tmp_path):
    url, _ = server
    browser.get(url + "/advise")
    hand, upcard, pile = POSITION
    for card in hand.split():
        click_card(browser, card)
    browser.find_element(By.CSS_SELECTOR, 'input[name="target"][value="upcard"]').click()
    click_card(browser, upcard)  # the upcard starts the pile
    browser.find_element(By.CSS_SELECTOR, 'input[name="target"][value="pile"]').click()
    for card in pile:
        click_card(browser, card)
    # The sample count ends both runs: the most time a page may ask (120 s) is 30 times what 3000 samples take.
    fields = {"opponent": "simple", "seed": "1", "max_samples": "3000", "max_seconds": "120"}
    for name, value in fields.items():
        box = browser.find_element(By.ID, "f-" + name)
        box.clear()
        box.send_keys(value)
    assert browser.find_element(By.ID, "f-pile").get_attribute("value") == "9c 8d 4s"
    browser.find_element(By.ID, "advise-go").click()
    table = wait(browser, lambda d: d.find_element(By.ID, "advice").get_attribute("data-json"), 120)
    web = json.loads(table)
    command = subprocess.run([sys.executable, "-m", "oklasim.cli", "advise", hand, "--upcard", upcard, "--pile",
                              " ".join([upcard, *pile]), "--opponent", "simple", "--seed", "1", "--samples", "3000",
                              "--seconds", "120", "--json"], capture_output=True, text=True, timeout=300)
    assert command.returncode == 0, command.stderr
    cli = json.loads(command.stdout)
    assert web["stop_reason"] != "time"
    for timing in ("seconds", "setup_seconds"):
        web.pop(timing), cli.pop(timing)
    assert web == cli
    shown = browser.find_element(By.CSS_SELECTOR, "#advice table").text
    best = next(c for c in cli["candidates"] if c["status"] == "recommended")
    assert best["label"] in shown and f"{best['points']['mean']:+.2f}" in shown
    screenshot(browser, tmp_path, "advise")
    browser.get(browser.find_element(By.ID, "permalink").get_attribute("href"))  # the permalink fills the form...
    wait(browser, lambda d: "click advise to run it" in d.find_element(By.ID, "status").text)
    assert browser.find_element(By.ID, "f-pile").get_attribute("value") == "9c 8d 4s"
    assert not browser.find_element(By.ID, "advice").get_attribute("data-json")  # ...and runs nothing on its own
    browser.find_element(By.ID, "advise-go").click()
    again = wait(browser, lambda d: d.find_element(By.ID, "advice").get_attribute("data-json"), 120)
    assert json.loads(again)["candidates"] == cli["candidates"]


def test_the_knock_table_for_two_presets(server, browser, tmp_path):
    url, _ = server
    browser.get(url + "/knock")
    rows = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".knock-table tr"))
    assert len(rows) == 11 and "A (gin only)" in rows[1].text  # a header and ten knock limits
    assert "gain over knocking at once" in rows[0].text and "[" in rows[-1].text
    browser.find_element(By.TAG_NAME, "summary").click()
    assert "equilibrium:" in browser.find_element(By.CSS_SELECTOR, "details pre").text
    screenshot(browser, tmp_path, "knock")
    Select(browser.find_element(By.ID, "k-rules")).select_by_visible_text("pagat")
    browser.find_element(By.ID, "knock-go").click()
    wait(browser, lambda d: "no knock policy measured" in d.find_element(By.ID, "status").text)
    assert not browser.find_elements(By.CSS_SELECTOR, ".knock-table")
    Select(browser.find_element(By.ID, "k-rules")).select_by_visible_text("seeds")
    browser.find_element(By.ID, "k-bonus").send_keys("25")
    browser.find_element(By.ID, "knock-go").click()
    wait(browser, lambda d: "undercut bonus 25" in d.find_element(By.ID, "knock").text)


def test_a_simulate_started_watched_cancelled_and_a_small_one_finished(server, browser, tmp_path):
    url, process = server
    browser.get(url + "/runs")

    def start(name: str, strategies: str, count: int, workers: int) -> None:
        for field, value in (("s-name", name), ("s-strategies", strategies), ("s-count", str(count)),
                             ("s-workers", str(workers))):
            box = browser.find_element(By.ID, field)
            box.clear()
            box.send_keys(value)
        browser.find_element(By.ID, "sim-go").click()

    start("cancelled-run", "expert,expert", 100_000, 2)
    wait(browser, lambda d: float(d.find_element(By.CSS_SELECTOR, ".job.status-running progress")
                                 .get_attribute("value") or 0) > 0, 60)  # watched: some shards are done
    assert descendants(process.pid), "the run's processes"
    browser.find_element(By.CSS_SELECTOR, ".job.status-running button.cancel").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".job.status-cancelled"), 60)
    assert wait_for(lambda: not descendants(process.pid), 20), descendants(process.pid)
    start("small-run", "simple,greedy", 2000, 1)
    wait(browser, lambda d: "small-run" in d.find_element(By.ID, "runs").text, 120)  # reloaded when done
    assert "complete" in browser.find_element(By.ID, "runs").text
    screenshot(browser, tmp_path, "runs")


# -- the game by keys, each hand's end, at a desktop's and a phone's width -------------------------------------------


def no_sideways_scroll(driver) -> bool:
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


def moves_shown(driver) -> str:
    return driver.find_element(By.ID, "game").get_attribute("data-moves")


def press(driver, keys: str) -> None:
    """Keys typed on the page (at whatever has the focus), and the move they make taken."""
    moves = moves_shown(driver)
    ActionChains(driver).send_keys(keys).perform()
    wait(driver, lambda d: moves_shown(d) != moves or d.find_element(By.ID, "status").text)
    assert not driver.find_element(By.ID, "status").text, driver.find_element(By.ID, "status").text


def key_move(driver, used: set) -> str:
    """The keys of a plain policy's move, each shortcut used at its first chance: take the first upcard offered,
    then pass; draw from the stock; knock when offered; lay the first melds; else type the worst card (not the one
    just taken). Adds what they do to ``used``."""
    buttons = [b.get_attribute("data-move") for b in driver.find_elements(By.CSS_SELECTOR, "#decision button")]
    knocks = [move.split()[1] for move in buttons if move.startswith("knock ")]
    if "t" in buttons:
        key = "n" if "t" in used else "t"
        used.add(key)
    elif "s" in buttons:
        key = "s"
        used.add(key)
    elif knocks:
        key = "k" + knocks[0]
        used.add("knock")
    elif "1" in buttons:  # the melds to lay
        key = "1"
    else:
        forbidden = re.findall(r"not (\S+), just taken", driver.find_element(By.ID, "decision").text)
        cards = [b.get_attribute("data-card") for b in
                 driver.find_elements(By.CSS_SELECTOR, "#hand button.card.loose") +
                 driver.find_elements(By.CSS_SELECTOR, "#hand button.card")]
        key = next(c for c in cards if c not in forbidden)
        used.add("card")
    return key.lower()


def typed_into_a_field_plays_nothing(driver) -> None:
    """At a draw: 's' typed into a text field draws nothing; 'p' typed on the page then takes the pile."""
    driver.execute_script("document.getElementById('game').prepend(Object.assign(document.createElement('input'),"
                          "{id: 'probe'}))")
    driver.find_element(By.ID, "probe").send_keys("s")
    driver.execute_script("document.getElementById('probe').remove()")
    press(driver, "p")
    mine = [line for line in driver.find_element(By.ID, "story").get_attribute("textContent").splitlines()
            if line.startswith("you ")]
    assert re.fullmatch(r"you take \S+ from the pile", mine[-1]), mine


def bot_throw_marked(driver, opponent: str) -> bool:
    """Whether the bot's latest move is told beside the pile with a throw, its card marked on the pile."""
    told = re.search(rf"{re.escape(opponent)} .*threw (\S+)$", driver.find_element(By.ID, "bot-moves").text)
    if told:
        marked = driver.find_elements(By.CSS_SELECTOR, "#pile .card.bot-threw")
        assert [card.get_attribute("data-card") for card in marked] == [told.group(1)]
    return bool(told)


def read_hand_end(driver, opponent: str) -> str:
    """The end of a hand, shown on top with the next deal hidden: every hand in melds (the ``opponent``'s too),
    deadwood before and after the layoffs, the points and the score; returns its text."""
    panel = driver.find_element(By.ID, "hand-end")
    text = panel.text
    assert not driver.find_element(By.ID, "live").is_displayed()
    assert panel.rect["y"] < driver.execute_script("return window.innerHeight")  # on top, not below the fold
    assert "score you " in text and re.search(r"you: .*deadwood \d+", text) and f"{opponent}: " in text, text
    if "void" not in text:
        assert panel.find_elements(By.CSS_SELECTOR, ".meld .card") and "points: " in text, text
        assert re.search(r"deadwood \d+ before layoffs, \d+ after", text), text
    assert bool(panel.find_elements(By.CSS_SELECTOR, ".card.laid-off")) == ("laid off" in text), text
    return text


def same_in_a_second_tab(driver, width: int, shown: list[str]) -> None:
    """The game's address opened in another tab shows the same table (the elements ``shown``) and moves."""
    first = driver.current_window_handle
    seen = [driver.find_element(By.ID, name).text for name in shown], moves_shown(driver)
    address = driver.current_url
    driver.switch_to.new_window("tab")
    fit(driver, width)
    driver.get(address)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#game[data-moves]"))
    assert ([driver.find_element(By.ID, name).text for name in shown], moves_shown(driver)) == seen
    driver.close()
    driver.switch_to.window(first)


def coach_agrees_with_the_advisor(driver, level: str) -> None:
    """The coach's sentence at the game's first decision is the advisor's own numbers, read by the one builder of
    the coach's words: the same advice as ``advise`` with what the seat knows, for the strategy the level plays."""
    from oklasim.advise import advise
    from oklasim.advise.brief import brief
    from oklasim.table import coach

    state = driver.execute_async_script("const done = arguments[arguments.length - 1];"
                                        "OK.api('GET', '/api/play/' + location.pathname.split('/').pop()).then(done)")
    strategy = levels.opponent(level)[0]
    assert state["against"] == strategy and state["decision"]["kind"] == "take_upcard"
    driver.find_element(By.ID, "coach-go").click()
    sentence = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#coach p.coach-sentence"), 300)[0].text
    advice = advise(" ".join(state["cards"]), upcard=state["upcard"], pile=state["upcard"], dealer="opponent",
                    scores=(0, 0), opponent=strategy, max_samples=coach.COACH_SAMPLES,
                    win_precision=coach.COACH_WIN_PRECISION, max_seconds=coach.COACH_SECONDS, seed=1)
    assert advice.stop_reason != "time" and brief(advice).sentence == sentence
    best = next(c for c in advice.to_dict()["candidates"] if c["status"] in ("recommended", "leading"))
    assert f"{round(100 * best['win_chance']['mean'])}%" in sentence and "to win the game" in sentence, (sentence, best)


def test_a_whole_game_by_keys_with_each_hands_end(server, any_width, tmp_path):
    url, _ = server
    driver, width = any_width, any_width.execute_script("return window.innerWidth")
    assert width in (DESKTOP, PHONE)
    driver.get(url + "/play")
    driver.find_element(By.ID, "g-seed").send_keys("3")
    driver.find_element(By.ID, "g-against").clear()
    driver.find_element(By.ID, "g-against").send_keys(LEVEL_AT[width])
    driver.find_element(By.ID, "new-game-go").click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#game[data-moves]"))
    assert re.search(r"/play/[0-9a-f]{32}$", driver.current_url)
    coach_agrees_with_the_advisor(driver, LEVEL_AT[width])
    opponent = levels.opponent(LEVEL_AT[width])[0]
    used, ends, laid_off, bot_marked = set(), 0, False, False
    while not driver.find_elements(By.CSS_SELECTOR, "#hand-end .result"):  # the game's end
        assert no_sideways_scroll(driver)
        if driver.find_element(By.ID, "hand-end").is_displayed():
            laid_off |= "laid off" in read_hand_end(driver, opponent)
            if not ends:
                same_in_a_second_tab(driver, width, ["hand-end", "table-line"])
                screenshot(driver, tmp_path, f"hand-end-{width}")
            ends += 1
            if ends % 2:
                ActionChains(driver).send_keys("\n").perform()
            else:
                driver.find_element(By.ID, "next-hand").click()
            wait(driver, lambda d: d.find_element(By.ID, "live").is_displayed())
            continue
        bot_marked = bot_marked or bot_throw_marked(driver, opponent)
        if "s" in [b.get_attribute("data-move") for b in driver.find_elements(By.CSS_SELECTOR, "#decision button")] \
                and "p" not in used:
            same_in_a_second_tab(driver, width, ["hand", "pile", "table-line", "bot-moves"])
            typed_into_a_field_plays_nothing(driver)
            used.add("p")
            continue
        press(driver, key_move(driver, used))
    read_hand_end(driver, opponent)
    assert ends >= 2 and laid_off and bot_marked and used >= {"t", "n", "p", "s", "card", "knock"}, \
        (ends, laid_off, bot_marked, used)
    verdict = driver.find_element(By.CSS_SELECTOR, "#hand-end .result").text
    totals = re.search(r"totals .*", verdict).group(0)
    assert verdict.startswith("game over: ") and totals in driver.find_element(By.ID, "table-line").text
    review = driver.find_element(By.LINK_TEXT, "review this game").get_attribute("href")
    assert review.endswith("/review/" + driver.current_url.rstrip("/").rsplit("/", 1)[1]), review
    assert no_sideways_scroll(driver)
    screenshot(driver, tmp_path, f"game-over-{width}")


def test_no_page_scrolls_sideways_on_a_phone(server, tmp_path):
    url, _ = server
    with chromium(PHONE) as driver:
        for page, ready in [("/", "nav"), ("/play", "#new-game"), ("/advise", "#deck button"),
                            ("/knock", ".knock-table"), ("/runs", "#runs"), ("/browse/reports/", "main"),
                            ("/stats", "main")]:
            driver.get(url + page)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ready))
            assert driver.execute_script("return window.innerWidth") == PHONE
            assert no_sideways_scroll(driver), page
        screenshot(driver, tmp_path, "knock-phone")


def test_a_reviewed_game_reads_on_a_desktop_and_on_a_phone(server, games_folder, tmp_path):
    from saved_games import save_bot_game

    from oklasim.review import review, saved_game

    url, _ = server
    game_id = "ab" * 16
    save = games_folder / f"{game_id}.json"
    save_bot_game(save, "expert", "simple", seed=3, stop_after=30)
    reviewed = review(saved_game(save), REVIEW_SAMPLES, out=games_folder / f"{game_id}.review.json")
    for width in (DESKTOP, PHONE):
        with chromium(width) as driver:
            driver.get(f"{url}/review/{game_id}")
            wait(driver, lambda d: d.find_elements(By.ID, "by-kind"))
            shown = driver.find_element(By.ID, "points-lost").text
            assert shown == f"{reviewed.lost():.1f}", shown
            assert no_sideways_scroll(driver)
            screenshot(driver, tmp_path, f"review-{width}")
