"""Child of the crash test: appends the events of deterministic random games to a store,
printing each committed (game, seq) until it is killed."""

import random
import sys

from companion.games.tightrope.randgame import random_game
from companion.store import Store


def game_events(game_id: int) -> list:
    return random_game(random.Random(game_id), 3 + game_id % 3)


def main(path: str) -> None:
    store = Store(path)
    while True:
        game_id = store.unfinished_game()
        if game_id is None:
            game_id = store.new_game(game_events(store_next_id(store))[0])
        events = game_events(game_id)
        done = len(store.events(game_id))
        for event in events[done:]:
            seq = store.append(game_id, event)
            print(game_id, seq, flush=True)
        store.finish(game_id)


def store_next_id(store: Store) -> int:
    return store._read("SELECT COALESCE(MAX(id), 0) + 1 FROM games")[0][0]


if __name__ == "__main__":
    main(sys.argv[1])
