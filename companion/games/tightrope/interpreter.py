"""From what the camera saw to game events: vision proposes, the rules dispose.

A pure decider. The watcher's changes go in (`seen`), people's answers go in (`answer`), and
`decide(game, t)` says what follows, as values: `Apply(event)` (one at a time: the referee applies
it, tells us so with `applied`, and asks again), `Ask(question)` and `Withdraw(key)`. No I/O, no
callbacks; every fact about the table lives in one `CardTable` of physical cards.

What becomes an event: a card the watcher committed (it lay still, two reads agreed), read sure
once the rules narrow its candidates (the scoring cards left, the cards not yet played this round
in the deck in use, whose turn it is), and accepted by the rules. Everything else is asked:

- a card read unsure, or read as a card the rules refuse (already played, already revealed):
  "Which card did Ben play in trick 4?", every card the rules allow, ranked by the reader; a
  sure read of a card another counts as on the camera's read alone is offered too (one of the
  two reads is wrong), and naming it asks which card that other one was (`_doubted`) first;
- a trick's scoring card the camera did not see before the trick's cards (it comes first: the
  leader reveals it, then plays), or saw only after them: "Which scoring card was revealed in
  trick 4?", ranked, the late card's read first. A late scoring card is never taken for the trick
  without asking: it may be the next trick's, and the game is not bent to fit it;
- a seat's card the camera did not see while later seats played, or before the trick's cards were
  taken away;
- a card read again as another card, two cards in one place, a card outside every place.

Questions are derived from the table and the game on every pass: one that later frames answer (a
sure read after all, the missing card seen) is withdrawn. While a question is open the camera keeps
watching; what it sees waits in the table and is caught up once the answer comes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from vision.types import GUESSES, CardId, Change, Observation, Reading

from ..base import (
    AnswerError,
    Apply,
    Choice,
    Decision,
    Question,
    Withdraw,
    ask_anew,
    certain_by_rules,
    clear_first,
)
from .cardtable import Card, CardTable, Stands
from .events import PlayCorrected, RecordEvent, ScoringCorrected
from .rules import CardPlayed, Colour, Game, ScoringCard, ScoringRevealed

# A read that gives a card already lying on the table (revealed, or played by that seat) at
# least this probability is not narrowed to a new card: it may be that card again.
MAY_BE_ON_TABLE = 0.2
SCORING_SETTLE_S = 1.0   # the scoring cards of one reveal arrive together: applied zeros first
SCORING_LATE_S = 2.0     # a scoring card seen this long after its trick's first card is asked about
TURN_GRACE_S = 3.0       # a card laid before its turn waits this long for the cards before it
MISSING_GRACE_S = 3.0    # a trick's cards wait this long for its scoring card, then a person says
STARTUP_S = 1.5          # cards seen this soon after watching began were lying there already
LEFTOVER_ROW = 3         # more new scoring cards than one reveal can be: last round's row


# --- reading a card with what the game knows ---------------------------------------------------


def scoring_of(card: CardId) -> ScoringCard | None:
    if card.kind != "scoring":
        return None
    return ScoringCard(card.value, Colour(card.colour) if card.colour else None)


def number_of(card: CardId) -> int | None:
    return card.value if card.kind == "number" else None


def narrow(reading: Reading, legal: Callable[[CardId], Stands | None]
           ) -> tuple[Stands | None, list[tuple[Stands, float]]]:
    """(the certain card or None, the legal candidates and their probabilities, best first).

    The game's rules may lift an unsure read over the reader's line (`certain_by_rules`). A card
    the reader itself is sure of (its deck's photos may settle a read its head gives less than
    the line) is certain where the rules allow it, as in the other games; a zero is certain
    only so."""
    ranked = [(card, p) for cand, p in reading.candidates if (card := legal(cand)) is not None]
    if not ranked:
        return None, []
    if reading.card is not None and legal(reading.card) == ranked[0][0]:
        return ranked[0][0], ranked
    if isinstance(ranked[0][0], ScoringCard) and ranked[0][0].is_zero:
        # a zero only on the reader's own word: what is no card at all reads as one (a lamp's
        # glare on the bare row, its halo a ring, 0.93; a scoring 9's red half below a zero,
        # 0.96), and ruling out the number cards and the other zero lifted both over the line
        return None, ranked
    ruled_out = sum(p for cand, p in reading.candidates if legal(cand) is None)
    rival = ranked[1][1] if len(ranked) > 1 else 0.0
    sure = certain_by_rules(ranked[0][1], rival, ruled_out, reading.line)
    return (ranked[0][0] if sure else None), ranked


def sure_card(reading: Reading | None) -> CardId | None:
    """The reading's card if it is certain without any help from the game."""
    if reading is None or reading.kind == "unknown":
        return None
    ranked = list(reading.candidates)
    if not ranked:
        return None
    rival = ranked[1][1] if len(ranked) > 1 else 0.0
    return ranked[0][0] if clear_first(ranked[0][1], rival) else None


