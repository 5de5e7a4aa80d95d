"""Indicators and Buttons on gpiozero's mock PWM pins: pin values for every state, 3-5 seats."""

import json
import queue
import threading
import time

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.buttons import ButtonPress, Buttons
from hardware.indicators import Indicators
from hardware.pins import HardwareError, PinMap
from hardware.view import TURN_LEVEL, balance_level, view_from_snapshot

PM = PinMap()


@pytest.fixture
def factory():
    """A fresh mock factory; after the test every pin must be released and back to input."""
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    held = [info.name for info, refs in f._reservations.items() if refs]
    assert not held, f"pins still reserved: {held}"
    assert all(pin.function == "input" for pin in f.pins.values())
    f.reset()


def snap(balances, to_play=(), last=None, game_over=False, winners=()):
    return {"balances": list(balances), "to_play": list(to_play), "last_trick": last,
            "game_over": game_over, "winners": list(winners)}


def seat_states(f, ind: Indicators, seat: int) -> list[float]:
    return [float(f.pin(p).state) for p in ind.pin_map.seat_pins(seat, ind.mode)]


def status_states(f, pm: PinMap = PM) -> list[float]:
    return [float(f.pin(p).state) for p in pm.status]


def expect(mode: str, r: float, g: float, b: float) -> list[float]:
    """Expected pin duties: [r, g, b] for an RGB LED, [r, b] for a red + blue LED pair."""
    return pytest.approx([r, g, b] if mode == "rgb" else [r, b], abs=0.001)


MODES = [(n, mode) for n in (3, 4, 5) for mode in ("rgb", "pair")]


@pytest.mark.parametrize("n, mode", MODES)
def test_balances_set_colour_and_pwm_level(factory, n, mode):
    balances = [5, -3, 0, 12, -20][:n]
    with Indicators(n, PM, factory, mode, animate=False) as ind:
        ind.show(view_from_snapshot(snap(balances), "watching", 1.0, None))
        for seat, bal in enumerate(balances):
            level = balance_level(bal)
            want = (0, 0, level) if bal > 0 else (level, 0, 0)
            assert seat_states(factory, ind, seat) == expect(mode, *want)
        assert seat_states(factory, ind, 2) == expect(mode, 0, 0, 0)   # balanced: dark
        assert status_states(factory) == [0.0, 1.0, 0.0]               # watching: green
        if mode == "rgb":   # every seat LED really runs software PWM
            assert all(factory.pin(p).frequency == 100 for p in PM.seat_pins(0))


@pytest.mark.parametrize("n, mode", MODES)
def test_turn_seat_pulses_white(factory, n, mode):
    turn = n - 1
    with Indicators(n, PM, factory, mode, animate=False) as ind:
        ind.show(view_from_snapshot(snap([2] * n, to_play=[turn]), "watching", 20.0, None))
        assert seat_states(factory, ind, turn) == expect(mode, 0, 0, 0)    # trough at t=20
        ind.tick(21.0)                                                   # crest, period 2 s
        assert seat_states(factory, ind, turn) == expect(mode, *(TURN_LEVEL,) * 3)
        ind.tick(21.5)
        mid = seat_states(factory, ind, turn)[0]
        assert 0 < mid < TURN_LEVEL and len(set(seat_states(factory, ind, turn))) == 1
        assert seat_states(factory, ind, 0) == expect(mode, 0, 0, balance_level(2))


