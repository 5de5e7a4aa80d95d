"""What every game shares: the error a rule raises, the record's own events, and the protocol a
game offers the application (docs/games.md).

Pure code: no I/O. A game package (`companion.games.<name>`) holds its rules, record events,
replay view, deck and interpreter, and exposes one `GAME` object that satisfies `GameSpec`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, runtime_checkable


class RuleError(ValueError):
    """An event the rules forbid. `rule` names the rule of the game's rules page it breaks."""

    rule = "rules"

    def __init__(self, message: str) -> None:
        super().__init__(f"{self.rule}: {message}")
        self.detail = message


class RecordError(ValueError):
    """A record line that cannot be read or applied. `line` is 1-based, or None."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line
        self.detail = message


E = TypeVar("E")


class EventGame(Generic[E]):
    """A game made by applying events to its start, one at a time: the log is the whole truth,
    so undo is a replay of the log without its last event. A game supplies `__init__(start)`,
    `check` and `apply`, and its own errors for an empty log and for nothing to undo."""

    log: list[E]
    not_started: ClassVar[type[RuleError]]
    nothing_to_undo: ClassVar[type[RuleError]]

    def __init__(self, start: Any) -> None:
        raise NotImplementedError

    def check(self, event: E) -> None:
        """Would `apply` take the event now? Raises the RuleError naming the rule it breaks."""
        raise NotImplementedError

    def apply(self, event: E) -> object:
        raise NotImplementedError

    def is_legal(self, event: E) -> bool:
        try:
            self.check(event)
        except RuleError:
            return False
        return True

    def undo(self) -> E:
        """Take back the last event (not the start) and return it."""
        if len(self.log) < 2:
            raise self.nothing_to_undo("there is no event to undo")
        last = self.log[-1]
        self.__dict__.update(type(self).replay(self.log[:-1]).__dict__)
        return last

    @classmethod
    def replay(cls, events: Sequence[E]) -> Self:
        if not events:
            raise cls.not_started("a game begins with game_started")
        game = cls(events[0])
        for event in events[1:]:
            game.apply(event)
        return game

    @classmethod
    def fold(cls, numbered: Iterable[tuple[int, Any]]) -> Self:
        """The game of a record's (line number, event) pairs: a note changes nothing, an undo
        takes back the last game event still in effect; what the rules refuse is a RecordError
        on its line."""
        game: Self | None = None
        for number, event in numbered:
            try:
                if isinstance(event, Note):
                    continue
                if game is None:
                    game = cls(event)  # refuses anything but the game's start
                elif isinstance(event, Undo):
                    game.undo()
                else:
                    game.apply(event)
            except RuleError as err:
                raise RecordError(str(err), number) from None
        if game is None:
            raise RecordError("the record holds no game_started event")
        return game


# --- events about the record itself, the same in every game ---------------------------------


@dataclass(frozen=True)
class Undo:
    """Take back the last game event still in effect."""

    at: str = ""
    why: str = ""


@dataclass(frozen=True)
class Note:
    text: str
    at: str = ""


def parse_line(obj: Any, parsers: Mapping[str, Callable[[dict[str, Any]], Any]]) -> Any:
    """One decoded record line as an event: an undo or a note, or the game's own `type`, decoded
    by its parser. A ValueError in one line says why not."""
    if not isinstance(obj, dict):
        raise ValueError("an event is a JSON object")
    kind = obj.get("type")
    match kind:
        case "undo":
            return Undo(text_of(obj, "at"), text_of(obj, "why"))
        case "note":
            return Note(field_of(obj, "text", str, "note"), text_of(obj, "at"))
        case None:
            raise ValueError('an event needs a "type"')
    parser = parsers.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise ValueError(f"unknown event type {json.dumps(kind)}")
    return parser(obj)


def record_event_json(event: object) -> dict[str, Any] | None:
    """The record line of an undo or a note, or None for another event."""
    match event:
        case Undo():
            return {"type": "undo", "at": event.at, "why": event.why}
        case Note():
            return {"type": "note", "text": event.text, "at": event.at}
    return None


# --- decoding helpers: a bad line gets a one-line reason --------------------------------------


def field_of(obj: dict[str, Any], key: str, kind: type, what: str) -> Any:
    """obj[key] of the given type; a ValueError names the field and the event otherwise."""
    if key not in obj:
        raise ValueError(f'{what} needs "{key}"')
    value = obj[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f'"{key}" of {what} must be a whole number, not {json.dumps(value)}')
    if kind is not int and not isinstance(value, kind):
        raise ValueError(f'"{key}" of {what} must be a {kind.__name__}, not {json.dumps(value)}')
    return value


def text_of(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f'"{key}" must be text')
    return value


def names_of(obj: dict[str, Any], what: str) -> tuple[str, ...]:
    players = field_of(obj, "players", list, what)
    if not all(isinstance(p, str) for p in players):
        raise ValueError(f'"players" of {what} must be a list of names')
    return tuple(players)


def flags_of(obj: dict[str, Any], keys: tuple[str, ...], what: str) -> dict[str, bool]:
    """The variant object of a game_started line: each of `keys` true or false, default false."""
    variant = obj.get("variant", {})
    if not isinstance(variant, dict):
        raise ValueError(f'"variant" of {what} must be an object')
    flags = {}
    for key in keys:
        flags[key] = variant.get(key, False)
        if not isinstance(flags[key], bool):
            raise ValueError(f'variant "{key}" must be true or false')
    unknown = set(variant) - set(keys)
    if unknown:
        raise ValueError(f"unknown variant {sorted(unknown)[0]!r}")
    return flags


def seating_fault(players: tuple[str, ...], seats: range, title: str) -> str | None:
    """Why these players cannot sit down to the game, or None."""
    n = len(players)
    if n not in seats:
        span = f"{seats[0]} to {seats[-1]} players" if len(seats) > 1 else f"{seats[0]} player"
        return f"{title} is for {span}, not {n}"
    if any(not isinstance(p, str) or not p.strip() for p in players):
        return "every player needs a name"
    if len(set(players)) != n:
        return "two players have the same name"
    return None


# --- what an interpreter decides ----------------------------------------------------------------


class AnswerError(ValueError):
    """An answer that is not one of the question's, or that the rules refuse."""


