"""Run every benchmark module bench/bench_*.py (its main()) and print each result as JSON."""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread: what the numbers claim
os.environ.setdefault("OMP_NUM_THREADS", "1")

import importlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    names = sorted(p.stem for p in Path(__file__).parent.glob("bench_*.py"))
    wanted = set(argv if argv is not None else sys.argv[1:])
    failed = 0
    for name in names:
        if wanted and name not in wanted and name.removeprefix("bench_") not in wanted:
            continue
        t0 = time.perf_counter()
        try:
            result = importlib.import_module(f"bench.{name}").main()
        except Exception as exc:  # one broken benchmark must not hide the others
            failed += 1
            print(json.dumps({"bench": name, "error": f"{type(exc).__name__}: {exc}"}))
            continue
        print(json.dumps({"bench": name, "seconds": round(time.perf_counter() - t0, 1),
                          "result": result}), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