@pytest.mark.parametrize("n, mode", MODES)
def test_trick_flash_patterns_then_back_to_balance(factory, n, mode):
    high, low = 0, n - 1
    last = {"high": high, "low": low, "blue": 3, "red": 3}
    balances = [3] + [0] * (n - 2) + [-3]
    with Indicators(n, PM, factory, mode, animate=False) as ind:
        ind.show(view_from_snapshot(snap(balances, [high], last), "watching", 100.05, 100.0))
        # t = phase after the trick: blue = 0.6 s on / 0.4 s off; red = 3 x 0.12 s per second
        for t, blue_on, red_on in [(0.05, 1, 1), (0.18, 1, 0), (0.3, 1, 1), (0.42, 1, 0),
                                   (0.55, 1, 1), (0.65, 0, 0), (0.9, 0, 0), (1.05, 1, 1),
                                   (2.95, 0, 0)]:
            ind.tick(100.0 + t)
            assert seat_states(factory, ind, high) == expect(mode, 0, 0, blue_on), t
            assert seat_states(factory, ind, low) == expect(mode, red_on, 0, 0), t
            for other in range(1, n - 1):
                assert seat_states(factory, ind, other) == expect(mode, 0, 0, 0)
        ind.tick(103.0)   # flash over: the leader pulses (crest now), the low seat shows red
        assert seat_states(factory, ind, high) == expect(mode, *(TURN_LEVEL,) * 3)
        assert seat_states(factory, ind, low) == expect(mode, balance_level(-3), 0, 0)
        ind.tick(104.0)
        assert seat_states(factory, ind, high) == expect(mode, 0, 0, 0)


@pytest.mark.parametrize("status, samples", [
    ("watching", [(0.1, [0, 1, 0]), (0.7, [0, 1, 0])]),
    ("attention", [(0.1, [1, 0.3, 0]), (0.6, [0, 0, 0]), (1.2, [1, 0.3, 0])]),
    ("camera_lost", [(0.1, [1, 0, 0]), (0.2, [0, 0, 0]), (0.35, [1, 0, 0]), (0.8, [0, 0, 0])]),
    ("idle", [(0.1, [0, 0.08, 0])]),
])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_status_led(factory, n, status, samples):
    with Indicators(n, PM, factory, animate=False) as ind:
        ind.show(view_from_snapshot(snap([0] * n), status, 0.0, None))
        for t, want in samples:
            ind.tick(t)
            assert status_states(factory) == pytest.approx(want), (status, t)


def test_common_anode_inverts_every_pin(factory):
    pm = PinMap(active_high=False)
    with Indicators(3, pm, factory, animate=False) as ind:
        ind.show(view_from_snapshot(snap([12, -1, 0]), "watching", 0.0, None))
        assert seat_states(factory, ind, 0) == pytest.approx([1, 1, 0])
        assert seat_states(factory, ind, 1) == pytest.approx([1 - balance_level(1), 1, 1])
        assert seat_states(factory, ind, 2) == pytest.approx([1, 1, 1])   # off = pins high
        assert status_states(factory, pm) == [1.0, 0.0, 1.0]


def test_panel_is_json_and_matches_the_pins(factory):
    published = []
    last = {"high": 1, "low": 0, "blue": 2, "red": 2}
    with Indicators(4, PM, factory, animate=False, on_change=published.append) as ind:
        before = ind.panel()
        assert before["status"]["state"] is None and before["seats"][0]["colour"] == "off"
        ind.show(view_from_snapshot(snap([-2, 2, 0, 7], [1], last), "attention", 5.1, 5.0))
        panel = json.loads(json.dumps(ind.panel()))
        assert published[-1] == ind.panel()
        low, high, quiet, blue = panel["seats"]
        assert (high["role"], high["colour"], high["pattern"]) == ("high", "blue", "flash_high")
        assert high["remaining_s"] == pytest.approx(2.9) and high["phase_s"] == pytest.approx(0.1)
        assert (low["role"], low["colour"], low["pattern"]) == ("low", "red", "flash_low")
        assert quiet["role"] == "off" and quiet["value"] == [0, 0, 0]
        assert blue["value"] == pytest.approx([0, 0, balance_level(7)])
        assert blue["value"] == seat_states(factory, ind, 3)
        assert panel["status"]["state"] == "attention" and panel["status"]["pattern"] == "blink"
        assert panel["patterns"]["flash_low"]["on"][2] == [0.48, 0.6]
        n_published = len(published)
        ind.tick(6.0)                    # same lights on show: nothing new to publish
        assert len(published) == n_published
        ind.tick(8.0)                    # flash over: the panel is published again
        assert len(published) == n_published + 1
        assert [s["role"] for s in published[-1]["seats"]] == ["balance", "turn", "off", "balance"]


