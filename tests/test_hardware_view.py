"""What the lights say: snapshot -> LedView, blink patterns and the brightness curve."""

import pytest

from hardware.view import (
    FLASH_S,
    PATTERNS,
    TURN_LEVEL,
    Light,
    SnapshotError,
    balance_level,
    status_light,
    view_from_snapshot,
)


def snap(balances, to_play=(), last=None, game_over=False, winners=()):
    return {"balances": list(balances), "to_play": list(to_play), "last_trick": last,
            "game_over": game_over, "winners": list(winners)}


def on_windows(pattern: str, seconds: float = 1.0, step: float = 0.001) -> int:
    """Number of separate 'on' stretches in the first `seconds` of a pattern."""
    p = PATTERNS[pattern]
    values = [p.envelope(i * step) > 0.5 for i in range(int(seconds / step))]
    return sum(1 for a, b in zip([False, *values], values, strict=False) if b and not a)


def test_brightness_curve_visible_at_one_stick_saturating_at_twelve():
    levels = [balance_level(n) for n in range(0, 16)]
    assert levels[0] == 0.0
    assert 0.08 <= levels[1] <= 0.12
    assert all(a < b for a, b in zip(levels[1:12], levels[2:13], strict=True))
    assert levels[12:] == [1.0] * 4
    assert balance_level(-7) == balance_level(7)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_balance_colours_and_darkness_when_balanced(n):
    balances = [4, -2, 0, 13, -1][:n]
    view = view_from_snapshot(snap(balances), "watching", 50.0, None)
    assert [s.main.colour for s in view.seats] == ["blue", "red", "off", "blue", "red"][:n]
    for seat, b in zip(view.seats, balances, strict=True):
        assert seat.main.level == balance_level(b) and seat.main.pattern == "steady"
        assert seat.flash is None and seat.balance == b
    assert view.seats[2].main.output(50.0) == (0.0, 0.0, 0.0)


def test_turn_seat_pulses_white_even_when_out_of_balance():
    view = view_from_snapshot(snap([3, -3, 0], to_play=[1]), "watching", 7.0, None)
    turn = view.seats[1]
    assert (turn.role, turn.main.colour, turn.main.pattern) == ("turn", "white", "pulse")
    assert turn.main.output(0.0) == (0.0, 0.0, 0.0)                    # trough
    assert turn.main.output(1.0) == pytest.approx((TURN_LEVEL,) * 3)   # crest at period/2
    mid = turn.main.output(0.5)[0]
    assert 0 < mid < TURN_LEVEL / 2   # gamma: half the breath looks half as bright
    # simultaneous variant: every seat still to play pulses
    both = view_from_snapshot(snap([0, 0, 0, 0], to_play=[0, 2]), "watching", 0, None)
    assert [s.role for s in both.seats] == ["turn", "off", "turn", "off"]


def test_trick_flash_high_blue_low_red_for_three_seconds():
    last = {"high": 2, "low": 0, "blue": 5, "red": 5}
    s = snap([-5, 0, 5, 0], to_play=[2], last=last)
    view = view_from_snapshot(s, "watching", 10.5, 10.0)
    high, low = view.seats[2], view.seats[0]
    assert (high.flash.colour, high.flash.pattern) == ("blue", "flash_high")
    assert high.flash_role == "high"
    assert (low.flash.colour, low.flash.pattern, low.flash_role) == ("red", "flash_low", "low")
    assert high.flash.until == low.flash.until == 10.0 + FLASH_S
    assert high.active(12.99) is high.flash and high.active(13.0) is high.main   # then: turn pulse
    assert low.active(13.0).colour == "red" and low.active(13.0).pattern == "steady"
    assert view.seats[1].flash is None
    # asked again after the 3 s, nothing flashes any more
    late = view_from_snapshot(s, "watching", 13.0, 10.0)
    assert all(seat.flash is None for seat in late.seats)
    assert all(seat.flash is None for seat in view_from_snapshot(s, "watching", 10.5, None).seats)


def test_covered_colour_does_not_flash():
    last = {"high": 1, "low": 2, "blue": 0, "red": 4}   # blue 0: the highest card got nothing
    view = view_from_snapshot(snap([0, 0, -4], last=last), "watching", 1.0, 0.5)
    assert view.seats[1].flash is None and view.seats[2].flash.colour == "red"


