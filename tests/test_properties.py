"""Invariants of random legal games (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.tightrope.events import Undo
from companion.games.tightrope.log import GameLog
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.rules import TRICKS_PER_ROUND, Game, Variant
from companion.games.tightrope.views import replay_json, snapshot
from companion.record import dumps, iter_lines

games = st.builds(
    lambda seed, n, tactical, simultaneous: random_game(
        random.Random(seed), n, Variant(tactical, simultaneous)
    ),
    st.integers(0, 2**32),
    st.integers(3, 5),
    st.booleans(),
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(games)
def test_every_value_once_per_round_nine_tricks_n_rounds(events):
    game = Game.replay(events)
    n = game.n
    assert game.game_over and len(game.rounds) == n
    for index, rnd in enumerate(game.rounds):
        assert rnd.dealer == (game.setup.first_dealer + index) % n
        assert len(rnd.tricks) == TRICKS_PER_ROUND
        assert sorted(t.value for t in rnd.tricks) == list(range(1, 10))
        assert rnd.tricks[0].leader == (rnd.dealer + 1) % n
        for before, after in zip(rnd.tricks, rnd.tricks[1:], strict=False):
            assert after.leader == before.high
        cards = [p.card for t in rnd.tricks for p in t.plays]
        assert len(cards) == len(set(cards)) == 9 * n
        assert rnd.scores == tuple(abs(b) for b in rnd.tricks[-1].balances)
    for trick in (t for r in game.rounds for t in r.tricks):
        assert trick.high != trick.low
        assert sum(trick.balances) == sum(  # sticks in play only change by the trick's pay
            t.blue - t.red for t in game.rounds[trick.round].tricks[: trick.index + 1]
        )


@settings(max_examples=40, deadline=None)
@given(games)
def test_totals_are_unstruck_scores_and_winners_lowest(events):
    game = Game.replay(events)
    for seat in range(game.n):
        struck = game.struck_rounds(seat)
        assert len(struck) <= sum(1 for r in game.rounds if r.scores[seat] == 0)
        assert game.totals()[seat] == sum(
            r.scores[seat] for r in game.rounds if r.index not in struck
        )
    best = min(game.totals())
    assert game.winners() == [s for s, t in enumerate(game.totals()) if t == best]


@settings(max_examples=40, deadline=None)
@given(games)
def test_replay_of_written_record_equals_game(events):
    text = "\n".join(dumps(e) for e in events)
    reread = [event for _, event in iter_lines(text.splitlines())]
    assert reread == events
    assert replay_json(Game.replay(reread)) == replay_json(Game.replay(events))


@settings(max_examples=30, deadline=None)
@given(games, st.data())
def test_undo_after_apply_restores_the_state(events, data):
    cut = data.draw(st.integers(1, len(events) - 1))
    log = GameLog.from_events(events[:cut])
    before = snapshot(log.game)
    log.apply(events[cut])
    log.apply(Undo(why="test"))
    assert snapshot(log.game) == before


@settings(max_examples=30, deadline=None)
@given(games, st.data())
def test_snapshot_is_consistent(events, data):
    cut = data.draw(st.integers(1, len(events)))
    game = Game.replay(events[:cut])
    snap = snapshot(game)
    if not snap["game_over"]:
        assert len(snap["revealed"]) + len(snap["remaining_scoring"]) == 11
        played = {p["card"] for p in snap["trick_plays"]}
        assert not played & set(snap["playable"])
        assert snap["balances"] == game.balances


@settings(max_examples=20, deadline=None)
@given(games, st.data())
def test_later_snapshots_share_each_finished_rounds_json(events, data):
    """The hub keeps 256 views; each lists every finished round once for all of them, and the
    shared dict is what the round's own JSON is."""
    cut = data.draw(st.integers(1, len(events) - 1))
    before, after = snapshot(Game.replay(events[:cut])), snapshot(Game.replay(events))
    assert after["rounds"][:len(before["rounds"])] == before["rounds"]
    for a, b in zip(before["rounds"], after["rounds"], strict=False):
        assert a is b
    assert replay_json(Game.replay(events))["rounds"] == after["rounds"]
