"""What the scoresheet, tricks and export pages show, derived from a game's events.

Nothing here is stored: every number comes from replaying the record
(companion.games.tightrope.log).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from companion.games.tightrope.rules import Game
from companion.games.tightrope.views import trick_detail_json
from companion.record import dumps, header_line
from companion.store import Store, StoreError

from .guard import NotFound


@dataclass(frozen=True)
class Cell:
    score: int
    struck: bool = False
    perfect: bool = False  # a perfect round (score 0): it struck an earlier score


@dataclass(frozen=True)
class Row:
    number: int  # 1-based round number
    dealer: str
    cells: list[Cell]
    complete: bool = True


@dataclass(frozen=True)
class Sheet:
    players: list[str]
    rows: list[Row]
    totals: list[int]
    winners: list[int]
    game_over: bool
    rounds_total: int
    cumulative: list[list[int]] = field(default_factory=list)  # totals after each round


def load_game(store: Store, game_id: int) -> Game:
    try:
        return store.load(game_id).game
    except StoreError:
        raise NotFound(f"there is no game {game_id}") from None


def sheet(game: Game) -> Sheet:
    players = list(game.setup.players)
    struck = {(seat, target) for rnd in game.rounds for seat, target in rnd.struck}
    rows = []
    for rnd in game.rounds:
        cells = [Cell(score, (seat, rnd.index) in struck, score == 0)
                 for seat, score in enumerate(rnd.scores)]
        rows.append(Row(rnd.index + 1, players[rnd.dealer], cells))
    if not game.game_over and game.tricks_this_round:
        cells = [Cell(abs(b)) for b in game.balances]
        rows.append(Row(game.round_index + 1, players[game.dealer], cells, complete=False))
    return Sheet(players, rows, game.totals(), game.winners(), game.game_over, game.setup.n,
                 cumulative_totals(game))


def cumulative_totals(game: Game) -> list[list[int]]:
    """Each seat's total after round 1, 2, ..."""
    return [game.totals(after=k) for k in range(1, len(game.rounds) + 1)]


def tricks(game: Game, photos: dict[tuple[int, int], str]) -> list[dict[str, Any]]:
    """Every scored trick of the game, round by round, with its photo path if one was kept."""
    rounds = [list(r.tricks) for r in game.rounds]
    if not game.game_over and game.tricks_this_round:
        rounds.append(list(game.tricks_this_round))
    out = []
    for index, round_tricks in enumerate(rounds):
        dealer = (game.setup.first_dealer + index) % game.setup.n
        items = []
        revealed = 0  # the round's reveals before this trick: a correction names a reveal so
        for trick in round_tricks:
            item = trick_detail_json(trick)
            item["photo"] = photos.get((trick.round, trick.index))
            item["by_seat"] = {p.seat: p.card for p in trick.plays}
            item["first_reveal"] = revealed
            revealed += len(trick.scoring)
            items.append(item)
        out.append({"round": index, "dealer": dealer, "tricks": items})
    return out


def balance_series(game: Game, round_index: int) -> list[list[int]]:
    """Per seat, the balance before the first trick (0) and after each trick of a round."""
    if round_index < len(game.rounds):
        round_tricks = game.rounds[round_index].tricks
    elif round_index == game.round_index and not game.game_over:
        round_tricks = game.tricks_this_round
    else:
        raise NotFound(f"there is no round {round_index + 1}")
    return [[0] + [t.balances[seat] for t in round_tricks] for seat in range(game.setup.n)]


def record_jsonl(store: Store, game_id: int) -> str:
    """The game record exactly as `replay` reads it: a header line (naming the game, unless it
    is Tightrope), then every event."""
    try:
        name = store.game_of(game_id).name
        events = store.events(game_id)
    except StoreError:
        raise NotFound(f"there is no game {game_id}") from None
    return "\n".join([header_line(name), *(dumps(e, name) for e in events)]) + "\n"


def safe_cell(name: str) -> str:
    """A name as a spreadsheet shows it, never as a formula (CSV injection)."""
    return "'" + name if name[:1] in ("=", "+", "-", "@", "\t", "\r") else name


def scoresheet_csv(game: Game) -> str:
    """Rounds x players; a struck score keeps its value and says so in the next column."""
    s = sheet(game)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    header = ["round", "dealer"]
    for name in s.players:
        header += [safe_cell(name), safe_cell(f"{name} struck")]
    writer.writerow(header)
    for row in s.rows:
        line: list[Any] = [row.number if row.complete else f"{row.number} (in play)",
                           safe_cell(row.dealer)]
        for cell in row.cells:
            line += [cell.score, "struck" if cell.struck else ""]
        writer.writerow(line)
    total: list[Any] = ["total", ""]
    for value in s.totals:
        total += [value, ""]
    writer.writerow(total)
    writer.writerow(["winner", safe_cell(", ".join(s.players[w] for w in s.winners))])
    return out.getvalue()
