"""The table page in a real browser: Debian's headless Chromium driven by Playwright, against the
real server (web.server) and a running referee.

Opens the table page, pushes a trick through the referee and sees the page update without a
reload within a second, resolves a conflict with the host PIN, and saves a screenshot to
test-artifacts/table.png. Without Chromium it fails under CI (CI=true) and skips elsewhere;
`make test` (scripts/ensure-test-tools.sh) installs it.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.commands import ManualEvent, NewGame
from companion.games import game_named
from companion.games.tightrope.rules import CardPlayed, GameStarted, ScoringCard, ScoringRevealed
from companion.hub import Hub
from companion.keep import TrickPhotos
from companion.referee import Referee
from companion.store import Store
from web.app import create_app
from web.auth import PinStore
from web.server import make_server

PIN = "5791"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str:
    path = (os.environ.get("TIGHTROPE_CHROMIUM") or shutil.which("chromium")
            or "/usr/bin/chromium")
    reason = None
    if not Path(path).exists():
        reason = f"no chromium at {path}: run `sh scripts/ensure-test-tools.sh`"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "the playwright package is missing: pip install -e '.[test]'"
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


class Table:
    """A referee with its loop running and the real web server on a free loopback port."""

    def __init__(self, root: Path, pin: bool = True, camera: Any = None,
                 cards_in_view: Any = None, indicators: Any = None) -> None:
        self.store = Store(root / "tightrope.db")
        self.referee = Referee(self.store, Hub(), indicators=indicators)
        self.referee.subscribe(TrickPhotos(root / "photos", self.store))
        pins = PinStore(root / "host-pin")
        if pin:
            pins.set_pin(PIN)
        self.zones_saved: list[bool] = []
        app = create_app(self.referee, self.store, photo_dir=root / "photos", pin_store=pins,
                         camera=camera, cards_in_view=cards_in_view,
                         on_zones_saved=lambda: self.zones_saved.append(True))
        self.server = make_server(app, "127.0.0.1", 0, threads=16)
        self.url = f"http://127.0.0.1:{self.server.port}"
        self.referee.start()
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.close()
        self.thread.join(timeout=5)
        self.referee.stop()
        self.store.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path)
    yield t
    t.close()


@pytest.fixture
def page() -> Iterator[Any]:
    executable = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 412, "height": 915},
                                      device_scale_factor=1)
        yield context.new_page()
        browser.close()


def test_table_page_updates_live_and_resolves_a_conflict(table: Table, page: Any) -> None:
    ref = table.referee
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    expected = "the server responded with a status of 403"  # the writes sent before the PIN
    page.on("console", lambda msg: errors.append(msg.text)
            if msg.type == "error" and expected not in msg.text else None)

    page.goto(table.url + "/")
    page.wait_for_selector("#conn[data-state=live]", timeout=5000)
    page.wait_for_selector("#no-game:not([hidden])", timeout=5000)

    ref.call(NewGame(GameStarted(("Ana", "Ben", "Cy"), 0)))
    page.wait_for_selector("#seat-2", timeout=2000)
    page.evaluate("window.__sameDocument = true")  # gone if the page reloads

    # One trick entered by hand: scoring card 3; 7, 28, 36 (the rules' worked example).
    ref.call(ManualEvent(ScoringRevealed(ScoringCard.parse("3"))))
    for seat, card in [(1, 7), (2, 28)]:
        ref.call(ManualEvent(CardPlayed(seat, card)))
    page.wait_for_selector("#trick-plays >> text=28", timeout=1000)
    pushed = time.monotonic()
    ref.call(ManualEvent(CardPlayed(0, 36)))
    page.wait_for_selector("#last-trick >> text=takes 3 blue", timeout=1000)
    seen_after = time.monotonic() - pushed
    assert seen_after < 1.0
    assert page.evaluate("window.__sameDocument") is True
    assert "Ana (36) takes 3 blue" in page.text_content("#last-trick")
    assert "Ben (7) takes 3 red" in page.text_content("#last-trick")
    assert page.locator("#seat-0 .stick.blue").count() == 3
    assert page.locator("#seat-1 .stick.red").count() == 3
    assert "trick 2/9" in page.text_content("#where")
    # entered by hand: the camera did not see it, so it keeps no photo (a stale frame would lie)
    assert page.locator("#last-photo").is_hidden()

    # A question: the banner shows the card's crop, the likeliest cards, and any other card can
    # be given; answering needs the host PIN.
    from conftest import ask_about_a_card

    ask_about_a_card(ref, ref.game.to_play()[0], ("number-16", 0.45), ("number-19", 0.4))
    page.wait_for_selector("#banner:not([hidden]) >> text=Which card did", timeout=2000)
    page.wait_for_selector("#banner-crop:not([hidden])", timeout=2000)
    assert page.locator("#banner-choices button").count() == 8 + 1  # the likeliest, and "none"
    assert "OK button cannot" in page.text_content("#banner-ok")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "table-conflict.png"))
    page.fill("#banner-card", "44")  # not among the buttons
    page.click("#banner-other button[type=submit]")
    page.wait_for_selector("#pin-dialog[open]", timeout=2000)
    page.fill("#pin-input", "0000")
    page.click("#pin-ok")
    page.wait_for_selector("#pin-error >> text=wrong PIN", timeout=2000)
    assert ref.game.trick_plays == ()
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    page.wait_for_selector("#banner", state="hidden", timeout=3000)
    assert [p.card for p in ref.game.trick_plays] == [44]
    assert page.evaluate("window.__sameDocument") is True

    page.screenshot(path=str(ARTIFACTS / "table.png"), full_page=True)
    assert (ARTIFACTS / "table.png").stat().st_size > 10_000
    assert errors == []


def test_first_pin_new_game_and_entry_by_hand(tmp_path: Path, page: Any) -> None:
    table = Table(tmp_path, pin=False)
    try:
        page.goto(table.url + "/setup")
        page.fill("#set-pin input[name=pin]", PIN)
        page.click("#set-pin button")
        page.wait_for_selector("#host-state >> text=logged in as host", timeout=3000)
        names = page.locator("#new-game input[name=player]")
        for i, name in enumerate(["Ana", "Ben", "Cy", "Dora"]):
            names.nth(i).fill(name)
        page.select_option("#new-game select[name=first_dealer]", "1")
        page.click("#new-game button[type=submit]")
        page.wait_for_selector("#seat-3", timeout=3000)  # back on the table, four seats
        assert table.referee.game.setup.players == ("Ana", "Ben", "Cy", "Dora")
        assert "dealer Ben" in page.text_content("#where")

        page.click("#manual summary")
        page.click("#manual-reveal button[data-card='5']")
        page.wait_for_selector("#trick-scoring >> text=5", timeout=2000)
        page.fill("#manual-card", "17")  # Cy leads (left of the dealer Ben)
        page.click("#manual-play button[type=submit]")
        page.wait_for_selector("#trick-plays >> text=17", timeout=2000)
        page.fill("#manual-card", "17")  # the same card again: the rules refuse it
        page.click("#manual-play button[type=submit]")
        page.wait_for_selector("#toast.bad >> text=already played", timeout=2000)
        page.click("#undo")
        page.wait_for_selector("#trick-plays >> text=17", state="detached", timeout=2000)
        events = table.store.events(table.referee.game_id)
        assert [type(e).__name__ for e in events[1:]] == [
            "ScoringRevealed", "CardPlayed", "Undo"]
    finally:
        table.close()


def test_a_phone_shows_five_seats_and_every_page_without_clipping(table: Table, page: Any
                                                                   ) -> None:
    import random

    from companion.games.tightrope.randgame import random_game
    from companion.games.tightrope.rules import Variant

    events = random_game(random.Random(5), 5, Variant())
    table.referee.call(NewGame(events[0]))
    for event in events[1:130]:  # into round 3, with a struck score and a trick in play
        table.referee.call(ManualEvent(event))
    page.set_viewport_size({"width": 390, "height": 844})
    ARTIFACTS.mkdir(exist_ok=True)

    def inside(selector: str) -> None:
        for box in [page.locator(selector).nth(i).bounding_box()
                    for i in range(page.locator(selector).count())]:
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, \
                (selector, box)

    for logged_in in (False, True):
        if logged_in:  # the button then reads "Host ✓", wider
            page.goto(table.url + "/setup")
            page.click("#host-button")
            page.fill("#pin-input", PIN)
            page.click("#pin-ok")
            page.wait_for_selector("#host-button >> text=✓", timeout=3000)
        for name, url in (("table", "/"), ("scores", "/scoresheet"), ("tricks", "/tricks"),
                          ("history", "/history"), ("setup", "/setup")):
            page.goto(table.url + url)
            if name == "table":
                page.wait_for_selector("#seat-4", timeout=3000)
                inside(".seat")
            inside("header nav a")
            inside("#host-button")
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
            page.screenshot(path=str(ARTIFACTS / f"phone-{name}{'-host' if logged_in else ''}"
                                                 ".png"))


def _seen_surely(ref: Referee, seat: int, label: str, t: float, track: int) -> None:
    """The camera saw `seat`'s card and read it surely as `label`."""
    from companion.commands import Seen
    from vision.types import CardId, Change, Observation, Reading

    card = CardId.from_label(label)
    reading = Reading.of(card, 0.999, ((card, 0.999), (CardId("number", 1), 0.001)), 0.9)
    quad = np.float32([[10, 10], [50, 10], [50, 70], [10, 70]])
    obs = Observation(reading, quad, (30.0, 40.0), seat, 3, track)
    ref.call(Seen((Change("appeared", obs, 0),), t, np.full((120, 160, 3), 90, np.uint8)))