def label(stands: Stands) -> str:
    """A card as people say it: "17", "5", "blue 0"."""
    if isinstance(stands, ScoringCard) and stands.colour is not None:
        return f"{stands.colour.value} 0"
    return str(stands)


def choice_id(stands: Stands) -> str:
    return f"scoring:{stands}" if isinstance(stands, ScoringCard) else f"card:{stands}"


def parse_choice(choice: str) -> Stands | None:
    """The card a choice id names ("card:17", "scoring:blue0"), or None for another answer."""
    kind, _, text = choice.partition(":")
    try:
        if kind == "card" and text.isdigit():
            return int(text)
        if kind == "scoring":
            return ScoringCard.parse(text)
    except ValueError:
        return None
    return None


def card_id(stands: Stands) -> CardId:
    """The card identity the reader knows a game card by."""
    if isinstance(stands, ScoringCard):
        return CardId("scoring", stands.value, "blue" if stands.colour is Colour.BLUE
                      else "red" if stands.colour is Colour.RED else None)
    return CardId("number", stands)


def card_label(stands: Stands) -> str:
    """The teach-folder label of a card (what a kept crop is named by)."""
    return card_id(stands).label


# --- the decider --------------------------------------------------------------------------------


@dataclass
class _Fix:
    """A correction a person chose, to be applied on the next pass."""

    event: RecordEvent
    card: Card
    stands: Stands


