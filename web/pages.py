"""The HTML pages (table, scoresheet, tricks, history, setup), the trick photos and the exports."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from markupsafe import Markup

from companion.games import DEFAULT, GAMES, game_named
from companion.games.attacke.rules import BACK, CARD_NAMES
from companion.games.tightrope.rules import Game
from companion.store import StoreError

from . import charts, contests, missions, sheets
from .addresses import local_only, qr_svg
from .guard import NotFound, is_host, pins

bp = Blueprint("pages", __name__)


@bp.app_template_filter("local_time")
def local_time(iso: str | None) -> str:
    """A stored UTC time as the Pi's local time, "2026-11-23 21:05" (the page then shows it in
    the phone's own time zone: common.js rewrites every <time datetime>)."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")
MAX_GAME_ID = 2**62  # SQLite integers; anything larger is simply not a game


def ctx() -> Any:
    return current_app.extensions["tightrope"]


def current_game_id() -> int | None:
    """The game in play, else the newest game in the store."""
    game_id = ctx().referee.game_id
    if game_id is not None:
        return game_id
    games = ctx().store.games()
    return games[0].id if games else None


def game_or_404(game_id: int) -> Game:
    if game_id > MAX_GAME_ID:
        raise NotFound(f"there is no game {game_id}")
    return sheets.load_game(ctx().store, game_id)


def kind_of(game_id: int) -> str:
    """The name of the game game_id is a game of ("tightrope", "attacke", ...)."""
    if game_id > MAX_GAME_ID:
        raise NotFound(f"there is no game {game_id}")
    try:
        return ctx().store.game_of(game_id).name
    except StoreError:
        raise NotFound(f"there is no game {game_id}") from None


def other_game_page(game_id: int, kind: str, page: str) -> str:
    """The page of a game of a kind other than Tightrope: Attacke's contests, the solo game's
    pyramid and missions, else the game's own scoresheet in text."""
    game: Any = sheets.load_game(ctx().store, game_id)
    in_play = ctx().referee.game_id == game_id and not game.game_over
    if kind == "attacke":
        template = "attacke_game.html" if page == "sheet" else "attacke_contests.html"
        return render_template(template, page=page, game_id=game_id, game_kind=kind,
                               sheet=contests.summary(game), events=len(game.log),
                               in_play=in_play, photos=ctx().store.photos(game_id),
                               initials=contests.INITIALS)
    if kind == "solo":
        template = "solo_game.html" if page == "sheet" else "solo_missions.html"
        return render_template(template, page=page, game_id=game_id, game_kind=kind,
                               sheet=missions.summary(game), events=len(game.log),
                               in_play=in_play, photos=ctx().store.photos(game_id))
    spec = game_named(kind)
    return render_template("other_game.html", page=page, game_id=game_id, game_kind=kind,
                           title=spec.title, text=spec.text_sheet(game), in_play=in_play,
                           events=len(game.log))


@bp.get("/")
def table() -> str:
    # the cards of Attacke a host may lay by hand: every face of its deck
    faces = [name.split("-") for name in CARD_NAMES if name != BACK]
    return render_template("table.html", page="table", attacke_faces=faces)


def _current_game_page(endpoint: str, page: str, what: str) -> Any:
    """The current game's page at `endpoint`, or a page saying there is no game yet."""
    game_id = current_game_id()
    if game_id is None:
        return render_template("empty.html", page=page, what=what)
    return redirect(url_for(endpoint, game_id=game_id))


@bp.get("/scoresheet")
def scoresheet() -> Any:
    return _current_game_page("pages.game", "sheet", "scoresheet")


@bp.get("/tricks")
def current_tricks() -> Any:
    return _current_game_page("pages.game_tricks", "tricks", "tricks")


def game_charts(game: Game) -> list[str]:
    """Balances over the tricks of each round, then totals across rounds."""
    names = list(game.setup.players)
    out = []
    rounds = len(game.rounds) + (1 if not game.game_over and game.tricks_this_round else 0)
    for r in range(rounds):
        series = sheets.balance_series(game, r)
        labels = ["start"] + [str(t) for t in range(1, len(series[0]))]
        out.append(charts.line_chart(f"Round {r + 1}: balance after each trick", names, series,
                                     labels, "blue + / red −"))
    cumulative = sheets.cumulative_totals(game)
    if cumulative:
        series = [[0] + [c[seat] for c in cumulative] for seat in range(len(names))]
        labels = ["start"] + [f"R{r}" for r in range(1, len(cumulative) + 1)]
        out.append(charts.line_chart("Totals after each round", names, series, labels,
                                     "points (lowest wins)"))
    return out


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> str:
    kind = kind_of(game_id)
    if kind != DEFAULT:
        return other_game_page(game_id, kind, "sheet")
    g = game_or_404(game_id)
    return render_template("game.html", page="sheet", game_id=game_id, sheet=sheets.sheet(g),
                           charts=game_charts(g), events=len(g.log) - 1,
                           in_play=ctx().referee.game_id == game_id and not g.game_over)


