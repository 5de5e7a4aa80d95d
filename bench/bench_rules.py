"""Replay 1,000 random games from their JSON Lines records: how long does scoring take?

Run: .venv/bin/python -m bench.bench_rules  (results recorded in docs/PERFORMANCE.md)
"""

from __future__ import annotations

import random
import time

from companion.games.tightrope.log import fold_record
from companion.games.tightrope.randgame import random_game
from companion.games.tightrope.views import replay_json
from companion.record import dumps, iter_lines


def main(n_games: int = 1000) -> dict[str, float]:
    rng = random.Random(2026)
    records = [[dumps(e) for e in random_game(rng)] for _ in range(n_games)]
    n_events = sum(len(r) for r in records)
    t0 = time.perf_counter()
    for lines in records:
        replay_json(fold_record(iter_lines(lines)).game)
    elapsed = time.perf_counter() - t0
    result = {
        "games": n_games,
        "events": n_events,
        "seconds": round(elapsed, 3),
        "ms_per_game": round(1000 * elapsed / n_games, 3),
        "us_per_event": round(1e6 * elapsed / n_events, 2),
    }
    print("replay of random games (parse JSON Lines + apply rules + replay JSON):")
    for key, value in result.items():
        print(f"  {key:>13}: {value}")
    return result


if __name__ == "__main__":
    main()
