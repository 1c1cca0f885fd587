"""Check or rewrite the verdict ledger (:mod:`harness.ledger`) in ``docs/ledger``.

    python -m tools.ledger            # recompute every reward's ledger; list moved items; exit 1 if any moved
    python -m tools.ledger --write    # rewrite the files and docs/ledger/README.md (what ``tox -e ledger`` runs)
    python -m tools.ledger --reward rule --limit 0

The commit that rewrites the ledger says why each verdict moved; README.md shows the summary per set.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.ledger import (
    LEDGER_REWARDS,
    compute,
    moved,
    read_ledger,
    report,
    summary_markdown,
    write_ledger,
)

# the checkout's ledger (the package may be installed elsewhere: the folder is found from this script, not from it)
LEDGER_DIR = Path(__file__).resolve().parents[1] / "docs" / "ledger"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the ledger files and their README")
    parser.add_argument("--reward", action="append", default=None, help="only this ledger reward spec (repeatable)")
    parser.add_argument("--dir", type=Path, default=LEDGER_DIR, help="the ledger folder (default docs/ledger)")
    parser.add_argument("--limit", type=int, default=200, help="moved items listed per reward (0: summary only)")
    args = parser.parse_args(argv)
    chosen = [r for r in LEDGER_REWARDS if args.reward is None or r.spec in args.reward]
    if args.reward and len(chosen) != len(args.reward):
        parser.error(f"--reward must be among: {', '.join(r.spec for r in LEDGER_REWARDS)}")
    ledgers, changes = {}, {}
    for ledger_reward in LEDGER_REWARDS:
        path = args.dir / ledger_reward.file
        if ledger_reward not in chosen:
            if path.exists():
                ledgers[ledger_reward.spec] = read_ledger(path)[1]
            continue
        old = read_ledger(path)[1] if path.exists() else []
        new = compute(ledger_reward.spec)
        ledgers[ledger_reward.spec] = new
        changes[ledger_reward.spec] = moved(old, new)
        for line in report(ledger_reward.spec, changes[ledger_reward.spec], limit=args.limit):
            print(line)
        if args.write:
            write_ledger(path, ledger_reward.spec, new)
    if args.write:
        (args.dir / "README.md").write_text(summary_markdown(ledgers, changes), encoding="utf-8")
        return 0
    return 1 if any(changes.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