@dataclass
class Interpreter:
    still_s = max(SCORING_SETTLE_S, SCORING_LATE_S, TURN_GRACE_S, MISSING_GRACE_S)  # longest wait
    table: CardTable = field(default_factory=CardTable)
    asked: dict[str, Question] = field(default_factory=dict)
    started: float | None = None
    _fixes: list[_Fix] = field(default_factory=list)
    _waved: dict[str, int] = field(default_factory=dict)  # key -> table arrivals when waved off

    # -- what happened -------------------------------------------------------------------------

    def seen(self, changes: Iterable[Change], t: float, moving: frozenset[Any] = frozenset()
             ) -> None:
        """The watcher's changes at frame time t. A trick settles on the cards alone (the
        watcher commits a card once nothing moves over it), so hands (`moving`) tell nothing
        more."""
        changes = list(changes)
        if self.started is None and changes:
            self.started = t
        read_again = {c.observation.track for c in changes if c.kind == "appeared"}
        for change in changes:
            obs = change.observation
            if change.kind == "removed":
                if obs.track not in read_again:
                    self.table.gone(obs.track)
            else:
                self._appeared(obs, t)

    def _appeared(self, obs: Observation, t: float) -> None:
        card = self.table.cards.get(obs.track)
        if card is None:
            assert self.started is not None
            self.table.arrive(obs.track, obs.zone, obs.reading, t,
                              at_start=t - self.started <= STARTUP_S)
            return
        card.reading, card.present = obs.reading, True  # the same card, read again
        if card.status == "waiting":
            card.zone, card.refused = obs.zone, ""

    def applied(self, decision: Apply) -> None:
        """The referee applied `decision` (in the round and trick of its `position`): its card
        now stands for it."""
        card = self.table.cards.get(decision.track) if decision.track is not None else None
        event = decision.event
        if card is None:
            return
        round_index, trick = decision.position
        if isinstance(event, ScoringRevealed):
            self.table.count(card, event.card, round_index, trick, None)
        elif isinstance(event, CardPlayed):
            self.table.count(card, event.card, round_index, trick, event.seat)
        elif isinstance(event, PlayCorrected | ScoringCorrected):
            card.counts_as, card.doubted = event.card, False
        card.by_person, card.named = card.named is not None, None
        self.table.forget_before(round_index)

    def refused(self, decision: Apply, why: str) -> None:
        """The rules refused `decision`: its card is asked about."""
        card = self.table.cards.get(decision.track) if decision.track is not None else None
        if card is None:
            return
        if isinstance(decision.event, PlayCorrected | ScoringCorrected):
            card.confirmed = True  # the answer to "which is it?" cannot stand: not asked again
            card.named = None
            self._trust(card)
            return
        card.refused, card.named = why, None

    def undone(self, game: Game) -> None:
        """A person took back the last event: the card it came from is no longer counted (it is
        ignored: taken back, it is not taken again). `game` is the game after the undo."""
        counted = [c for c in self.table if c.status == "counted"]
        in_game = {(c.round, c.seat, c.counts_as) for c in counted if _still_in(c, game)}
        for c in counted:
            if (c.round, c.seat, c.counts_as) not in in_game:
                c.status = "ignored"

    def corrected(self, correction: PlayCorrected | ScoringCorrected, game: Game
                  ) -> Apply | None:
        """A person corrected a play or a reveal: its card now stands for the new card. Where
        the camera saw that card, its crop is kept under the right label: the returned Apply
        names the card (`track`) and its label (`learn`), nothing more to apply."""
        for c in self.table:
            if c.status != "counted" or c.round != correction.round:
                continue
            if isinstance(correction, PlayCorrected):
                hit = c.seat == correction.seat and c.trick == correction.trick
            else:
                hit = c.seat is None and c.trick == _reveal_index_trick(game, correction)
            if hit and c.counts_as != correction.card:
                c.counts_as = correction.card
                if c.reading is not None:
                    return Apply(correction, c.track, card_label(correction.card))
        return None

    def laid_out(self, game: Game) -> tuple[()]:
        """A trick's cards are events as they come: none are laid out ahead of them."""
        return ()

    # -- answers --------------------------------------------------------------------------------

    def answer(self, key: str, choice: str, game: Game, t: float) -> None:
        """A person answered question `key`; AnswerError if the choice is not one it allows."""
        q = self.asked.get(key)
        if q is None:
            raise AnswerError("that question was already answered")
        ids = {c.id for c in q.choices}
        stands = parse_choice(choice)
        if choice not in ids and not (q.any_card and stands is not None
                                      and (q.any_card == "number") == isinstance(stands, int)):
            raise AnswerError(f"{choice!r} is not one of the choices")
        kind, _, rest = key.partition(":")
        card = self.table.cards.get(int(rest)) if kind in ("card", "again", "two", "where",
                                                         "whose") else None
        if kind == "card" and card is not None:
            self._name(card, stands, game, choice)
        elif kind in ("value", "play"):
            self._name_missing(key, stands, game, choice, t)
        elif kind == "again" and card is not None:
            self._again_answered(card, stands, game, choice)
        elif kind == "two" and card is not None:
            # a notice: the counted card stays, the other is no card of this trick (a choice
            # "keep it" once named the other card as the counted one, which the rules refuse as
            # played already: the same question came back for ever); a swap is a correction
            card.status = "ignored"
        elif kind == "whose" and card is not None:
            if choice.startswith("seat:"):
                card.zone = int(choice.split(":")[1])
            else:
                card.status = "ignored"
        elif kind == "where" and card is not None:
            card.status = "ignored"
        self.asked.pop(key, None)

    def _name(self, card: Card, stands: Stands | None, game: Game, choice: str) -> None:
        if stands is None:
            card.status = "ignored"
            return
        if isinstance(stands, int) and isinstance(card.zone, int):
            misread = self._misread_as(game, stands)
            if misread is None:
                _check(game, CardPlayed(card.zone, stands))
            else:  # that read was wrong: which card it was is asked before this one counts
                misread.doubted = True
        if isinstance(stands, ScoringCard) and card.round in (-1, game.round_index) \
                and stands not in game.remaining_scoring():
            misread = self._misread_as(game, stands)
            if misread is None:
                raise AnswerError(f"R5: the {label(stands)} was already revealed this round")
            misread.doubted = True
        # the person saw the camera's read in the question and named another card: the same
        # read is not asked about again once the card counts ("counted as 8 and now reads as
        # 3", at once after "the camera read 3, which the rules do not allow now")
        card.named, card.refused, card.overruled = stands, "", sure_card(card.reading)

    def _misread_as(self, game: Game, stands: Stands) -> Card | None:
        """The card counted this round as `stands` on the camera's read alone (no person named
        or kept it). A person who names `stands` for another card says that read was wrong
        (design 375, zero-shot: Ben's 6 read as 8 at 0.98 and counted; Ana's 8, read at 1.00
        four tricks later, was refused as played, and no question could offer it; a scoring 7
        read as 1 at 0.97, the rules lifting it, and the 1 revealed later refused so)."""
        c = self.table.standing_for(game.round_index, stands)
        return c if c is not None and c.seen and not (c.by_person or c.confirmed) else None

    def _name_missing(self, key: str, stands: Stands | None, game: Game, choice: str,
                      t: float) -> None:
        if stands is None:  # "not yet": asked again once something new is seen
            self._waved[key] = self.table.arrivals
            return
        if isinstance(stands, ScoringCard):
            # the late card the question offered as its best guess is that card, sure or not
            match = next((c for c in self._late_row(game) if _best_guess(c.reading) == stands),
                         None)
            if match is not None:
                match.named = stands
            else:
                self.table.name("scoring", stands, t)
            return
        seat = int(key.split(":")[3])
        _check(game, CardPlayed(seat, stands))
        self.table.name(seat, stands, t)

    def _again_answered(self, card: Card, stands: Stands | None, game: Game,
                        choice: str) -> None:
        if stands is None or stands == card.counts_as:  # keep: this read is not asked again
            card.confirmed = True
            self._trust(card)
            return
        if card.doubted:
            if stands not in (game.remaining_scoring() if card.seat is None
                              else game.playable_cards()):
                raise AnswerError(f"{label(stands)} is not left in this round")
            card.named = stands  # a person's word: its crop is kept under this label
        self._fixes.append(_Fix(_correction(game, card, stands), card, stands))

    def _trust(self, card: Card) -> None:
        """A doubted card stands as counted after all: the card named as what it counts as
        is asked about again."""
        if not card.doubted:
            return
        card.doubted = False
        for c in self.table.waiting():
            if c.named == card.counts_as:
                c.named = None

    # -- deciding --------------------------------------------------------------------------------

    def decide(self, game: Game | None, t: float) -> list[Decision]:
        """What follows from the table and the game now: one Apply (the referee applies it and
        asks again), or the questions to ask and withdraw."""
        if game is None or game.game_over:
            return [Withdraw(k) for k in self._forget_all()]
        self._bind_seen_again(game)
        step = self._next(game, t)
        if step is not None:
            return [replace(step, position=(game.round_index, game.trick_index))]
        return ask_anew(self.asked, self._questions(game, t))

    def _forget_all(self) -> list[str]:
        keys = list(self.asked)
        self.asked.clear()
        return keys

    def _bind_seen_again(self, game: Game) -> None:
        """A card lying in the row or in a seat's place that the game already counts (seen again
        after a restart, or moved) stands for what it stands for: nothing new."""
        self._replace_stand_ins(game)
        r = game.round_index
        for c in self.table.waiting():
            if c.named is not None or c.reading is None:
                continue
            if c.in_row:
                unbound = [s for s in game.revealed if not self._lying(r, s)]
                if any(_probability(c.reading, s) >= MAY_BE_ON_TABLE
                       or _is(sure_card(c.reading), s) for s in unbound):
                    best = max(unbound, key=lambda s: _probability(c.reading, s))
                    self.table.count(c, best, r, _trick_of_reveal(game, best), None)
            elif isinstance(c.zone, int):
                mine = _played_by(game, c.zone)
                free = [n for n in mine if not self._lying(r, n, c.zone)]
                if not free:
                    continue
                card = max(free, key=lambda n: _probability(c.reading, n))
                in_trick = any(p.seat == c.zone and p.card == card for p in game.trick_plays)
                if _is(sure_card(c.reading), card) or (
                        in_trick and _probability(c.reading, card) >= MAY_BE_ON_TABLE) or (
                        in_trick and c.reading.kind == "unknown"
                        and _among_guesses(c.reading, card)):
                    self.table.count(c, card, r, mine[card], c.zone)
        # more scoring cards lay in the row at a restart than one reveal can be: last round's
        # row, still lying there; none of them is a new reveal
        at_start = [c for c in self.table if c.in_row and c.at_start and c.status != "counted"]
        if len(at_start) > LEFTOVER_ROW:
            for c in at_start:
                if c.status == "waiting" and c.named is None:
                    c.status = "ignored"

    def _replace_stand_ins(self, game: Game) -> None:
        """A card read surely as one a person named in its place is that card, where what the
        person named was a stand-in: a card the camera never saw, or the box in a seat's place
        it could not read (a glare, say) when that seat's last card is the one named. The card
        takes the count over, and the stand-in is no card of the game. (A second card in the
        scoring row read as one named there is asked about: the row holds many cards.)"""
        r = game.round_index
        for c in self.table.waiting():
            read = sure_card(c.reading)
            if c.named is not None or read is None:
                continue
            stands: Stands | None
            if c.in_row:
                stands, seat = scoring_of(read), None
            elif isinstance(c.zone, int):
                stands, seat = number_of(read), c.zone
            else:
                continue
            old = None if stands is None else self.table.standing_for(r, stands, seat)
            if stands is None or old is None or not self._stand_in(old, stands, game):
                continue
            self.table.count(c, stands, r, old.trick, old.seat)
            old.status = "ignored"

    def _stand_in(self, old: Card, stands: Stands, game: Game) -> bool:
        if not old.by_person or old.confirmed or _is(sure_card(old.reading), stands):
            return False
        if not old.seen:
            return True
        latest = max((c.trick for c in self.table.counted(game.round_index)
                      if c.seat == old.seat), default=-1)
        return old.seat is not None and old.trick == latest

    def _lying(self, r: int, stands: Stands, seat: int | None = None) -> bool:
        c = self.table.standing_for(r, stands, seat)
        return c is not None and c.present

    def _next(self, game: Game, t: float) -> Apply | None:
        """The next certain event, in the game's order."""
        if self._fixes:
            fix = self._fixes.pop(0)
            return Apply(fix.event, fix.card.track, _learned(fix.card, fix.stands))
        if game.trick_value is None:
            step = self._reveal(game, t)
            if step is not None:
                return step
        return self._play(game)

    def _row_due(self, game: Game, t: float) -> list[Card]:
        """The waiting scoring cards of the reveal due, once settled (zeros first)."""
        row = self.table.waiting("scoring")
        if not row or (t - max(c.t for c in row) < SCORING_SETTLE_S - 1e-6
                       and not any(c.named is not None for c in row)):
            return []
        # zeros first (they lie across the value card: laid first), and with them the cards
        # neither named nor read surely (any may be a zero: the value card would close the
        # reveal without it), in the order the camera first saw them (its tracks are numbered
        # so; a card read later may still have come first); then a card a person named (the
        # trick's, though the camera saw it late or never); then the sure value card
        def rank(c: Card) -> tuple[bool, bool, int]:
            if _zero_read(c) or (c.named is None and sure_card(c.reading) is None):
                return False, c.track < 0, c.track if c.track >= 0 else c.order
            return True, c.named is None, c.order

        return sorted(row, key=rank)

    def _reveal(self, game: Game, t: float) -> Apply | None:
        """The next scoring card of the reveal due. A card seen late, not named, may be the
        next trick's: it waits, and a card a person named for this trick goes first (asked
        about a late card read as one zero, the person named the other, unseen: it sorted
        behind the late card, which was asked about again for ever)."""
        late = False
        for c in self._row_due(game, t):
            if c.named is None and self._late(c, game):
                late = True
                continue
            card = self._certain_scoring(c, game)
            if card is None or (late and c.named is None):
                return None
            return Apply(ScoringRevealed(card), c.track, _learned(c, card))
        return None

    def _play(self, game: Game) -> Apply | None:
        turn = game.to_play()
        for c in self.table.waiting():
            if not isinstance(c.zone, int) or c.zone not in turn:
                continue
            if any(o.zone == c.zone and o.order < c.order for o in self.table.waiting()):
                continue  # an earlier card of that seat comes first
            card = self._certain_number(c, game, c.zone)
            if card is not None:
                return Apply(CardPlayed(c.zone, card), c.track, _learned(c, card))
        return None

    def _certain_scoring(self, c: Card, game: Game) -> ScoringCard | None:
        if c.named is not None:
            return c.named if isinstance(c.named, ScoringCard) and game.is_legal(
                ScoringRevealed(c.named)) else None
        if c.refused or c.reading is None:
            return None
        card, _ = narrow(c.reading, lambda cand: _legal_scoring(game, cand))
        return card if isinstance(card, ScoringCard) else None

    def _certain_number(self, c: Card, game: Game, seat: int) -> int | None:
        if c.named is not None:
            return c.named if isinstance(c.named, int) and game.is_legal(
                CardPlayed(seat, c.named)) else None
        if c.refused or c.reading is None:
            return None
        card, _ = narrow(c.reading, lambda cand: _legal_number(game, seat, cand))
        return card if isinstance(card, int) else None

    def _trick_cards(self, game: Game) -> list[Card]:
        """The counted cards of the trick in play (the plays the game has for it)."""
        r, k = game.round_index, game.trick_index
        return [c for c in self.table.counted(r) if c.seat is not None and c.trick == k]

    def _late(self, c: Card, game: Game) -> bool:
        """Seen after the trick's cards were played (or taken away): it may be the next
        trick's."""
        plays = self._trick_cards(game)
        if not plays:
            return False
        cleared = not any(p.present for p in plays)
        return cleared or c.t > min(p.t for p in plays) + SCORING_LATE_S

    def _late_row(self, game: Game) -> list[Card]:
        return [c for c in self.table.waiting("scoring") if self._late(c, game)]

    # -- questions ------------------------------------------------------------------------------

    def _questions(self, game: Game, t: float) -> list[Question]:
        out: list[Question] = []
        if game.trick_value is None:
            out += self._scoring_questions(game, t)
        out += self._doubted(game)
        out += self._play_questions(game, t)
        out += self._other_questions(game, t)
        return [q for q in out if self._waved.get(q.key) != self.table.arrivals]

    def _where(self, game: Game) -> tuple[int, int, str]:
        r, k = game.round_index, game.trick_index
        return r, k, f"trick {k + 1} of round {r + 1}"

    def _scoring_questions(self, game: Game, t: float) -> list[Question]:
        r, k, where = self._where(game)
        remaining = game.remaining_scoring()
        row = self._row_due(game, t)
        first = row[0] if row else None
        if first is not None and (first.named is None and self._late(first, game)):
            ranked = _ranked(first.reading, remaining)
            return [Question(
                f"value:{r}:{k}",
                f"Which scoring card was revealed in {where}? The camera saw one only after the "
                f"trick's cards were played (read as {_read_as(first.reading)}).",
                _choices(ranked, scoring=True), None, game.leader, r, k, first.track, "scoring")]
        if first is not None and self._awaits(first, game):
            return []
        if first is not None and self._certain_scoring(first, game) is None:
            why = _why(first, game, scoring=True)
            choices = _choices(_ranked(first.reading, remaining), scoring=True,
                               none="Not a new scoring card")
            misread = self._read_elsewhere(first, game)
            if misread is not None:
                s, other = misread
                why += f" The scoring card of trick {other.trick + 1} counts as {label(s)}."
                choices = (Choice(choice_id(s), f"{label(s)} (then the scoring card of trick "
                                  f"{other.trick + 1} was another)"), *choices)
            return [Question(
                f"card:{first.track}", f"Which scoring card was revealed in {where}?{why}",
                choices, None, game.leader, r, k, first.track, "scoring")]
        plays = self._trick_cards(game)
        waiting_plays = [c for c in self.table.waiting() if isinstance(c.zone, int)]
        cleared = bool(plays) and not any(p.present for p in plays)
        oldest = min([p.t for p in plays] + [c.t for c in waiting_plays], default=None)
        if not row and oldest is not None and (cleared or t - oldest >= MISSING_GRACE_S):
            leader = game.leader if game.leader is not None else 0
            return [Question(
                f"value:{r}:{k}",
                f"Which scoring card did {_name(game, leader)} reveal in {where}? The camera "
                "did not see it.", _choices([(s, 0.0) for s in remaining], scoring=True,
                                            none="Not revealed yet"),
                None, leader, r, k, None, "scoring")]
        return []

    def _play_questions(self, game: Game, t: float) -> list[Question]:
        r, k, where = self._where(game)
        out = []
        turn = game.to_play()
        waiting = [c for c in self.table.waiting() if isinstance(c.zone, int)]
        for seat in turn:
            mine = [c for c in waiting if c.zone == seat]
            legal = sorted(game.playable_cards())
            if mine:
                c = mine[0]
                if self._certain_number(c, game, seat) is None and not self._awaits(c, game):
                    legal_now = [n for n in legal if game.is_legal(CardPlayed(seat, n))]
                    choices = _choices(_ranked(c.reading, legal_now), scoring=False,
                                       none="Not a card")
                    why, misread = _why(c, game, scoring=False), self._read_elsewhere(c, game)
                    if misread is not None:
                        n, other = misread
                        who, trick = _name(game, other.seat or 0), other.trick + 1
                        why += f" {who}'s card in trick {trick} counts as {n}."
                        choices = (Choice(choice_id(n), f"{n} (then {who}'s card in trick "
                                          f"{trick} was another)"), *choices)
                    out.append(Question(
                        f"card:{c.track}", f"Which card did {_name(game, seat)} play in "
                        f"{where}?{why}", choices, None, seat, r, k, c.track, "number"))
                continue
            # a later seat's card says this seat played before it, if it reads as a number
            # card: a glare or a shadow boxed in that place says nothing
            later = [c for c in waiting if c.zone in _after(game, seat) and _a_number(c)]
            plays = self._trick_cards(game)
            cleared = bool(plays) and not any(p.present for p in plays)
            if cleared or any(t - c.t >= TURN_GRACE_S for c in later):
                # a card the camera sees in another place is an unlikely answer: offered last
                elsewhere = {number_of(read) for c in later if (read := sure_card(c.reading))}
                options = [n for n in legal if game.is_legal(CardPlayed(seat, n))]
                options.sort(key=lambda n: n in elsewhere)
                out.append(Question(
                    f"play:{r}:{k}:{seat}",
                    f"Which card did {_name(game, seat)} play in {where}? The camera did not "
                    "see it.", _choices([(n, 0.0) for n in options], scoring=False,
                                        none="Not played yet"),
                    None, seat, r, k, None, "number"))
        return out

    def _read_elsewhere(self, c: Card, game: Game) -> tuple[Any, Card] | None:
        """The card this one reads as surely (of its place's kind), and the card counted as it
        on the camera's read alone (`_misread_as`): one of the two reads is wrong."""
        read = sure_card(c.reading)
        if read is None or c.overruled == read:
            return None
        stands = scoring_of(read) if c.in_row else number_of(read)
        other = None if stands is None else self._misread_as(game, stands)
        return None if other is None else (stands, other)

    def _awaits(self, c: Card, game: Game) -> bool:
        """Named as a card counted for another, which is asked about first (`_doubted`)."""
        return c.named is not None and any(
            o.doubted and o.counts_as == c.named for o in self.table.counted(game.round_index))

    def _doubted(self, game: Game) -> list[Question]:
        """Which card a seat played whose count a person named for another card: every card
        not played this round, the reader's likelier ones first, or the card it counts as
        after all (the other card is then asked about again)."""
        out = []
        for c in self.table.counted(game.round_index):
            if not c.doubted or c.counts_as is None:
                continue
            n, where = label(c.counts_as), f"trick {c.trick + 1} of round {c.round + 1}"
            keep = Choice(choice_id(c.counts_as), f"{n} (the other card is asked about again)")
            if c.seat is None:
                options = _ranked(c.reading, game.remaining_scoring())
                out.append(Question(
                    f"again:{c.track}", f"Which scoring card was revealed in {where}? The "
                    f"camera read {n}, and it was counted so, but a scoring card revealed "
                    f"later was named as the {n}.", (keep, *_choices(options, scoring=True)),
                    None, None, c.round, c.trick, c.track, "scoring"))
                continue
            by = next((_name(game, w.zone) for w in self.table.waiting()
                       if w.named == c.counts_as and isinstance(w.zone, int)), "another player")
            options = _ranked(c.reading, sorted(game.playable_cards()))
            out.append(Question(
                f"again:{c.track}", f"Which card did {_name(game, c.seat)} play in {where}? "
                f"The camera read {n}, and it was counted so, but {by}'s card was named as "
                f"the {n}.", (keep, *_choices(options, scoring=False)), None, c.seat, c.round,
                c.trick, c.track, "number"))
        return out

    def _other_questions(self, game: Game, t: float) -> list[Question]:
        r, k, where = self._where(game)
        out = []
        turn = game.to_play()
        for c in self.table:
            if not c.present or c.reading is None:
                continue
            read = sure_card(c.reading)
            if c.status == "counted" and c.round == r and read is not None \
                    and read != c.overruled and not c.confirmed and not c.doubted:
                now = scoring_of(read) if c.seat is None else number_of(read)
                if now is not None and now != c.counts_as and c.counts_as is not None:
                    place = ("in the scoring row" if c.seat is None
                             else f"in front of {_name(game, c.seat)}")
                    out.append(Question(
                        f"again:{c.track}", f"The card {place} was counted as "
                        f"{label(c.counts_as)} and now reads as {label(now)}. Which is it?",
                        (Choice(choice_id(c.counts_as), label(c.counts_as)),
                         Choice(choice_id(now), label(now))),
                        None, c.seat, c.round, c.trick, c.track))
                continue
            if c.status != "waiting":
                continue
            if isinstance(c.zone, int) and c.zone not in turn and any(
                    p.seat == c.zone for p in game.trick_plays) and t - c.t >= TURN_GRACE_S:
                played = next(p.card for p in game.trick_plays if p.seat == c.zone)
                if self._lying(r, played, c.zone):
                    who = _name(game, c.zone)
                    out.append(Question(
                        f"two:{c.track}", f"{who} has two cards out in {where}: {played} "
                        f"counts, the other is no card of this trick. If {who} played the "
                        "other, correct the trick on the scoresheet.",
                        (Choice("ok", "OK"),), "ok", c.zone, r, k, c.track))
            elif c.zone is None and read is not None and read.kind == "number":
                out.append(Question(
                    f"whose:{c.track}", f"Card {read.value} lies outside every seat's place: "
                    "whose is it?", (*(Choice(f"seat:{s}", _name(game, s)) for s in turn),
                                     Choice("none", "Nobody's: ignore it")),
                    None, None, r, k, c.track))
            elif (c.in_row and read is not None and read.kind == "number") or (
                    isinstance(c.zone, int) and read is not None and read.kind == "scoring"):
                what = "number card" if read.kind == "number" else "scoring card"
                place = (f"{_name(game, c.zone)}'s place" if isinstance(c.zone, int)
                         else "the scoring row")
                out.append(Question(
                    f"where:{c.track}", f"A {what} ({label(scoring_of(read) or read.value)}) "
                    f"lies in {place}: please move it.", (Choice("ok", "OK"),), "ok",
                    c.zone if isinstance(c.zone, int) else None, r, k, c.track))
        return out


