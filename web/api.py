"""The JSON API the pages' own scripts use, and the live view over Server-Sent Events.

Reads are open. Every write passes `host_only` (Origin check + host PIN), validates its body
into one clear message, and goes to the referee as a command: the referee's loop is the only
thing that changes the game, and a refused command changes nothing.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.commands import (
    AddNote,
    CommandError,
    CommandTimeout,
    Correct,
    Finish,
    ManualEvent,
    NewGame,
    Resolve,
    StorageFailed,
)
from companion.games import DEFAULT
from companion.games.attacke import rules as attacke
from companion.games.solo import rules as solo
from companion.games.tightrope.events import Note, PlayCorrected, ScoringCorrected, Undo
from companion.games.tightrope.rules import (
    SEATS,
    TRICKS_PER_ROUND,
    CardPlayed,
    GameStarted,
    RuleError,
    ScoringCard,
    ScoringRevealed,
    Variant,
)
from companion.hub import Hub
from companion.store import StoreError, now_iso

from .guard import (
    BadInput,
    Forbidden,
    NotFound,
    Refused,
    Unavailable,
    check_origin,
    client,
    flag,
    host_only,
    is_host,
    json_body,
    login,
    logout,
    pins,
    text,
    whole,
)
from .guard import body as request_json

bp = Blueprint("api", __name__, url_prefix="/api")
events_bp = Blueprint("events", __name__)

SCORING_NAMES = [str(v) for v in range(1, 10)] + ["blue0", "red0"]
MAX_NAME = 24
MAX_WHY = 200


def ctx() -> Any:
    return current_app.extensions["tightrope"]


def call(command: Any) -> Any:
    """Hand a command to the referee and wait; its refusal is a 409 with its one line, and
    a command not taken in time (withdrawn) or not stored is a 503: nothing was applied."""
    try:
        return ctx().referee.call(command, timeout=ctx().call_timeout)
    except (CommandTimeout, StorageFailed) as err:
        raise Unavailable(str(err)) from None
    except CommandError as err:
        raise Refused(str(err)) from None


def ok(**extra: Any) -> Response:
    latest_id, view = ctx().referee.hub.latest()
    return jsonify({"ok": True, "view_id": latest_id, **extra})


def current_setup() -> GameStarted:
    """The set-up of the Tightrope game in play (the writes that name its cards need one)."""
    game = ctx().referee.game
    if game is None:
        raise Refused("no game in play: start one on the Setup page")
    spec = ctx().referee.spec
    if spec.name != DEFAULT:
        raise Refused(f"the game in play is {spec.title}: this write is for Tightrope")
    setup: GameStarted = game.setup
    return setup


def scoring_card(body: dict[str, Any], key: str = "card") -> ScoringCard:
    value = body.get(key)
    if not isinstance(value, str) or value not in SCORING_NAMES:
        raise BadInput(f'{key} must be one of "1".."9", "blue0", "red0"')
    return ScoringCard.parse(value)


# --- reading ------------------------------------------------------------------------------------


@bp.get("/view")
def view() -> Response:
    view_id, latest = ctx().referee.hub.latest()
    return jsonify({"id": view_id, "view": latest})


@bp.get("/conflicts/<int:conflict_id>.jpg")
def conflict_image(conflict_id: int) -> Response:
    """The crop of the card a question is about (gone once the question is)."""
    image = ctx().referee.conflict_image(conflict_id)
    if image is None:
        raise NotFound("no such question, or no picture for it")
    response = Response(image, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/whoami")
def whoami() -> Response:
    store = pins()
    return jsonify({"host": is_host(), "pin_set": store.is_set(),
                    "locked_s": round(store.locked_for(client()), 1)})


@bp.get("/games")
def games() -> Response:
    return jsonify([g.to_json() for g in ctx().store.games()])


@bp.get("/games/<int:game_id>/replay")
def replay(game_id: int) -> Response:
    """The game as `replay --json` scores it (any game: Attacke's contests, Tightrope's rounds)."""
    store = ctx().store
    try:
        spec = store.game_of(game_id) if game_id < 2**62 else None
        if spec is None:
            raise StoreError(f"there is no game {game_id}")
        game = store.load(game_id).game
    except StoreError:
        raise NotFound(f"there is no game {game_id}") from None
    return jsonify(spec.replay_json(game))


@bp.get("/games/<int:game_id>/photos")
def photos(game_id: int) -> Response:
    """Which tricks kept a photo: {"r-t": url} with 1-based round and trick numbers."""
    kept = ctx().store.photos(game_id) if game_id < 2**62 else {}
    return jsonify({f"{r + 1}-{t + 1}": f"/photos/{name}" for (r, t), name in kept.items()})


# --- the host PIN -------------------------------------------------------------------------------


@bp.post("/login")
def post_login() -> Response:
    check_origin()
    body = json_body({"pin"})
    login(body.get("pin"))
    return ok(host=True)


@bp.post("/logout")
def post_logout() -> Response:
    check_origin()
    logout()
    return ok(host=False)


@bp.post("/pin")
def post_pin() -> Response:
    """Set the PIN: anyone while none is set (first start), else only the host."""
    check_origin()
    body = json_body({"pin"})
    store = pins()
    if store.is_set():
        if not is_host():
            raise Forbidden("a PIN is already set: log in with it to change it")
        store.set_pin(body.get("pin"))  # type: ignore[arg-type]
    else:
        store.set_first(body.get("pin"))  # type: ignore[arg-type]
    login(body.get("pin"))
    return ok(host=True)


# --- the game -----------------------------------------------------------------------------------


TIGHTROPE_GAME = {"players", "first_dealer", "tactical", "simultaneous", "game"}
ATTACKE_GAME = {"players", "first_player", "persevering", "concealed", "game"}
SOLO_GAME = {"players", "joker_wild", "match_suit", "game"}


@bp.post("/game")
@host_only
def new_game() -> Response:
    """A new game: Tightrope unless the body names another ("game": "attacke", "solo")."""
    kind = request_json().get("game", DEFAULT)
    if kind == "attacke":
        return new_attacke_game()
    if kind == "solo":
        return new_solo_game()
    if kind != DEFAULT:
        raise BadInput('game must be "tightrope", "attacke" or "solo"')
    body = json_body(TIGHTROPE_GAME)
    names = player_names(body, SEATS)
    first = whole(body, "first_dealer", 0, len(names) - 1, "first dealer")
    variant = Variant(tactical=flag(body, "tactical"), simultaneous=flag(body, "simultaneous"))
    try:
        setup = GameStarted(tuple(names), first, variant)
    except RuleError as err:
        raise BadInput(err.detail) from None
    return ok(game_id=call(NewGame(setup)))


def new_attacke_game() -> Response:
    body = json_body(ATTACKE_GAME)
    names = player_names(body, attacke.SEATS)
    first = whole(body, "first_player", 0, len(names) - 1, "first player") \
        if "first_player" in body else 0
    variant = attacke.Variant(persevering=flag(body, "persevering"),
                              concealed=flag(body, "concealed"))
    try:
        setup = attacke.GameStarted(tuple(names), first, variant)
    except attacke.RuleError as err:
        raise BadInput(err.detail) from None
    return ok(game_id=call(NewGame(setup, game="attacke")))


def new_solo_game() -> Response:
    """The solo Tightrope: one player, and the house rules of its sheet (S9, S12)."""
    body = json_body(SOLO_GAME)
    names = player_names(body, solo.SEATS)
    variant = solo.Variant(joker_wild=flag(body, "joker_wild"),
                           match_suit=flag(body, "match_suit"))
    try:
        setup = solo.GameStarted(tuple(names), variant)
    except solo.RuleError as err:
        raise BadInput(err.detail) from None
    return ok(game_id=call(NewGame(setup, game="solo")))


def player_names(body: dict[str, Any], seats: range) -> list[str]:
    players = body.get("players")
    if not isinstance(players, list) or len(players) not in seats:
        if len(seats) == 1:
            raise BadInput("players must be a list of one name: the game is for one player")
        raise BadInput(f"players must be a list of {seats[0]} to {seats[-1]} names, in clockwise "
                       "seat order")
    names = []
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise BadInput(f"player {i + 1} needs a name")
        if len(name) > MAX_NAME or any(ord(c) < 32 for c in name):
            raise BadInput(f"player {i + 1}: a name has at most {MAX_NAME} plain characters")
        names.append(name.strip())
    return names


@bp.post("/finish")
@host_only
def finish() -> Response:
    json_body(set())
    call(Finish())
    return ok()


@bp.post("/play")
@host_only
def play() -> Response:
    body = json_body({"seat", "card"})
    setup = current_setup()
    seat = whole(body, "seat", 0, setup.n - 1)
    card = whole(body, "card", 1, setup.deck_size)
    call(ManualEvent(CardPlayed(seat, card)))
    return ok()


@bp.post("/reveal")
@host_only
def reveal() -> Response:
    body = json_body({"card"})
    current_setup()
    call(ManualEvent(ScoringRevealed(scoring_card(body))))
    return ok()


def attacke_game(move: str) -> attacke.Game:
    game = ctx().referee.game
    if game is None or ctx().referee.spec.name != "attacke":
        raise Refused(f"{move} is a move of Attacke, and no game of Attacke is in play")
    assert isinstance(game, attacke.Game)
    return game


@bp.post("/pass")
@host_only
def pass_turn() -> Response:
    """The Attacke player at turn says "pass" (A7): the camera sees a pass only when his cards
    leave the table."""
    body = json_body({"seat"})
    game = attacke_game("a pass")
    call(ManualEvent(attacke.Passed(whole(body, "seat", 0, len(game.players) - 1))))
    return ok()


MAX_LAID = 20  # more cards than any hand holds


@bp.post("/lay")
@host_only
def lay() -> Response:
    """An Attacke laying entered by hand (the camera lost, or a card it did not see): the cards
    face up by name ("red-3", "shield-10"), and `face_down` cards in the concealed variant."""
    body = json_body({"seat", "cards", "face_down"})
    game = attacke_game("laying cards")
    seat = whole(body, "seat", 0, len(game.players) - 1)
    names = body.get("cards", [])
    if (not isinstance(names, list) or len(names) > MAX_LAID
            or not all(isinstance(n, str) for n in names)):
        raise BadInput('cards must be a list of card names such as "red-3" or "shield-10"')
    try:
        cards = tuple(attacke.Card.parse(name) for name in names)
    except ValueError as err:
        raise BadInput(str(err)[:120]) from None
    face_down = whole(body, "face_down", 0, MAX_LAID, "face-down cards") if "face_down" in body \
        else 0
    call(ManualEvent(attacke.CardsPlayed(seat, cards, face_down)))
    return ok()


@bp.post("/undo")
@host_only
def undo() -> Response:
    body = json_body({"why"})
    call(Correct(Undo(at=now_iso(), why=text(body, "why", MAX_WHY) or "undo on the web page")))
    return ok()


@bp.post("/correct/play")
@host_only
def correct_play() -> Response:
    body = json_body({"round", "trick", "seat", "card", "why"})
    setup = current_setup()
    fix = PlayCorrected(
        round=whole(body, "round", 0, setup.n - 1),
        trick=whole(body, "trick", 0, TRICKS_PER_ROUND - 1),
        seat=whole(body, "seat", 0, setup.n - 1),
        card=whole(body, "card", 1, setup.deck_size),
        at=now_iso(), why=text(body, "why", MAX_WHY),
    )
    call(Correct(fix))
    return ok()


@bp.post("/correct/scoring")
@host_only
def correct_scoring() -> Response:
    body = json_body({"round", "index", "card", "why"})
    setup = current_setup()
    fix = ScoringCorrected(
        round=whole(body, "round", 0, setup.n - 1),
        index=whole(body, "index", 0, len(SCORING_NAMES) - 1),
        card=scoring_card(body), at=now_iso(), why=text(body, "why", MAX_WHY),
    )
    call(Correct(fix))
    return ok()


@bp.post("/resolve")
@host_only
def resolve() -> Response:
    body = json_body({"conflict_id", "choice"})
    conflict_id = whole(body, "conflict_id", 1, 2**31, "conflict_id")
    choice = text(body, "choice", 64, required=True)
    call(Resolve(conflict_id, choice))
    return ok()


@bp.post("/note")
@host_only
def note() -> Response:
    body = json_body({"text"})
    call(AddNote(Note(text(body, "text", 500, required=True), at=now_iso())))
    return ok()


# --- Server-Sent Events -------------------------------------------------------------------------


def sse_message(view_id: int, view: Any) -> str:
    return f"id: {view_id}\ndata: {json.dumps(view, separators=(',', ':'))}\n\n"


class Encoded:
    """Each view is turned into its SSE message once, not once per phone (50 phones = 50x)."""

    def __init__(self, keep: int = 64) -> None:
        self._lock = threading.Lock()
        self._messages: OrderedDict[int, str] = OrderedDict()
        self._keep = keep

    def __call__(self, view_id: int, view: Any) -> str:
        with self._lock:
            message = self._messages.get(view_id)
        if message is None:
            message = sse_message(view_id, view)
            with self._lock:
                self._messages[view_id] = message
                while len(self._messages) > self._keep:
                    self._messages.popitem(last=False)
        return message


def stream(hub: Hub, last_id: int | None, stopping: Any, heartbeat: float = 15.0,
           tick: float = 1.0, encode: Any = sse_message,
           gone: Callable[[], bool] = lambda: False) -> Iterator[str]:
    """Every view after `last_id` (what a reconnecting browser missed), then each new one.

    Wakes at least every `tick` seconds so a server shutdown, or a client that went away
    (`gone`: the server saw its connection close), ends the stream and frees its slot; a
    comment line every `heartbeat` seconds keeps proxies and phones from dropping a quiet
    connection (and a write to a closed one fails, for servers that cannot tell `gone`).
    """
    yield "retry: 1500\n\n"
    newest, view = hub.latest()
    if last_id is None or last_id > newest:  # first visit, or ids from before a restart
        if view is not None:
            yield encode(newest, view)
        last_id = newest
    else:
        for view_id, missed in hub.since(last_id):
            yield encode(view_id, missed)
            last_id = view_id
    quiet_since = time.monotonic()
    while not stopping.is_set() and not hub.closed and not gone():
        batch = hub.wait(last_id, tick)
        for view_id, fresh in batch:
            yield encode(view_id, fresh)
            last_id = view_id
        if batch:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= heartbeat:
            yield ": keep-alive\n\n"
            quiet_since = time.monotonic()


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last")
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 15:
        raise BadInput("Last-Event-ID must be a view number")
    return int(raw)


def _busy(message: str, status: int) -> Response:
    response = jsonify({"error": message})
    response.status_code = status
    response.headers["Retry-After"] = "5"
    return response


@events_bp.get("/events")
def events() -> Response:
    c = ctx()
    last_id = _last_event_id()
    who = client()
    if not c.client_streams.open(who):
        return _busy("too many live connections from this device; close a tab", 429)
    if not c.sse_slots.acquire(blocking=False):
        c.client_streams.close(who)
        return _busy("too many live connections; try again soon", 503)
    # waitress tells a closed connection at once (channel_request_lookahead, web.server)
    gone = request.environ.get("waitress.client_disconnected", lambda: False)
    response = Response(stream(c.referee.hub, last_id, c.stopping, c.heartbeat,
                               encode=c.encoded, gone=gone), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"

    def release() -> None:
        c.sse_slots.release()
        c.client_streams.close(who)

    response.call_on_close(release)
    return response