def test_two_cards_read_as_one_offer_the_read_and_ask_about_the_other_on_a_phone(
        table: Table, page: Any) -> None:
    """Ben's card was counted as 20 on the camera's read; Ana's, read 20 too, is asked about
    with the 20 offered first (one of the two reads is wrong). Naming it asks which card Ben
    played. Both fit a 390 px phone."""
    from companion.commands import Resolve

    ref = table.referee
    ref.call(NewGame(GameStarted(("Ana", "Ben", "Cy"), 0)))
    ref.call(ManualEvent(ScoringRevealed(ScoringCard.parse("3"))))
    _seen_surely(ref, 1, "number-20", 1.0, 501)
    for seat, card in [(2, 28), (0, 36)]:
        ref.call(ManualEvent(CardPlayed(seat, card)))
    ref.call(ManualEvent(ScoringRevealed(ScoringCard.parse("5"))))
    _seen_surely(ref, 0, "number-20", 5.0, 502)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(table.url + "/")
    page.wait_for_selector("#banner:not([hidden]) >> text=Ben's card in trick 1 counts as 20",
                           timeout=5000)
    first = page.locator("#banner-choices button").first
    assert first.text_content() == "20 (then Ben's card in trick 1 was another)"
    ref.call(Resolve(ref.view()["conflict"]["id"], "card:20"))
    page.wait_for_selector("#banner:not([hidden]) >> text=Which card did Ben play in trick 1",
                           timeout=5000)
    assert "Ana's card was named as the 20" in page.text_content("#banner-text")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "phone-two-reads.png"))
    ref.call(Resolve(ref.view()["conflict"]["id"], "card:21"))
    deadline = time.monotonic() + 2
    while ref.game.trick_plays == () and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [(p.seat, p.card) for p in ref.game.trick_plays] == [(0, 20)]
    assert [(p.seat, p.card) for p in ref.game.tricks_this_round[0].plays if p.seat == 1] == \
        [(1, 21)]