# --- helpers -------------------------------------------------------------------------------------


def _after(game: Game, seat: int) -> set[int]:
    """The seats that play after `seat` in the trick in play and have not played yet (their card
    on the table says `seat` played before them). None in the simultaneous variant."""
    if game.setup.variant.simultaneous or game.leader is None:
        return set()
    order = [(game.leader + i) % game.n for i in range(game.n)]
    played = {p.seat for p in game.trick_plays}
    return {s for s in order[order.index(seat) + 1:] if s not in played}


def _still_in(c: Card, game: Game) -> bool:
    if c.round != game.round_index:
        return True
    if c.seat is None:
        return c.counts_as in game.revealed
    return c.counts_as in _played_by(game, c.seat)


def _played_by(game: Game, seat: int) -> dict[int, int]:
    """Number cards `seat` played this round -> the trick (0-based) they were played in."""
    out = {p.card: t.index for t in game.tricks_this_round for p in t.plays if p.seat == seat}
    out.update({p.card: game.trick_index for p in game.trick_plays if p.seat == seat})
    return out


def _trick_of_reveal(game: Game, card: ScoringCard) -> int:
    for t in game.tricks_this_round:
        if card in t.scoring:
            return t.index
    return game.trick_index


def _reveal_index_trick(game: Game, correction: ScoringCorrected) -> int:
    """The trick of the index-th reveal of the correction's round."""
    count = 0
    rounds = [*game.rounds]
    tricks = rounds[correction.round].tricks if correction.round < len(rounds) else \
        game.tricks_this_round
    for t in tricks:
        if count + len(t.scoring) > correction.index:
            return t.index
        count += len(t.scoring)
    return game.trick_index