def test_blue_and_red_flashes_differ_by_pattern_not_only_colour():
    assert on_windows("flash_high") == 1 and on_windows("flash_low") == 3
    assert on_windows("flash_high", FLASH_S) == 3 and on_windows("flash_low", FLASH_S) == 9
    long_on = sum(PATTERNS["flash_high"].envelope(i / 1000) for i in range(1000)) / 1000
    short_on = sum(PATTERNS["flash_low"].envelope(i / 1000) for i in range(1000)) / 1000
    assert long_on == pytest.approx(0.6, abs=0.01) and short_on == pytest.approx(0.36, abs=0.01)


def test_game_over_lights_the_winners_only():
    s = snap([3, 0, -2], to_play=[0], game_over=True, winners=[1])
    view = view_from_snapshot(s, "idle", 0.0, None)
    assert [s.role for s in view.seats] == ["off", "winner", "off"]
    assert view.seats[1].main.output(0.0) == (TURN_LEVEL,) * 3


@pytest.mark.parametrize("status, colour, pattern", [
    ("watching", "green", "steady"), ("attention", "amber", "blink"),
    ("camera_lost", "red", "double_blink"), ("idle", "green", "steady"),
])
def test_status_lights(status, colour, pattern):
    light = status_light(status)
    assert (light.colour, light.pattern) == (colour, pattern)
    assert view_from_snapshot(snap([0, 0, 0]), status, 0, None).status == light


def test_status_patterns_blink_as_documented():
    assert on_windows("blink") == 1 and on_windows("double_blink", 1.2) == 2
    assert Light("amber", 1.0, "blink").output(0.25) == (1.0, 0.3, 0.0)
    assert Light("amber", 1.0, "blink").output(0.75) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("snapshot, status, message", [
    ({"balances": [0, 0, 0]}, "sleeping", "status 'sleeping' is not one of"),
    ({}, "watching", "balances: expected a list"),
    ({"balances": [0, "1", 0]}, "watching", r"balances\[1\]: '1' is not an integer"),
    ({"balances": [0, True, 0]}, "watching", "True is not an integer"),
    ({"balances": [0, 0, 0], "to_play": [3]}, "watching", r"to_play\[0\]: seat 3 is outside"),
    ({"balances": [0, 0, 0], "to_play": 1}, "watching", "to_play: expected a list"),
    ({"balances": [0, 0, 0], "last_trick": {"high": 0}}, "watching", "last_trick.low"),
    ({"balances": [0, 0, 0], "last_trick": []}, "watching", "last_trick: expected an object"),
    ([0, 0, 0], "watching", "snapshot: expected an object"),
])
def test_malformed_input_is_a_typed_one_line_error(snapshot, status, message):
    with pytest.raises(SnapshotError, match=message) as info:
        view_from_snapshot(snapshot, status, 1.0, 0.5)
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)


# -- Attacke ------------------------------------------------------------------------------------


def attacke_snapshots():
    """A contest of Attacke, event by event: Ana opens red, Ben leads, Cy passes, Ana passes:
    Ben wins it and opens the next. Each item: (snapshot, the contest it ended or None)."""
    from companion.games.attacke.rules import Card, CardsPlayed, Colour, Game, GameStarted, Passed
    from companion.games.attacke.views import snapshot

    game = Game(GameStarted(("Ana", "Ben", "Cy")))
    out = [(snapshot(game), None)]
    for event in (CardsPlayed(0, (Card(3, Colour.RED),)), CardsPlayed(1, (Card(5, Colour.RED),)),
                  Passed(2), Passed(0)):
        ended = game.apply(event)
        out.append((snapshot(game), ended))
    return out