def test_pair_mode_panel_values_are_red_and_blue(factory):
    with Indicators(3, PM, factory, "pair", animate=False) as ind:
        ind.show(view_from_snapshot(snap([12, -12, 0]), "watching", 0.0, None))
        assert [s["value"] for s in ind.panel()["seats"]] == [[0, 1], [1, 0], [0, 0]]
        assert ind.panel()["mode"] == "pair"
        # pair mode leaves each seat's green pin free
        assert not factory._reservations.get(factory.pin(PM.seats[0][1]).info)


def test_animation_thread_blinks_and_ends_a_flash_by_itself(factory):
    published: list[dict] = []
    got = threading.Event()

    def on_change(panel: dict) -> None:
        published.append(panel)
        if panel["seats"][0]["role"] == "balance":
            got.set()

    last = {"high": 0, "low": 1, "blue": 1, "red": 1}
    with Indicators(3, PM, factory, tick_hz=100, on_change=on_change) as ind:
        now = time.monotonic()
        ind.show(view_from_snapshot(snap([1, -1, 0], [2], last), "watching", now, now - 2.8))
        assert got.wait(2.0), "the flash never ended"
        assert seat_states(factory, ind, 0) == pytest.approx([0, 0, balance_level(1)])
        pulse_pin = factory.pin(PM.seats[2][0])
        time.sleep(0.2)
        assert len(pulse_pin.states) > 5      # the pulse keeps being redrawn
        thread = ind._thread
    assert thread is not None and not thread.is_alive()


def test_errors_are_typed_and_release_pins(factory):
    blocker = LED(PM.status[2], pin_factory=factory)     # someone holds the status blue pin
    try:
        with pytest.raises(HardwareError, match="cannot open the status LED on GPIO10/GPIO9"):
            Indicators(5, PM, factory, animate=False)
        # the five seat LEDs opened before the failure were closed again
        assert LED(PM.seats[0][0], pin_factory=factory).close() is None
    finally:
        blocker.close()
    with pytest.raises(HardwareError, match="6 seats, but the pin map wires 5"):
        Indicators(6, PM, factory, animate=False)
    with pytest.raises(HardwareError, match="mode 'rgbw'"):
        Indicators(3, PM, factory, "rgbw", animate=False)
    with pytest.raises(HardwareError, match="tick_hz 0 is outside"):
        Indicators(3, PM, factory, tick_hz=0)
    ind = Indicators(3, PM, factory, animate=False)
    with pytest.raises(HardwareError, match="the game has 4 seats, LEDs are wired for 3"):
        ind.show(view_from_snapshot(snap([0] * 4), "watching", 0, None))
    ind.close()
    ind.close()   # idempotent
    with pytest.raises(HardwareError, match="already closed"):
        ind.show(view_from_snapshot(snap([0] * 3), "watching", 0, None))


