"""``python -m course.visible_checks [--check]``: what the reference's steps give for the visible cases' calls.

A kit without the reference (a student release) cannot run steps 1 to 3, yet its self-check and grader hand the
visible observe and retry-loop cases the call, problems and observation those steps give
(``grader.judging.reference_steps``). They read them from ``grader/judging/visible_checks.json``, which this
command regenerates from the reference after the visible cases or the reference change. ``--check`` writes nothing
and exits 1 when the file is stale (``tests/test_selfcheck.py`` checks it on every run).
"""

import argparse
import json
import sys

from grader.paths import VISIBLE_CHECKS_PATH


def visible_table(calls):
    """``{raw: {"call": ..., "problems": [...], "observation": ...}}`` for each raw call, from the reference.

    Args:
        calls: the visible cases' raw calls, each with the registry it is checked against (``{raw: tools}``,
            ``grader.judging.visible_cases.visible_calls``).
    Raises:
        LookupError: the reference is not installed (a student release cannot regenerate its own table).
    """
    from grader.judging import reference_steps

    if not reference_steps.available():
        raise LookupError(reference_steps.UNCHECKED)
    table = {}
    for raw, tools in sorted(calls.items()):
        if raw.startswith(reference_steps.TOOL_CALL_KEY):  # a provider's tool call (notebook 7), read by the adapters
            tool_call = json.loads(raw[len(reference_steps.TOOL_CALL_KEY):])
            call, observation = reference_steps.check_tool_call(tool_call, tools)
            converted = reference_steps.raw_of_tool_call(tool_call)
            problems = reference_steps.problems_for(converted, tools)[1] if converted is not None else [observation]
            table[raw] = {"call": call, "problems": problems, "observation": observation}
            continue
        call, problems = reference_steps.problems_for(raw, tools)
        table[raw] = {"call": call, "problems": problems, "observation": reference_steps.check(raw, tools)[1]}
    return table


def table_text(table):
    """The file's text (str): sorted keys, one-space indents, UTF-8 as written, a final newline."""
    return json.dumps(table, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_visible_table(calls, path=VISIBLE_CHECKS_PATH):
    """Record what the reference's steps give for ``calls`` (``{raw: tools}``) in ``path`` (``visible_table``)."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(table_text(visible_table(calls)))


def main(argv=None):
    """Command line; returns 0, 1 when ``--check`` finds the file stale, 2 without the reference."""
    from grader.judging.visible_cases import visible_calls

    parser = argparse.ArgumentParser(prog="python -m course.visible_checks", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the file differs from what would be written")
    args = parser.parse_args(argv)
    try:
        table = visible_table(visible_calls())
    except LookupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = table_text(table)
    if args.check:
        try:
            with open(VISIBLE_CHECKS_PATH, encoding="utf-8") as handle:
                current = handle.read()
        except OSError:
            current = None
        print("grader/judging/visible_checks.json is current." if current == text else
              "grader/judging/visible_checks.json is stale: run python -m course.visible_checks")
        return 0 if current == text else 1
    with open(VISIBLE_CHECKS_PATH, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"Wrote what the reference gives for {len(table)} visible calls to grader/judging/visible_checks.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