def _correction(game: Game, card: Card, stands: Stands) -> RecordEvent:
    """The correction of a counted card the camera read again (the referee stamps its time)."""
    if card.seat is None:
        assert isinstance(stands, ScoringCard)
        revealed = list(game.revealed) if card.round == game.round_index else [
            s for t in game.rounds[card.round].tricks for s in t.scoring]
        index = revealed.index(card.counts_as) if card.counts_as in revealed else 0
        return ScoringCorrected(card.round, index, stands, why="the camera read it again")
    assert isinstance(stands, int)
    return PlayCorrected(card.round, card.trick, card.seat, stands,
                         why="the camera read it again")


def _check(game: Game, event: CardPlayed | ScoringRevealed) -> None:
    from .rules import RuleError

    try:
        game.check(event)
    except RuleError as err:
        raise AnswerError(str(err)) from err


def _legal_scoring(game: Game, cand: CardId) -> ScoringCard | None:
    card = scoring_of(cand)
    return card if card is not None and card in game.remaining_scoring() else None


def _legal_number(game: Game, seat: int, cand: CardId) -> int | None:
    n = number_of(cand)
    return n if n is not None and game.is_legal(CardPlayed(seat, n)) else None


def _probability(reading: Reading | None, stands: Stands) -> float:
    if reading is None:
        return 0.0
    for cand, p in reading.candidates:
        if (scoring_of(cand) if isinstance(stands, ScoringCard) else number_of(cand)) == stands:
            return p
    return 0.0