def test_a_card_corrected_by_tapping_it_changes_the_scoresheet(table: Table, page: Any) -> None:
    ref = table.referee
    ref.call(NewGame(GameStarted(("Ana", "Ben", "Cy"), 0)))
    ref.call(ManualEvent(ScoringRevealed(ScoringCard.parse("3"))))
    for seat, card in [(1, 7), (2, 28), (0, 36)]:  # 36 (Ana) takes 3 blue, 7 (Ben) 3 red
        ref.call(ManualEvent(CardPlayed(seat, card)))
    page.goto(table.url + "/setup")
    page.click("#host-button")
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    page.wait_for_selector("#host-button >> text=✓", timeout=3000)
    page.goto(table.url + "/tricks")
    page.click("button.fix[data-seat='0']")  # Ana's 36: it was really a 6
    page.wait_for_selector("#fix-dialog[open]", timeout=2000)
    assert "Ana's card in round 1, trick 1 is 36" in page.text_content("#fix-what")
    page.fill("#fix-form input[name=card]", "6")
    page.click("#fix-form button[value=fix]")
    page.wait_for_selector("#fixed:not([hidden])", timeout=3000)
    assert "is now 6" in page.text_content("#fixed")
    assert page.text_content("button.fix[data-seat='0']").strip() == "6"
    page.click("button.fix[data-kind=scoring]")  # and the scoring card was a 5
    page.select_option("#fix-form select[name=scoring]", "5")
    page.click("#fix-form button[value=fix]")
    page.wait_for_selector("#fixed >> text=scoring card", timeout=3000)
    page.goto(table.url + "/scoresheet")
    # 6 (Ana) low: 5 red; 28 (Cy) high: 5 blue; Ben balanced
    assert ref.game.balances == [-5, 0, 5]
    cells = page.locator("#sheet tbody tr").first.locator("td").all_text_contents()
    assert [c.strip() for c in cells][-3:] == ["5", "0", "5"]  # round 1 so far: Ana, Ben, Cy
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "corrected.png"))