@dataclass(frozen=True)
class Choice:
    id: str
    label: str


@dataclass(frozen=True)
class Question:
    """Something a person must decide; nothing it is about is scored until then."""

    key: str
    message: str
    choices: tuple[Choice, ...]
    ok: str | None = None         # what the table's OK button confirms: a single sure proposal
    seat: int | None = None
    round: int = 0                # where in the game (Tightrope: round and trick; Attacke: the
    trick: int = 0                # contest and 0)
    track: int | None = None      # the physical card it is about (its crop)
    any_card: str | None = None   # the game's kind of card any legal one of which may be given


@dataclass(frozen=True)
class Apply:
    """An event to apply. The referee applies it (or the rules refuse it) and tells the
    interpreter so (`applied` / `refused`) before it decides again."""

    event: Any
    track: int | None = None      # the physical card it comes from
    learn: str | None = None      # a person named the card the camera saw: its label (keep it)
    position: Any = None          # where in the game it was decided (the interpreter's own use)


@dataclass(frozen=True)
class Ask:
    question: Question


@dataclass(frozen=True)
class Withdraw:
    key: str


Decision = Apply | Ask | Withdraw


def ask_anew(asked: dict[str, Question], needed: Iterable[Question]) -> list[Decision]:
    """The questions to withdraw and to ask (new, or said better) for `needed` to be the
    questions shown; `asked` (key -> question shown) is brought up to date."""
    wanted = {q.key: q for q in needed}
    out: list[Decision] = []
    for key in list(asked):
        if key not in wanted:
            del asked[key]
            out.append(Withdraw(key))
    for key, q in wanted.items():
        if asked.get(key) != q:
            asked[key] = q
            out.append(Ask(q))
    return out


# Narrowing a read by the rules (Tightrope's `narrow`, `names.certain_name`): its best legal
# card is certain at this probability given that the card is legal, this many times likelier
# than the next legal card, where the reader itself gave it at least MIN_RAW, and never under
# the reader's own line.
MIN_PROBABILITY = 0.5
MIN_ODDS = 4.0
MIN_RAW = 0.25


