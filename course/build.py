"""``python -m course.build [--check]``: regenerate everything derived from the single sources.

Sources: the ``solutions`` package, the solved notebooks in ``solutions/notebooks`` and the notebooks' catalogs.
Generated: the learner notebooks in ``notebooks/`` (and ``notebooks/ru/``, with ``solutions/notebooks/ru/``) and the package-backed solution cells of the
solved notebooks. With ``--check`` nothing is written and the exit status is 1 when anything is
out of date (the test suite runs this check, so a stale generated file fails CI).
"""

import argparse
import os
import sys

from course.notebooks import build
from grader.paths import NOTEBOOKS_DIR, needs_a_clone


def main(argv=None):
    """Command line; returns the exit status (1 when ``--check`` finds drift, 2 in an installed kit: nothing to build)."""
    parser = argparse.ArgumentParser(prog="python -m course.build", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report out-of-date generated files; write nothing")
    parser.add_argument("--force", action="store_true",
                        help="also overwrite learner notebooks whose exercise cells hold work (that work is lost)")
    args = parser.parse_args(argv)
    if not os.path.isdir(NOTEBOOKS_DIR):  # an installed kit: never write the learner notebooks into site-packages
        print("error: " + needs_a_clone("python -m course.build", "writes the learner notebooks", NOTEBOOKS_DIR),
              file=sys.stderr)
        return 2
    changed, kept = build(check=args.check, force=args.force)
    for path in changed:
        print(f"{'out of date' if args.check else 'written'}: {path}")
    for path in kept:
        print(f"holds learner work, left alone: {path} (use --force to replace it with the shipped stub)")
    if not changed and not kept:
        print("every generated file is up to date")
    return 1 if (args.check and (changed or kept)) else 0


if __name__ == "__main__":
    sys.exit(main())