def test_with_no_pin_set_an_answer_offers_to_choose_one(tmp_path: Path, page: Any) -> None:
    table = Table(tmp_path, pin=False)
    try:
        from conftest import ask_about_a_card

        table.referee.call(NewGame(GameStarted(("Ana", "Ben", "Cy"), 0)))
        page.goto(table.url + "/")
        ask_about_a_card(table.referee, 1, ("number-12", 0.5), ("number-21", 0.4))
        page.wait_for_selector("#banner:not([hidden]) >> text=Which card did", timeout=3000)
        page.click("button[data-choice='card:21']")
        page.wait_for_selector("#pin-dialog[open]", timeout=2000)
        assert page.text_content("#pin-label") == "Choose the host PIN"
        assert page.is_visible("#pin-hint") and page.text_content("#pin-ok") == "Set the PIN"
        page.fill("#pin-input", PIN)
        page.click("#pin-ok")
        page.wait_for_selector("#banner", state="hidden", timeout=3000)
        assert [p.card for p in table.referee.game.trick_plays] == [21]
        page.wait_for_selector("#host-button >> text=✓", timeout=3000)
    finally:
        table.close()


class _Camera:
    """A camera whose picture is a plain 1280x720 frame."""

    def snapshot_jpeg(self) -> bytes:
        ok, data = cv2.imencode(".jpg", np.full((720, 1280, 3), 60, np.uint8))
        return data.tobytes()


def test_zones_are_drawn_on_the_picture_and_a_card_laid_shows_where_it_falls(
        tmp_path: Path, page: Any) -> None:
    card = {"kind": "number", "value": 17, "confidence": 0.99, "center": [640.0, 600.0],
            "corners": [[600, 540], [680, 540], [680, 660], [600, 660]]}
    table = Table(tmp_path, camera=_Camera(), cards_in_view=lambda: [card])
    try:
        page.goto(table.url + "/setup/zones")
        page.wait_for_selector("#zone-seen >> text=17 in no area", timeout=5000)
        assert page.locator("#zone-seats option").all_text_contents() == ["3", "4", "5"]
        page.select_option("#zone-seats", "4")  # no game in play: the host says how many
        assert page.locator("#zone-pick option").count() == 5  # four seats and the row
        svg = page.locator("#zone-svg").bounding_box()
        k = svg["width"] / 1280
        for x, y in ((400, 450), (880, 450), (880, 700), (400, 700)):  # seat 1: the near edge
            page.mouse.click(svg["x"] + x * k, svg["y"] + y * k)
        page.wait_for_selector("#zone-seen >> text=17 in seat 1", timeout=5000)
        page.click("#host-button")
        page.fill("#pin-input", PIN)
        page.click("#pin-ok")
        page.wait_for_selector("#host-button >> text=✓", timeout=3000)
        page.click("#zone-save")  # four seats need all their areas: the row is refused
        page.wait_for_selector("#toast >> text=seat 1", timeout=3000)
        assert table.zones_saved == []
    finally:
        table.close()


