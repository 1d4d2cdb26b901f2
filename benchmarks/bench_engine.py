"""Engine benchmark: median time to analyse one turn, to replay 10,000 games, and to
find a Coloretto player's best score in the worst case.

Run: ``.venv/bin/python -m benchmarks.bench_engine`` (about a minute). Prints a
Markdown section for docs/benchmarks.md. Games come from ``engine.simulate``
(greedy players, 2-4 seats); generating them is not timed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine import CLOCKWISE, Action, GameState, Seats
from engine.coloretto import Table, Tableau, best_score
from engine.game import GameRecord
from engine.simulate import random_game

TURN_TARGET_US = 50.0
COLORETTO_TARGET_MS = 250.0
"""A page's answer should feel immediate; best_score tries every choice of jokers."""
PLAYERS = ("red", "green", "yellow", "purple")


def make_games(count: int, seed: int) -> list[GameRecord]:
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        players = rng.randint(2, 4)
        seats = Seats({edge: PLAYERS[i] for i, edge in enumerate(CLOCKWISE[:players])})
        games.append(random_game(rng, seats))
    return games


def turn_times_us(games: list[GameRecord], repeats: int) -> list[float]:
    """Per play in the games: the mean over ``repeats`` analyses, in microseconds."""
    times = []
    for game in games:
        state = GameState.start(game.setup)
        for turn in game.turns:
            if turn.action is Action.PLAY:
                assert turn.position is not None
                start = time.perf_counter_ns()
                for _ in range(repeats):
                    state.analyse(turn.player, turn.position)
                times.append((time.perf_counter_ns() - start) / repeats / 1000)
            state = state.apply(turn)
    return times


def replay_seconds(games: list[GameRecord], total: int) -> float:
    start = time.perf_counter()
    for i in range(total):
        games[i % len(games)].replay()
    return time.perf_counter() - start


def coloretto_worst_ms(repeats: int = 5) -> float:
    """Median time of best_score on the hardest tableau: seven colours and three jokers
    (the golden one included), on either table."""
    tableau = Tableau.of({c: 2 for c in "abcdefg"}, jokers=2, golden_joker=1)
    times = []
    for _ in range(repeats):
        for table in Table:
            start = time.perf_counter()
            best_score(tableau, table)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=500, help="distinct simulated games")
    parser.add_argument("--replays", type=int, default=10_000, help="games to replay in all")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    games = make_games(args.games, args.seed)
    times = turn_times_us(games, repeats=20)
    q = statistics.quantiles(times, n=20)
    turns = sum(len(g.turns) for g in games) / len(games)
    seconds = replay_seconds(games, args.replays)
    verdict = "meets" if statistics.median(times) <= TURN_TARGET_US else "MISSES"
    print("## Engine (`python -m benchmarks.bench_engine`)\n")
    print("| measure | figure | target |")
    print("|---|---|---|")
    print(
        f"| analyse one turn, median (p5-p95) | {statistics.median(times):.1f} µs "
        f"({q[0]:.1f}-{q[-1]:.1f} µs) over {len(times)} plays "
        f"| ≤ {TURN_TARGET_US:.0f} µs ({verdict}) |"
    )
    print(
        f"| replay {args.replays:,} games ({turns:.1f} turns each on average) | {seconds:.1f} s "
        f"({seconds / args.replays * 1000:.2f} ms per game) | - |"
    )
    worst = coloretto_worst_ms()
    verdict = "meets" if worst <= COLORETTO_TARGET_MS else "MISSES"
    print(
        f"| Coloretto best score, worst case (7 colours, 3 jokers), median | {worst:.1f} ms "
        f"| ≤ {COLORETTO_TARGET_MS:.0f} ms ({verdict}) |"
    )


if __name__ == "__main__":
    main()
