"""The reader's names for a card (companion.games.names): what Attacke and the solo game read."""

from __future__ import annotations

from companion.games.attacke.rules import CARD_NAMES
from companion.games.names import candidates, certain_name, probability, sure_name
from vision.types import Reading

LINE = 0.9


def read(*cands: tuple[str, float], sure: bool = False) -> Reading:
    """The given candidates, the rest of the probability spread over Attacke's other cards."""
    total = sum(p for _, p in cands)
    rest = [n for n in CARD_NAMES if n not in {c for c, _ in cands}]
    named = (*cands, *((n, (1 - total) / len(rest)) for n in rest))
    return Reading.of_name(cands[0][0] if sure else None, cands[0][1], named, LINE)


def red(name: str) -> bool:
    return name.startswith("red-")


def test_a_card_never_seen_has_no_names():
    assert candidates(None) == [] and sure_name(None) is None
    assert probability(None, "red-3") == 0.0 and certain_name(None, red) is None


def test_the_probability_of_a_name_is_the_reader_s():
    r = read(("red-3", 0.6), ("blue-3", 0.35))
    assert candidates(r)[:2] == [("red-3", 0.6), ("blue-3", 0.35)]
    assert probability(r, "blue-3") == 0.35 and probability(r, "not-a-card") == 0.0


def test_a_sure_read_is_certain_only_where_the_rules_allow_it():
    r = read(("red-3", 0.99), sure=True)
    assert certain_name(r, red) == "red-3"
    assert certain_name(r, lambda n: not red(n)) is None  # refused: the table is asked


def test_the_rules_lift_an_unsure_read_whose_doubt_they_rule_out():
    # 0.35 of the doubt lies on a blue card the contest's colour rules out: red 3 is certain
    assert certain_name(read(("red-3", 0.6), ("blue-3", 0.35)), red) == "red-3"


def test_the_rules_do_not_lift_a_read_doubted_with_a_legal_card():
    assert certain_name(read(("red-3", 0.6), ("red-2", 0.35)), red) is None
    # the one legal card holds next to nothing of the read: the rules rule out what was read
    assert certain_name(read(("blue-3", 0.6), ("blue-2", 0.35)), lambda n: n == "shield-10") \
        is None
