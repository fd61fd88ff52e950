"""Rewrite tests/data/regret_baseline.json after an intended change of a policy's regret
(or when a policy is added): ``python tests/regenerate_baseline.py [POLICY ...]``.

Without names every registered policy is rerun (about a minute plus compiles); the
configurations and the test are described in tests/regression.py.  Commit the new file
with the change that caused it and say why in the commit message.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import regression  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policies", nargs="*", help="only these policies (default: every registered one)")
    args = parser.parse_args(argv)
    regression.regenerate(args.policies or None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