@bp.get("/games/<int:game_id>/tricks")
def game_tricks(game_id: int) -> str:
    kind = kind_of(game_id)
    if kind != DEFAULT:
        return other_game_page(game_id, kind, "tricks")
    g = game_or_404(game_id)
    photos = ctx().store.photos(game_id)
    return render_template("tricks.html", page="tricks", game_id=game_id,
                           players=list(g.setup.players), rounds=sheets.tricks(g, photos),
                           in_play=ctx().referee.game_id == game_id, host=is_host(),
                           deck_size=g.setup.deck_size)


@bp.get("/history")
def history() -> str:
    store = ctx().store
    return render_template("history.html", page="history", games=store.games(),
                           stats=store.player_stats(),
                           titles={name: game_named(name).title for name in GAMES})


@bp.get("/setup")
def setup() -> str:
    c = ctx()
    game = c.referee.game
    playing = c.referee.game_id if game is not None and not game.game_over else None
    urls = [u for u in (c.join_urls() if c.join_urls else []) if not local_only(u)]
    return render_template("setup.html", page="setup", pin_set=pins().is_set(), host=is_host(),
                           game_id=playing, camera=c.camera is not None, join_urls=urls,
                           lessons=c.lessons.summary() if c.lessons is not None else None,
                           join_qr=Markup(qr_svg(urls[0])) if urls else "")


# --- exports ------------------------------------------------------------------------------------


@bp.get("/games/<int:game_id>/record.jsonl")
def record(game_id: int) -> Response:
    if game_id > MAX_GAME_ID:
        raise NotFound(f"there is no game {game_id}")
    body = sheets.record_jsonl(ctx().store, game_id)
    return _download(body, "application/jsonl", f"{kind_of(game_id)}-game-{game_id}.jsonl")


@bp.get("/games/<int:game_id>/scoresheet.csv")
def scoresheet_csv(game_id: int) -> Response:
    """Tightrope: rounds x players; Attacke: its contests; solo: its missions."""
    kind = kind_of(game_id)
    if kind == DEFAULT:
        body = sheets.scoresheet_csv(game_or_404(game_id))
    elif kind in ("attacke", "solo"):
        game: Any = sheets.load_game(ctx().store, game_id)
        body = contests.contests_csv(game) if kind == "attacke" else missions.missions_csv(game)
    else:
        raise NotFound(f"game {game_id} is a game of {game_named(kind).title}: "
                       "its record is its export")
    return _download(body, "text/csv", f"{kind}-game-{game_id}.csv")


def _download(body: str, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- photos -------------------------------------------------------------------------------------


# What the referee names its photos ("12/r1-t3.jpg"), with room to spare; nothing else is
# looked up on disk (a 5,000-character name is no photo, not an OS error).
_PART = r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}"  # no hidden files: a part never starts with "."
PHOTO_NAME = re.compile(rf"{_PART}(/{_PART}){{0,3}}")


def photo_path(photo_dir: Path, name: str) -> Path:
    """The photo `name` inside `photo_dir`, refusing every way out of it (.., absolute paths,
    backslashes, hidden files, symlinks that lead elsewhere) and anything but a JPEG file."""
    pure = PurePosixPath(name)
    if not PHOTO_NAME.fullmatch(name) or pure.suffix.lower() not in (".jpg", ".jpeg"):
        raise NotFound("no such photo")
    base = photo_dir.resolve()
    try:
        full = (base / pure).resolve()
        found = full.is_relative_to(base) and full.is_file()
    except OSError:
        found = False
    if not found:
        raise NotFound("no such photo")
    return full


@functools.lru_cache(maxsize=256)
def _thumbnail(path: str, mtime_ns: int) -> bytes:
    import cv2  # decoding at a quarter of the size is ~10x faster than a full decode

    image = cv2.imread(path, cv2.IMREAD_REDUCED_COLOR_4)
    if image is None:
        raise NotFound("the photo cannot be read")
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
    if not ok:
        raise NotFound("the photo cannot be read")
    return data.tobytes()


@bp.get("/games/<int:game_id>/tricks/<int:round_no>/<int:trick_no>/photo.jpg")
def trick_photo(game_id: int, round_no: int, trick_no: int) -> Response:
    """The photo of trick `trick_no` of round `round_no` (1-based, as on the page)."""
    if game_id > MAX_GAME_ID:
        raise NotFound(f"there is no game {game_id}")
    name = ctx().store.photos(game_id).get((round_no - 1, trick_no - 1))
    if name is None:
        raise NotFound(f"no photo of round {round_no}, trick {trick_no}")
    return photo(name)


@bp.get("/photos/<path:name>")
def photo(name: str) -> Response:
    from flask import send_file

    full = photo_path(ctx().photo_dir, name)
    if request.args.get("size") == "thumb":
        body = _thumbnail(str(full), full.stat().st_mtime_ns)
        response = Response(body, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "max-age=60"
        return response
    return send_file(full, mimetype="image/jpeg", conditional=True, max_age=60)