def _among_guesses(reading: Reading, stands: Stands) -> bool:
    """One of the reader's first guesses (vision.types.GUESSES) is this card."""
    return any(_is(cand, stands) for cand, _ in reading.candidates[:GUESSES])


def _is(card: CardId | None, stands: Stands) -> bool:
    if card is None:
        return False
    return (scoring_of(card) if isinstance(stands, ScoringCard) else number_of(card)) == stands


def _a_number(c: Card) -> bool:
    """Named, or read surely, as a number card."""
    if c.named is not None:
        return isinstance(c.named, int)
    read = sure_card(c.reading)
    return read is not None and read.kind == "number"


def _zero_read(c: Card) -> bool:
    if isinstance(c.named, ScoringCard):
        return c.named.is_zero
    read = sure_card(c.reading)
    return read is not None and read.is_zero


def _ranked(reading: Reading | None, legal: list[Any]) -> list[tuple[Any, float]]:
    """Every legal card, the reader's likelier ones first."""
    return sorted(((s, _probability(reading, s)) for s in legal), key=lambda x: -x[1])


def _choices(ranked: list[tuple[Any, float]], scoring: bool, none: str | None = None
             ) -> tuple[Choice, ...]:
    out = [Choice(choice_id(s), label(s)) for s, _ in ranked]
    if none is not None:
        out.append(Choice("none", none))
    return tuple(out)


def _best_guess(reading: Reading | None) -> Stands | None:
    """The card a reading ranks first, sure or not."""
    if reading is None or not reading.candidates:
        return None
    cand = reading.candidates[0][0]
    return scoring_of(cand) or number_of(cand)


def _read_as(reading: Reading | None) -> str:
    shown = _best_guess(reading)
    if shown is None:
        return "nothing"
    assert reading is not None
    return f"{label(shown)}, {reading.candidates[0][1]:.0%} sure"


def _why(c: Card, game: Game, scoring: bool) -> str:
    if c.refused:
        return f" The camera's read was refused: {c.refused}."
    read = sure_card(c.reading)
    if read is not None:
        shown = scoring_of(read) if scoring else number_of(read)
        if shown is not None:
            return f" The camera read {label(shown)}, which the rules do not allow now."
    return f" The camera is not sure (best guess {_read_as(c.reading)})."


def _name(game: Game, seat: int) -> str:
    return game.setup.players[seat]


def _learned(card: Card, stands: Stands) -> str | None:
    """A card a person named that the camera saw: keep its crop under the right label."""
    return card_label(stands) if card.named is not None and card.reading is not None else None