def test_attacke_turn_breathes_leader_glows_passed_is_dark():
    from hardware.view import IN_LEVEL

    (opening, _), (opened, _), (raised, _), (passed, _), (won, ended) = attacke_snapshots()
    view = view_from_snapshot(opening, "watching", 0.0, None)   # Ana opens: nobody leads yet
    assert [s.role for s in view.seats] == ["turn", "in", "in"]
    assert view.seats[1].main == Light("white", IN_LEVEL)
    view = view_from_snapshot(opened, "watching", 0.0, None)    # Ana 3 leads, Ben to play
    assert [s.role for s in view.seats] == ["leader", "turn", "in"]
    assert view.seats[0].main == Light("white", TURN_LEVEL)
    assert (view.seats[1].main.colour, view.seats[1].main.pattern) == ("white", "pulse")
    view = view_from_snapshot(raised, "watching", 0.0, None)    # Ben 5 leads, Cy to play
    assert [s.role for s in view.seats] == ["in", "leader", "turn"]
    view = view_from_snapshot(passed, "watching", 0.0, None)    # Cy passed: dark; Ana to play
    assert [s.role for s in view.seats] == ["turn", "leader", "passed"]
    assert view.seats[2].main.output(0.0) == (0.0, 0.0, 0.0)
    assert all(s.flash is None and s.balance == 0 for s in view.seats)
    assert ended is not None and ended.winner == 1


def test_attacke_contest_winner_blinks_then_opens():
    *_, (won, ended) = attacke_snapshots()
    assert won["last_contest"]["winner"] == 1 and won["turn"] == 1
    view = view_from_snapshot(won, "watching", 10.1, 10.0)
    ben = view.seats[1]
    assert (ben.role, ben.flash_role) == ("turn", "won")   # he opens the next contest
    assert ben.active(10.1).pattern == "flash_high"
    assert ben.active(10.1).output(10.1) == (1.0, 1.0, 1.0)   # slow long blinks: on...
    assert ben.active(10.7).output(10.7) == (0.0, 0.0, 0.0)   # ...off after 0.6 s
    assert ben.active(13.0) is ben.main                      # 3 s later: his turn again
    assert [s.flash for s in view.seats if s.seat != 1] == [None, None]
    later = view_from_snapshot(won, "watching", 13.5, 10.0)  # no flash once it is over
    assert later.seats[1].flash is None
    assert view_from_snapshot(won, "watching", 10.1, None).seats[1].flash is None


def test_attacke_game_over_lights_the_winners_only():
    from companion.games import game_named

    spec = game_named("attacke")
    events = spec.random_game(3, 4)
    s = spec.snapshot(spec.log(events).game)
    assert s["game_over"]
    view = view_from_snapshot(s, "watching", 0.0, None)
    assert [seat.role == "winner" for seat in view.seats] == [
        seat in s["winners"] for seat in range(4)]
    assert all(seat.role == "off" for seat in view.seats if seat.seat not in s["winners"])


@pytest.mark.parametrize("bad, message", [
    ({"players": []}, "players"),
    ({"players": ["A", "B"], "turn": 2}, "turn: seat 2"),
    ({"players": ["A", "B"], "turn": 0, "contest": {"passed": [5]}}, r"passed\[0\]"),
    ({"players": ["A", "B"], "turn": 0, "contest": "red"}, "contest"),
])
def test_attacke_bad_snapshots_are_refused_in_one_line(bad, message):
    with pytest.raises(SnapshotError, match=message):
        view_from_snapshot({"game": "attacke", **bad}, "watching", 0.0, None)


def solo_snapshot(events_after: int | None = None) -> dict:
    """The snapshot of the solo game of seed 1 after its first mission (or at the end)."""
    from companion.games import game_named
    from companion.games.solo.rules import MissionPlayed

    spec = game_named("solo")
    events = list(spec.random_game(1))
    first = next(i for i, e in enumerate(events) if isinstance(e, MissionPlayed))
    upto = events_after if events_after is not None else first + 1
    return spec.snapshot(spec.log(events[:upto]).game)


def test_solo_light_breathes_blinks_for_a_mission_and_tells_the_end():
    mid = solo_snapshot()
    success = mid["last_mission"]["success"]
    view = view_from_snapshot(mid, "watching", 10.1, 10.0)
    (ana,) = view.seats
    assert (ana.role, ana.main.pattern) == ("turn", "pulse")
    assert ana.flash_role == ("won" if success else "lost")
    assert ana.active(10.1).pattern == ("flash_high" if success else "flash_low")
    assert ana.active(13.5) is ana.main and view_from_snapshot(mid, "watching", 10.1,
                                                                None).seats[0].flash is None
    end = solo_snapshot(10**6)
    (ana,) = view_from_snapshot(end, "watching", 0.0, None).seats
    assert ana.role == ("winner" if end["result"] == "won" else "off")