def clear_first(best: float, rival: float) -> bool:
    """Is the best card likely enough (MIN_PROBABILITY) and far likelier than the next
    (MIN_ODDS)?"""
    return best >= MIN_PROBABILITY and best >= MIN_ODDS * rival


def certain_by_rules(best: float, rival: float, ruled_out: float, line: float) -> bool:
    """Is a read's best legal card certain, once the rules ruled out cards the reader gave
    `ruled_out` in all? `best`, `rival`: the reader's probabilities of its best and next legal
    cards; `line`: its own line. The probabilities are conditioned on the card being legal, so
    what the rules rule out can lift a read over the line, nothing lowers it; but only by
    ruling out as much as the legal rival holds: doubt spread thin over cards the rules rule
    out says nothing of the one legal card the reader doubted with (Tightrope, design 171 on a
    plaid cloth, zero-shot: a 20 read as a 30 at 0.972, the 20 at 0.017, 0.008 ruled out,
    lifted to 0.980 over the line 0.977 and scored)."""
    mass = max(1.0 - ruled_out, 1e-9)
    return (clear_first(best / mass, rival / mass) and best >= MIN_RAW and best / mass >= line
            and (best >= line or ruled_out >= rival))


class Interpreter(Protocol):
    """From what the camera saw to events: a pure decider (no I/O, no clock). The watcher's
    changes go in with `seen`, people's answers with `answer`; `decide` says what follows."""

    @property
    def still_s(self) -> float:
        """The longest it waits on a table lying still before deciding: when the footage is
        over, `Flush` lets this much time pass."""
        ...

    def seen(self, changes: Iterable[Any], t: float, moving: frozenset[Any] = frozenset()
             ) -> None:
        """The watcher's changes at frame time t, and the zones a hand moved over then."""
        ...

    def decide(self, game: Any, t: float) -> list[Decision]:
        """At most one Apply (the referee applies it and asks again), or questions to ask and
        withdraw."""
        ...

    def applied(self, decision: Apply) -> None: ...

    def refused(self, decision: Apply, why: str) -> None: ...

    def answer(self, key: str, choice: str, game: Any, t: float) -> None:
        """A person answered question `key`; AnswerError if the choice is not one it allows."""
        ...

    def undone(self, game: Any) -> None:
        """A person took back the last event; `game` is the game after the undo."""
        ...

    def corrected(self, correction: Any, game: Any) -> Apply | None:
        """A person corrected an event: an Apply naming the card seen and its right label
        (`track`, `learn`) where its crop should be kept, nothing more to apply."""
        ...

    def laid_out(self, game: Any) -> tuple[Any, ...]:
        """The cards of a move being laid out, read for certain, that no event holds yet (the
        solo game's mission before it is played: the snapshot's odds); () where a game shows
        none."""
        ...


# --- the log the referee keeps ------------------------------------------------------------------


@runtime_checkable
class Moment(Protocol):
    """What an event completed that deserves a photo: a trick, a contest."""

    @property
    def photo_key(self) -> tuple[int, int]: ...

    @property
    def photo_stem(self) -> str: ...


class Log(Protocol):
    """The record's events still in effect and the game they make; corrections applied."""

    @property
    def game(self) -> Any: ...

    @property
    def effective(self) -> list[Any]: ...

    def apply(self, event: Any) -> Moment | None:
        """Apply a record event (a game event, a correction, an undo, a note); the moment it
        completed. A refused event raises RuleError and changes nothing."""
        ...

    def changes_nothing(self, event: Any) -> bool:
        """A correction to what the game already holds: nothing to apply or record."""
        ...


class EventLog(Generic[E]):
    """The Log of an EventGame: game events applied, an undo taking back the last, notes
    changing nothing. (A game with corrections of its own keeps a log of its own.)"""

    def __init__(self, game: EventGame[E]) -> None:
        self.game = game

    @property
    def effective(self) -> list[E]:
        return list(self.game.log)

    def apply(self, event: Any) -> Moment | None:
        if isinstance(event, Note):
            return None
        if isinstance(event, Undo):
            self.game.undo()
            return None
        done = self.game.apply(event)
        return done if isinstance(done, Moment) else None

    def changes_nothing(self, event: Any) -> bool:
        return False


# --- the protocol -------------------------------------------------------------------------------