def test_fewer_players_than_wired_seats_and_no_game(factory):
    clock = FakeClock()
    with Indicators(5, PM, factory, animate=False, clock=clock) as ind:
        devices = [*ind._seats, ind._status]
        ind.update(snap([12, 12, 12, 12, 12]), "watching")
        view = ind.update(snap([-12, 0, 12]), "attention", trick_scored_at=None)
        assert view.now == clock.t and len(view.seats) == 3
        assert [seat_states(factory, ind, s) for s in range(5)] == [
            [1, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
        assert [s["role"] for s in ind.panel()["seats"]] == ["balance", "off", "balance",
                                                              "off", "off"]
        ind.update(None, "camera_lost", now=0.1)       # no game: seats dark, status red
        assert all(seat_states(factory, ind, s) == [0, 0, 0] for s in range(5))
        assert status_states(factory) == [1.0, 0.0, 0.0]
    assert all(d.closed for d in devices)              # close() closed every device itself


# -- buttons ---------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_ok_press_lands_on_the_queue_debounced(factory):
    q: queue.Queue = queue.Queue()
    clock = FakeClock()
    ok = factory.pin(PM.ok)
    with Buttons(q.put, PM, factory, hold_s=0.1, bounce_s=0.05, clock=clock):
        for dt, drive in [(0, ok.drive_low), (0.002, ok.drive_high), (0.004, ok.drive_low),
                          (0.3, ok.drive_high), (0.31, ok.drive_low), (0.312, ok.drive_high)]:
            clock.t = 1000.0 + dt   # a bouncy press, then release bounce: one press
            drive()
        assert list(q.queue) == [ButtonPress("ok")]
        clock.t = 1000.5            # a real second press after a quiet spell
        ok.drive_low()
        ok.drive_high()
        assert list(q.queue) == [ButtonPress("ok")] * 2


def test_undo_needs_a_hold(factory):
    q: queue.Queue = queue.Queue()
    undo = factory.pin(PM.undo)
    with Buttons(q.put, PM, factory, hold_s=0.3):
        undo.drive_low()            # a short press: nothing
        time.sleep(0.03)
        undo.drive_high()
        time.sleep(0.3)
        assert q.empty()
        start = time.monotonic()
        undo.drive_low()            # a hold: exactly one undo, however long it lasts
        assert q.get(timeout=2.0) == ButtonPress("undo")
        assert time.monotonic() - start >= 0.29
        time.sleep(0.4)
        undo.drive_high()
        assert q.empty()


def test_buttons_only_enqueue_and_share_the_factory_with_the_leds(factory):
    calls: list[tuple[object, str]] = []
    with (Indicators(5, PM, factory, animate=False) as ind,
          Buttons(lambda m: calls.append((m, threading.current_thread().name)), PM, factory,
                  hold_s=0.1)):
        ind.show(view_from_snapshot(snap([1, 2, 3, 4, 5]), "watching", 0.0, None))
        factory.pin(PM.ok).drive_low()
        factory.pin(PM.ok).drive_high()
        factory.pin(PM.undo).drive_low()
        deadline = time.monotonic() + 2.0
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        factory.pin(PM.undo).drive_high()
        assert [m for m, _ in calls] == [ButtonPress("ok"), ButtonPress("undo")]
        assert calls[1][1] != threading.current_thread().name   # hold comes from gpiozero's thread
        assert ind.panel()["seats"][4]["value"] == pytest.approx([0, 0, balance_level(5)])


def test_buttons_build_the_referees_own_message(factory):
    class RefereePress:
        def __init__(self, button: str) -> None:
            self.button = button

    got: list[RefereePress] = []
    with Buttons(got.append, PM, factory, make=RefereePress):
        factory.pin(PM.ok).drive_low()
        factory.pin(PM.ok).drive_high()
    assert [type(m) for m in got] == [RefereePress] and got[0].button == "ok"


def test_button_errors(factory):
    with pytest.raises(HardwareError, match="not one of ok, undo"):
        ButtonPress("redo")
    with pytest.raises(HardwareError, match="hold_s must be > 0"):
        Buttons(print, PM, factory, hold_s=0)
    blocker = LED(PM.undo, pin_factory=factory)
    try:
        with pytest.raises(HardwareError, match="cannot open the undo button on GPIO18"):
            Buttons(print, PM, factory)
        LED(PM.ok, pin_factory=factory).close()   # the OK button was released again
    finally:
        blocker.close()


@pytest.mark.parametrize("n, seed", [(3, 1), (4, 2), (5, 3)])
def test_real_snapshots_of_a_game_drive_the_pins(factory, n, seed):
    """The rules core's own snapshots (docs/state-snapshot.md), event by event, on the pins."""
    import random

    from companion.games.tightrope.randgame import random_game
    from companion.games.tightrope.rules import Game
    from companion.games.tightrope.views import snapshot

    events = random_game(random.Random(seed), n=n, rounds=1)
    game = Game(events[0])
    flashes = 0
    with Indicators(5, PM, factory, animate=False) as ind:
        for i, event in enumerate(events[1:]):
            before = game.last_trick
            game.apply(event)
            s = snapshot(game)
            scored_at = float(i) if game.last_trick is not before else None
            t = i + 0.05             # inside the first 'on' window of both flashes
            ind.update(s, "watching", scored_at, now=t)
            for seat, bal in enumerate(s["balances"]):
                got = seat_states(factory, ind, seat)
                last = s["last_trick"]
                if scored_at is not None and seat == last["high"] and last["blue"]:
                    assert got == [0, 0, 1]
                    flashes += 1
                elif scored_at is not None and seat == last["low"] and last["red"]:
                    assert got == [1, 0, 0]
                elif seat in s["to_play"]:
                    assert got[0] == got[1] == got[2]          # white pulse
                else:
                    level = balance_level(bal)
                    assert got == expect("rgb", *((0, 0, level) if bal >= 0 else (level, 0, 0)))
            assert all(seat_states(factory, ind, seat) == [0, 0, 0] for seat in range(n, 5))
    assert flashes >= 8    # nine tricks; the blue 0 can cover (darken) at most one


def test_off_the_pi_leds_and_buttons_default_to_the_shared_mock_pins(monkeypatch):
    from hardware.pins import choose_pin_factory

    monkeypatch.setenv("TIGHTROPE_MOCK_GPIO", "1")
    shared = choose_pin_factory()
    q: queue.Queue = queue.Queue()
    with Indicators(3, animate=False) as ind, Buttons(q.put):
        ind.update(snap([12, 0, 0]), "watching", now=0.0)
        assert seat_states(shared, ind, 0) == [0, 0, 1]
        shared.pin(PM.ok).drive_low()
        shared.pin(PM.ok).drive_high()
        assert q.get_nowait() == ButtonPress("ok")
    used = {shared.pin(p).info for s in range(3) for p in PM.seat_pins(s)}
    used |= {shared.pin(p).info for p in (*PM.status, PM.ok, PM.undo)}
    assert not [info.name for info in used if shared._reservations.get(info)]


# -- Attacke ------------------------------------------------------------------------------------


def _attacke_contest():
    """Ana opens red, Ben leads, Cy passes, Ana passes: Ben wins. (snapshot, ended) per event."""
    from companion.games.attacke.rules import Card, CardsPlayed, Colour, Game, GameStarted, Passed
    from companion.games.attacke.views import snapshot

    game = Game(GameStarted(("Ana", "Ben", "Cy")))
    out = []
    for event in (CardsPlayed(0, (Card(3, Colour.RED),)), CardsPlayed(1, (Card(5, Colour.RED),)),
                  Passed(2), Passed(0)):
        ended = game.apply(event)
        out.append((snapshot(game), ended))
    return out


@pytest.mark.parametrize("mode", ["rgb", "pair"])
def test_attacke_turn_leader_passed_and_the_contest_winner_on_the_pins(factory, mode):
    from hardware.view import IN_LEVEL

    (opened, _), (raised, _), (passed, _), (won, ended) = _attacke_contest()
    white = lambda level: expect(mode, level, level, level)  # noqa: E731
    with Indicators(4, PM, factory, mode, animate=False) as ind:
        ind.update(raised, "watching", None, now=21.0)   # Ben leads, Cy's turn (pulse crest)
        assert seat_states(factory, ind, 1) == white(TURN_LEVEL)   # leader: steady white
        assert seat_states(factory, ind, 2) == white(TURN_LEVEL)   # turn: breathing...
        ind.tick(22.0)
        assert seat_states(factory, ind, 2) == white(0)           # ...trough a second later
        assert seat_states(factory, ind, 1) == white(TURN_LEVEL)
        assert seat_states(factory, ind, 0) == white(IN_LEVEL)    # Ana: still in, dim
        assert seat_states(factory, ind, 3) == white(0)           # no fourth player: dark
        assert [s["role"] for s in ind.panel()["seats"]] == ["in", "leader", "turn", "off"]

        ind.update(passed, "watching", None, now=30.0)   # Cy passed: dark; Ana's turn
        assert seat_states(factory, ind, 2) == white(0)
        assert [s["role"] for s in ind.panel()["seats"]][:3] == ["turn", "leader", "passed"]

        assert ended is not None
        ind.update(won, "watching", 40.0, now=40.05)     # Ben won the contest: he blinks
        for t, on in [(0.05, 1), (0.5, 1), (0.7, 0), (1.1, 1), (2.8, 0)]:
            ind.tick(40.0 + t)
            assert seat_states(factory, ind, 1) == white(on), t
        assert ind.panel()["seats"][1]["role"] == "won"
        ind.tick(43.0)                                   # then he opens the next: breathing
        assert seat_states(factory, ind, 1) == white(TURN_LEVEL)   # crest (a 2 s breath)
        ind.tick(44.0)
        assert seat_states(factory, ind, 1) == white(0)            # trough
        assert [s["role"] for s in ind.panel()["seats"]][:3] == ["in", "turn", "in"]


def test_attacke_six_players_light_the_five_wired_seats(factory):
    from companion.games import game_named

    spec = game_named("attacke")
    events = spec.random_game(1, 6)
    with Indicators(5, PM, factory, animate=False) as ind:
        for i in range(1, 12):
            s = spec.snapshot(spec.log(events[:i]).game)
            view = ind.update(s, "watching", None, now=float(i))
            assert len(view.seats) == 5
            turn = s["turn"]
            roles = [e["role"] for e in ind.panel()["seats"]]
            if turn is not None and turn < 5:
                assert roles[turn] == "turn"
            assert all(r in ("turn", "leader", "in", "passed") for r in roles)


# -- solo Tightrope -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["rgb", "pair"])
def test_solo_mission_outcome_and_informants_waiting_on_the_pins(factory, mode):
    """Seed 0: the first mission (1a) succeeds, the third (1c) fails; the informants' light
    blinks once for each (four after the first win, five after the second)."""
    from companion.games import game_named
    spec = game_named("solo")
    events = spec.random_game(0)
    white = lambda level: expect(mode, level, level, level)  # noqa: E731
    with Indicators(3, PM, factory, mode, animate=False) as ind:
        ind.update(spec.snapshot(spec.log(events[:3]).game), "watching", None, now=11.0)
        assert seat_states(factory, ind, 0) == white(TURN_LEVEL)    # to play: breathing crest
        assert blinks(factory, ind, 3) == 3                         # three informants
        assert [s["role"] for s in ind.panel()["seats"]] == ["turn", "informants", "off"]
        assert ind.panel()["seats"][1]["pattern"] == "count_3"

        won = spec.snapshot(spec.log(events[:4]).game)
        ind.update(won, "watching", 20.0, now=20.05)               # 1a won: blue long blinks
        for t, on in [(0.05, 1), (0.5, 1), (0.7, 0), (1.1, 1), (2.8, 0)]:
            ind.tick(20.0 + t)
            assert seat_states(factory, ind, 0) == expect(mode, 0, 0, on), t
        assert ind.panel()["seats"][0]["role"] == "mission_won"
        assert blinks(factory, ind, 4) == 4                         # one more after a win

        failed = spec.snapshot(spec.log(events[:15]).game)
        ind.update(failed, "watching", 30.0, now=30.05)            # 1c failed: red triple
        for t, on in [(0.05, 1), (0.18, 0), (0.3, 1), (0.42, 0), (0.55, 1), (0.8, 0)]:
            ind.tick(30.0 + t)
            assert seat_states(factory, ind, 0) == expect(mode, on, 0, 0), t
        assert ind.panel()["seats"][0]["role"] == "mission_failed"
        ind.tick(33.0)                                             # then: breathing again
        assert ind.panel()["seats"][0]["role"] == "turn"
        assert seat_states(factory, ind, 2) == white(0)            # the third light: dark
        assert blinks(factory, ind, 5) == 5


def blinks(f, ind: Indicators, count: int) -> int:
    """The blinks of the second seat light in one period of `count` informants' pattern, read
    off its pins every 10 ms (a blink is on 0.2 s, the pause 1.2 s)."""
    from hardware.view import COUNT_PAUSE, COUNT_STEP

    period = count * COUNT_STEP + COUNT_PAUSE
    start = 100 * period  # the pattern runs from clock 0: a period begins here
    lit = []
    for i in range(int(period * 100)):
        ind.tick(start + i / 100)
        lit.append(max(seat_states(f, ind, 1)) > 0)
    return sum(1 for a, b in zip([False, *lit], lit, strict=False) if b and not a)