def test_a_solo_table_s_spots_are_drawn_on_the_zones_page(tmp_path: Path, page: Any) -> None:
    """The game in play says how many seats (one) and which places its table has: the host
    draws the player's zone, the informants' row and a spot, and they are saved."""
    zones_file = tmp_path / "zones.json"
    card = {"kind": "unknown", "value": 0, "confidence": 0.4, "center": [640.0, 90.0],
            "corners": [[600, 30], [680, 30], [680, 150], [600, 150]]}
    table = Table(tmp_path, camera=_Camera(), cards_in_view=lambda: [card])
    try:
        table.referee.call(NewGame(game_named("solo").random_game(1, 1)[0], game="solo"))
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(table.url + "/setup/zones")
        page.wait_for_selector("#zone-seen >> text=? in no area", timeout=5000)
        assert page.locator("#zone-seats option").all_text_contents() == ["1"]
        labels = page.locator("#zone-pick option").all_text_contents()
        assert labels[:2] == ["seat 1 (Ana)", "informants' row"] and len(labels) == 9
        assert labels[-2:] == ["spot 3 (needs 34)", "the Rebels' deck"]
        svg = page.locator("#zone-svg").bounding_box()
        k = svg["width"] / 1280

        def draw(label: str, corners: tuple[tuple[int, int], ...]) -> None:
            page.select_option("#zone-pick", label=label)
            for x, y in corners:
                page.mouse.click(svg["x"] + x * k, svg["y"] + y * k)

        draw("seat 1 (Ana)", ((20, 560), (1260, 560), (1260, 700), (20, 700)))
        draw("informants' row", ((100, 380), (1180, 380), (1180, 480), (100, 480)))
        draw("spot 3 (needs 34)", ((520, 10), (760, 10), (760, 170), (520, 170)))
        page.wait_for_selector("#zone-seen >> text=? in spot 3 (needs 34)", timeout=5000)
        page.click("#host-button")
        page.fill("#pin-input", PIN)
        page.click("#pin-ok")
        page.wait_for_selector("#host-button >> text=✓", timeout=3000)
        page.click("#zone-save")
        for _ in range(50):  # the page says so (its CSP allows no evaluated predicate to wait on)
            if (page.text_content("#toast") or "").startswith("saved"):
                break
            time.sleep(0.1)
        assert table.zones_saved and (page.text_content("#toast") or "").startswith("saved")
        saved = json.loads(zones_file.read_text())
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "phone-zones-solo.png"), full_page=True)
        assert len(saved["seats"]) == 1 and list(saved["places"]) == ["3"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        table.close()


def test_the_light_panel_says_what_each_light_means(tmp_path: Path, page: Any) -> None:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hardware.indicators import Indicators
    from hardware.pins import PinMap

    lights = Indicators(3, PinMap(), MockFactory(pin_class=MockPWMPin), animate=False)
    table = Table(tmp_path, indicators=lights)
    try:
        ref = table.referee
        ref.call(NewGame(GameStarted(("Ana", "Ben", "Cy"), 0)))
        ref.call(ManualEvent(ScoringRevealed(ScoringCard(3))))
        for seat, card in ((1, 10), (2, 30), (0, 20)):
            ref.call(ManualEvent(CardPlayed(seat, card)))
        page.goto(table.url + "/")
        page.wait_for_selector("#leds .led-item", timeout=3000)
        words = page.locator("#leds .led-item").all_text_contents()
        assert any(w.startswith("status: green") for w in words), words
        assert not any("flash_" in w or "steady" in w for w in words), words
        assert any(w.startswith("Cy: ") and ("blue" in w or "white" in w) for w in words), words
    finally:
        table.close()
        lights.close()


def test_history_shows_times_in_the_phones_time_zone(table: Table) -> None:
    from playwright.sync_api import sync_playwright

    game_id = table.referee.call(NewGame(GameStarted(("Ana", "Ben", "Cy"), 0)))
    started = table.store.games()[0].started_at
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        phone = browser.new_context(timezone_id="Asia/Kolkata").new_page()  # UTC+05:30
        phone.goto(table.url + "/history")
        shown = phone.text_content(f"a[href='/games/{game_id}'] >> xpath=ancestor::tr//time")
        browser.close()
    from datetime import datetime, timedelta

    utc = datetime.fromisoformat(started.replace("Z", "+00:00"))
    assert shown == (utc + timedelta(hours=5, minutes=30)).strftime("%Y-%m-%d %H:%M")


def test_an_attacke_contest_on_a_phone(tmp_path: Path, page: Any, attacke_at_the_table: None
                                       ) -> None:
    """A game of Attacke on a 390 px phone: the contest's colour, each total, who passed, the
    chips by colour (with their initials), the lights; live, with no sideways scrolling."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hardware.indicators import Indicators
    from hardware.pins import PinMap

    lights = Indicators(5, PinMap(), MockFactory(pin_class=MockPWMPin), animate=False)
    table = Table(tmp_path, indicators=lights)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        ref = table.referee
        events = list(game_named("attacke").random_game(7, 3))  # see test_web.attacke_events
        ref.call(NewGame(events[0], game="attacke"))
        for event in events[1:39]:   # the ninth contest, green: Ana 3, Ben passed, Cy to play
            ref.call(ManualEvent(event))
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(table.url + "/")
        page.wait_for_selector("#attacke-wrap:not([hidden]) #a-seat-2", timeout=5000)
        assert page.is_hidden("#table-wrap") and page.is_hidden("#after-table")
        assert page.text_content("#a-title") == "Contest 9 · G green"
        assert page.text_content("#where") == "Contest 9 · green · Cy to play"
        assert [page.text_content(f"#a-seat-{s} .a-total") for s in range(3)] == ["3", "0", "0"]
        assert "passed" in page.get_attribute("#a-seat-1", "class")
        assert page.text_content("#a-seat-1 .a-state") == "passed"
        assert "to play" in page.text_content("#a-seat-2")
        assert page.locator("#a-seat-0 .badge.lead").count() == 1   # Ana leads with 3
        assert page.locator("#a-seat-0 .chip").all_text_contents() == ["G", "P"]
        assert page.get_attribute("#a-seat-0 .chip.c-purple", "title") == "purple"
        assert "laid 3" in page.text_content("#a-seat-0 .a-cards")
        assert "Draw pile:" in page.text_content("#a-piles")
        page.wait_for_selector("#a-contests tbody tr >> nth=7", timeout=3000)
        assert page.locator("#a-contests tbody tr").count() == 8
        assert "Cy −P" in page.text_content("#a-contests tbody tr >> nth=6")
        assert "Contest 8 (green): Ana won" in page.text_content("#a-last")
        words = page.locator("#a-leds .led-item").all_text_contents()
        # Ana won contest 8 moments ago: her light still blinks for it, then says she leads
        assert words[0] in ("Ana: white long blinks: won the contest",
                            "Ana: white: leads the contest"), words
        assert words[1:3] == ["Ben: dark: passed", "Cy: white breathing: to play"], words

        page.evaluate("window.__sameDocument = true")
        ref.call(ManualEvent(events[39]))   # Cy lays a green 7: he leads, Ana to play
        page.wait_for_selector("#a-seat-2 .badge.lead", timeout=1000)
        assert page.text_content("#a-seat-2 .a-total") == "7"
        assert page.evaluate("window.__sameDocument") is True
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "phone-attacke.png"), full_page=True)
        for name, url in (("table", "/"), ("scores", "/scoresheet"), ("contests", "/tricks"),
                          ("history", "/history")):
            page.goto(table.url + url)
            if name == "table":
                page.wait_for_selector("#a-seat-2", timeout=3000)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
            for link in page.locator("header nav a").all():
                box = link.bounding_box()
                assert box is not None and box["x"] + box["width"] <= 390, name
        assert errors == []
    finally:
        table.close()
        lights.close()


def test_six_attacke_players_fit_a_phone(tmp_path: Path, page: Any, attacke_at_the_table: None
                                         ) -> None:

    table = Table(tmp_path)
    try:
        events = list(game_named("attacke").random_game(2, 6))
        table.referee.call(NewGame(events[0], game="attacke"))
        for event in events[1:60]:
            table.referee.call(ManualEvent(event))
        page.set_viewport_size({"width": 390, "height": 844})
        for name, url in (("table", "/"), ("scores", "/scoresheet"), ("contests", "/tricks")):
            page.goto(table.url + url)
            if name == "table":
                page.wait_for_selector("#a-seat-5", timeout=3000)
                page.wait_for_selector("#a-contests", timeout=3000)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
            page.screenshot(path=str(ARTIFACTS / f"phone-attacke6-{name}.png"), full_page=True)
    finally:
        table.close()


def test_a_game_of_attacke_starts_on_the_setup_page_and_is_played_by_hand(
        tmp_path: Path, page: Any) -> None:
    """On a phone: the host starts a game of Attacke on the Setup page; the player at turn says
    "pass" with the table page's button (the camera sees a pass only when cards leave), and the
    next one's laying is entered by hand, face-down cards and all."""
    from companion.games.attacke.rules import Card, CardsPlayed, Colour

    table = Table(tmp_path, pin=False)
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(table.url + "/setup")
        page.fill("#set-pin input[name=pin]", PIN)
        page.click("#set-pin button")
        page.wait_for_selector("#host-state >> text=logged in as host", timeout=3000)
        page.click("#attacke-setup summary")
        names = page.locator("#new-attacke input[name=player]")
        for i, name in enumerate(["Ana", "Ben", "Cy"]):
            names.nth(i).fill(name)
        page.select_option("#new-attacke select[name=first_player]", "1")
        page.check("#new-attacke input[name=concealed]")
        page.click("#new-attacke button[type=submit]")
        page.wait_for_selector("#attacke-wrap:not([hidden]) #a-seat-2", timeout=5000)
        game = table.referee.game
        assert game.players == ("Ana", "Ben", "Cy") and game.setup.first_player == 1
        assert game.setup.variant.concealed and table.referee.spec.name == "attacke"
        page.click("#a-manual summary")
        assert page.text_content("#a-pass") == "Ben passes"  # the opener, with no knight
        page.click("#a-pass")
        page.wait_for_selector("#a-pass >> text=Cy passes", timeout=3000)
        assert [type(e).__name__ for e in table.store.events(table.referee.game_id)[1:]] == [
            "Passed"]
        assert page.text_content("#a-lay-head") == "Cy lays"
        page.click("#a-lay-cards button[data-card='red-3']")
        page.click("#a-lay-cards button[data-card='shield-7']")
        page.click("#a-lay-clear")
        page.click("#a-lay-cards button[data-card='red-3']")
        assert page.text_content("#a-lay-chosen") == "Laying: red 3"
        page.fill("#a-lay-down", "2")
        page.click("#a-lay")
        page.wait_for_selector("#a-lay-head >> text=Ana lays", timeout=3000)
        assert table.store.events(table.referee.game_id)[-1] == CardsPlayed(
            2, (Card(3, Colour.RED),), 2)
        assert page.text_content("#a-lay-chosen") == "Tap the cards laid, in any order."
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        table.close()


def test_a_solo_game_on_a_phone(tmp_path: Path, page: Any) -> None:
    """The solo game on a 390 px phone: the pyramid (won, open, not open yet, each need), the
    last mission with its double agents, the cards laid out with their running total and the
    chance at each open spot, the odds, the decks, every mission and the two lights; live,
    with no sideways scrolling."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from companion.games.solo.cards import cards_of
    from companion.games.solo.views import snapshot
    from hardware.indicators import Indicators
    from hardware.pins import PinMap

    lights = Indicators(5, PinMap(), MockFactory(pin_class=MockPWMPin), animate=False)
    table = Table(tmp_path, indicators=lights)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        ref = table.referee
        events = list(game_named("solo").random_game(0))  # see test_web.solo_events
        ref.call(NewGame(events[0], game="solo"))
        for event in events[1:15]:   # 1a and 1b won, the mission at 1c failed a moment ago
            ref.call(ManualEvent(event))
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(table.url + "/")
        page.wait_for_selector("#solo-wrap:not([hidden]) #s-spot-3", timeout=5000)
        assert page.is_hidden("#table-wrap") and page.is_hidden("#attacke-wrap")
        draw = ref.game.rebels.draw
        assert page.text_content("#where") == f"Mission 4 · 2 of 6 spots won · Rebels' deck {draw}"
        spots = {s: page.text_content(f"#s-spot-{s}") for s in ("1a", "1c", "2a", "2b", "3")}
        assert spots == {"1a": "1a ✓needs 18won", "1c": "1cneeds 18open",
                         "2a": "2aneeds 26open", "2b": "2bneeds 26not open yet",
                         "3": "3needs 34not open yet"}
        top, bottom = page.locator("#s-spot-3").bounding_box(), page.locator(
            "#s-spot-1b").bounding_box()
        assert top and bottom and top["y"] < bottom["y"]  # the Big Hit on top, as on the board
        assert page.text_content("#s-last-head") == (
            "Last mission (3) at 1c: 13 of 18, failed ✗")
        assert page.locator("#s-last-cards .pcard.agent").all_text_contents() == ["9S", "9D"]
        assert "double agent 9S counts 0" in page.text_content("#s-last-words")
        assert page.locator("#s-odds-list li").count() == 10
        assert page.locator("#s-missions tbody tr[data-mission]").count() == 3
        assert page.text_content("#s-informants") == "5 informants waiting, 5 hidden."
        assert page.text_content("#s-rebels").endswith("18 discarded · 2 on the pyramid")
        words = page.locator("#s-leds .led-item").all_text_contents()
        assert words[0] in ("Ana: red triple blinks, the mission failed",
                            "Ana: white breathing, your move"), words
        assert words[1:] == ["informants: white blinks, one for each of the 5 informants "
                             "waiting", "status: green: watching"], words

        page.evaluate("window.__sameDocument = true")
        laid = cards_of(["10S", "9H", "KD"])  # laid out, not committed: the odds before it
        ref.hub.publish({**ref.view(), "state": snapshot(ref.game, laid)})
        page.wait_for_selector("#s-total:not([hidden])", timeout=1000)
        assert page.text_content("#s-total") == "Running total 29"
        assert page.locator("#s-laid .pcard").all_text_contents() == ["10S", "9H", "KD"]
        chances = snapshot(ref.game, laid)["chances"]
        shown = page.locator("#s-chances li").all_text_contents()
        assert shown == [f"at 1c (needs 18): {round(100 * chances['1c'])} % chance to succeed",
                         f"at 2a (needs 26): {round(100 * chances['2a'])} % chance to succeed"]
        assert f"{round(100 * chances['2a'])} % chance" in page.text_content("#s-spot-2a")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "phone-solo.png"), full_page=True)

        ref.call(ManualEvent(events[15]))   # a jack turns the informant 6S
        page.wait_for_selector("#s-informants >> text=turned by a jack: 6S", timeout=1000)
        assert page.locator("#s-chances li").count() == 0  # the view of the table again
        assert page.text_content("#s-odds-list li[data-rank='6']") == "6 100 %"
        assert page.evaluate("window.__sameDocument") is True
        for name, url in (("table", "/"), ("scores", "/scoresheet"), ("missions", "/tricks"),
                          ("history", "/history"), ("setup", "/setup")):
            page.goto(table.url + url)
            if name == "table":
                page.wait_for_selector("#s-spot-3", timeout=3000)
            else:
                page.screenshot(path=str(ARTIFACTS / f"phone-solo-{name}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
        assert errors == []
    finally:
        table.close()
        lights.close()


def test_a_solo_game_starts_on_the_setup_page(tmp_path: Path, page: Any) -> None:
    table = Table(tmp_path)
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(table.url + "/setup")
        page.click("#solo-setup summary")
        page.fill("#new-solo input[name=player]", "Ana")
        page.check("#new-solo input[name=match_suit]")
        page.click("#new-solo button[type=submit]")
        page.fill("#pin-input", PIN)   # the host PIN, asked for by the write
        page.click("#pin-ok")
        page.wait_for_selector("#solo-wrap:not([hidden]) #s-spot-3", timeout=5000)
        game = table.referee.game
        assert game.players == ("Ana",) and game.setup.variant.match_suit
        assert not game.setup.variant.joker_wild and table.referee.spec.name == "solo"
        assert page.text_content("#where") == "Mission 1 · 0 of 6 spots won · Rebels' deck 51"
        assert page.text_content("#s-informants") == "3 informants waiting, 3 hidden."
        # a double agent matches rank and suit: the odds are the card's, ranks x suits
        assert page.locator("#s-odds-table thead th").all_text_contents() == [
            "Rank", "S", "H", "D", "C"]
        assert page.locator("#s-odds-table tbody tr").count() == 10
        assert page.text_content("#s-odds-table tbody tr >> nth=6") == "7" + "8 %" * 4  # 3/40
        assert page.locator("#s-spot-1a").get_attribute("role") == "listitem"
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(ARTIFACTS / "phone-solo-start.png"), full_page=True)
    finally:
        table.close()