class Scoresheet(Protocol):
    """A game folded from its record: what the application shows and stores of it."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def game_over(self) -> bool: ...

    @property
    def rounds_played(self) -> int: ...

    def totals(self) -> list[int]: ...

    def winners(self) -> list[int]: ...


class GameSpec(Protocol):
    """One game, as the application sees it. Each game package exposes one as `GAME`."""

    name: str  # in the record's header line and on the command line
    title: str  # for people
    seats: range  # how many players may sit down
    deck: tuple[str, ...]  # the card identities its reader must know

    def parse_event(self, obj: Any) -> Any:
        """One decoded record line as a typed event; ValueError (one line) if it is not one."""
        ...

    def event_to_json(self, event: Any) -> dict[str, Any]:
        """The record line of an event (the inverse of parse_event)."""
        ...

    def fold(self, events: Iterable[Any]) -> Scoresheet:
        """The game of a record's (line, event) pairs, corrections applied; a RecordError
        names the line the rules refuse."""
        ...

    def replay_json(self, game: Any) -> dict[str, Any]:
        """`replay --json` of a folded game."""
        ...

    def text_sheet(self, game: Any) -> str:
        """A plain-text scoresheet for a terminal."""
        ...

    def random_game(self, seed: int, players: int, **options: Any) -> Sequence[Any]:
        """The events of a random legal game: test material and the demo's script."""
        ...

    def log(self, events: Sequence[Any]) -> Log:
        """The log of a game in play from its record events (its start first); RuleError as
        the rules refuse one."""
        ...

    # A new interpreter for a game at the table; None for a game the table cannot referee yet.
    interpreter: Callable[[], Interpreter] | None
    # The places of its table beyond the seats and the row, that a zones file names (the solo
    # game's pyramid spots): (name in the file, what people call it); () for none.
    places: tuple[tuple[str, str], ...]
    row: str  # what the zones file's middle row ("scoring") is to people: "scoring row"

    def snapshot(self, game: Any, laid_out: Sequence[Any] = ()) -> dict[str, Any]:
        """Everything the table shows now: what the web page and the LEDs render (with the
        interpreter's `laid_out` cards, where the game shows them)."""
        ...

    def scoring(self, game: Any) -> Any:
        """What the score rests on, for telling whether two games were scored alike (the
        demo's check, the benches): `replay_json` less what no rule depends on."""
        ...

    def ok_event(self, game: Any) -> Any | None:
        """The event the table's OK button stands for while no question is open (Attacke: the
        player at turn passes); None where it stands for none now."""
        ...


@dataclass(frozen=True)
class Package:
    """A GameSpec made of a game package's own functions: each game's `__init__` builds its
    `GAME` as one."""

    name: str
    title: str
    seats: range
    deck: tuple[str, ...]
    parse_event: Callable[[Any], Any]
    event_to_json: Callable[[Any], dict[str, Any]]
    fold: Callable[[Iterable[Any]], Scoresheet]
    replay_json: Callable[[Any], dict[str, Any]]
    text_sheet: Callable[[Any], str]
    random_game: Callable[..., Sequence[Any]]
    log: Callable[[Sequence[Any]], Log]
    snapshot: Callable[..., dict[str, Any]]
    interpreter: Callable[[], Interpreter] | None = None  # None: not yet refereed at a table
    scoring_of: Callable[[Any], Any] | None = None         # None: the whole replay_json
    ok_event_of: Callable[[Any], Any | None] | None = None  # None: OK only answers questions
    places: tuple[tuple[str, str], ...] = ()  # the table's own places: (zones name, label)
    row: str = "scoring row"                  # what the zones file's middle row is to people

    def scoring(self, game: Any) -> Any:
        return (self.scoring_of or self.replay_json)(game)

    def ok_event(self, game: Any) -> Any | None:
        return self.ok_event_of(game) if self.ok_event_of else None


def event_log(game_type: type[EventGame[Any]]) -> Callable[[Sequence[Any]], EventLog[Any]]:
    """A GameSpec's `log` for an EventGame: the game replayed from the events, undos included."""

    def log(events: Sequence[Any]) -> EventLog[Any]:
        if not events:
            raise game_type.not_started("a game begins with game_started")
        out = EventLog(game_type(events[0]))
        for event in events[1:]:
            out.apply(event)
        return out

    return log

