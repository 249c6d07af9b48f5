"""docs/sources.md lists every reference the course cites, its Python snippets hold, and every claim is dated.

What counts as a reference (URLs, ``owner/repo #N``, RFC, PEP and CVE numbers, and bare ``name #N`` that lack
an owner) and which files are read is defined once, in ``course/sources.py``; these tests run that check, prove
the extraction on known inputs, run the page's ``# Check:`` snippets on this Python, and check the dates.
"""

import os
import re
import subprocess
import sys

import pytest

from course import sources
from grader.paths import KIT_ROOT

ROOT = KIT_ROOT  # the repository (grader.paths knows where it is)
PAGE = os.path.join(ROOT, sources.SOURCES_PAGE)


def _page():
    with open(PAGE, encoding="utf-8") as handle:
        return handle.read()


def _checked_snippets():
    return [block for block in re.findall(r"```python\n(.*?)```", _page(), re.S) if block.startswith("# Check:")]


def _snippet_id(block):
    first = block.splitlines()[0][len("# Check:"):].strip()
    return re.sub(r"[^a-z0-9]+", "-", first.lower())[:50].strip("-")


def test_every_cited_reference_is_listed_in_the_sources_page():
    problems = sources.unlisted(ROOT)
    assert not problems, (f"{len(problems)} reference(s) the course cites are missing from docs/sources.md:\n"
                          + sources.explain(problems))


def test_the_check_reads_notebooks_answers_case_docstrings_and_data():
    found = sources.course_references(ROOT)
    files = {reference.where.split(",")[0] for reference in found}
    keys = {reference.key for reference in found}
    assert "solutions/notebooks/01_parsing.ipynb" in files  # RFC 8259, in a markdown cell
    assert "solutions/answers/01_parsing.md" in files  # NousResearch/hermes-agent #25333
    assert "grader/judging/cases/tool_call/test_02_names.py" in files  # vercel/ai #2786, in a Why: line
    assert "grader/judging/cases/tool_call/data/real_calls.json" in files  # every entry's source_url
    assert {"vercel/ai #2786", "nousresearch/hermes-agent #25333", "RFC 8259", "CVE-2020-10735"} <= keys
    assert not any(where.startswith(("notebooks/", "tests/")) for where in files)  # generated, and not course text


@pytest.mark.parametrize("text, keys", [
    ("see https://github.com/vercel/ai/issues/2786.", ["vercel/ai #2786"]),
    ("(https://github.com/vllm-project/vllm/pull/54964)", ["vllm-project/vllm #54964"]),
    ("https://github.com/json-schema-org/community/discussions/512#discussioncomment-1", ["json-schema-org/community #512"]),
    ("(vllm-project/vllm #54964, #25729 and #1)", ["vllm-project/vllm #54964", "vllm-project/vllm #25729",
                                                  "vllm-project/vllm #1"]),
    ("pydantic/pydantic-ai#1654", ["pydantic/pydantic-ai #1654"]),
    ("QwenLM/qwen-code #288", ["qwenlm/qwen-code #288"]),
    ("https://docs.python.org/3/library/json.html#json.JSONDecodeError", ["url:docs.python.org/3/library/json.html"]),
    ("<http://www.docs.python.org/3/library/json.html/>", ["url:docs.python.org/3/library/json.html"]),
    ("RFC 8259, rfc 7159 is not one, PEP 8 and cve-2020-10735", ["RFC 8259", "PEP 8", "CVE-2020-10735"]),
    ("http://127.0.0.1:8888/lab and https://example.com/x", []),
    ("x = 1  # 1 and a#2 and `#3`", []),
    ("a path: grader/judging/cases/tool_call/test_01_parsing.py", []),
])
def test_reference_extraction(text, keys):
    assert [reference.key for _, reference in sources.find_references(text)] == keys


def test_a_bare_repository_citation_is_reported_with_its_fix():
    found = [reference for _, reference in sources.find_references("models send null (pydantic-ai #822).")]
    assert [(r.key, r.needs_owner) for r in found] == [("pydantic-ai #822", True)]
    message = sources.explain([sources.Reference("pydantic-ai #822", "pydantic-ai #822", "grader/judging/cases/x.py, line 3",
                                                 needs_owner=True)])
    assert message == ("- grader/judging/cases/x.py, line 3: 'pydantic-ai #822' names a repository without its owner; write it "
                       "as owner/repo #N, then list it in docs/sources.md.")


def test_an_unlisted_reference_is_reported_with_what_to_add(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "sources.md").write_text("| claim | notebook 1 | vercel/ai #2786 | 2026-11-30 |\n")
    (tmp_path / "README.md").write_text("Models invent tools (https://github.com/vercel/ai/issues/2786).\n\n"
                                        "Models send null (pydantic/pydantic-ai #1654).\n")
    problems = sources.unlisted(str(tmp_path))
    assert [(p.key, p.where) for p in problems] == [("pydantic/pydantic-ai #1654", "README.md, line 3")]
    assert sources.explain(problems) == (
        "- README.md, line 3: 'pydantic/pydantic-ai #1654' is not in docs/sources.md; add a row with the claim it "
        "supports (one line), where the course makes it (README.md), the source (pydantic/pydantic-ai #1654) and the "
        "date you checked it.")


def test_every_snippet_label_has_a_checked_snippet():
    labels = re.findall(r"^S\d+\.$", _page(), re.M)
    assert labels and len(labels) == len(_checked_snippets()), \
        "each 'S<n>.' snippet in docs/sources.md must start with a '# Check: <the claim>' line"


@pytest.mark.parametrize("snippet", _checked_snippets(), ids=_snippet_id)
def test_python_snippet_holds(snippet):
    result = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=120)
    last = (result.stderr.strip().splitlines() or [""])[-1]
    assert result.returncode == 0, (f"docs/sources.md: '{snippet.splitlines()[0]}' does not hold on Python "
                                    f"{sys.version.split()[0]}: {last}")


def _table_rows_with_dates(text):
    """``(row, date cell)`` for each row of every table whose header has a 'Checked' column.

    A row with more or fewer cells than its header (an unescaped ``|`` in a cell) gets an empty date cell.
    """
    rows, column, width = [], None, 0
    for line in text.splitlines():
        if not line.startswith("|"):
            column = None
            continue
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if column is None:
            column, width = (cells.index("Checked") if "Checked" in cells else -1), len(cells)
        elif column >= 0 and not set("".join(cells)) <= set("-: "):
            rows.append((line, cells[column] if len(cells) == width else ""))
    return rows


def test_every_claim_says_when_it_was_checked():
    rows = _table_rows_with_dates(_page())
    assert len(rows) > 50  # the claims and reports tables are all read
    undated = [row for row, date in rows if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date)]
    assert not undated, ("docs/sources.md: these rows need a date (YYYY-MM-DD) in their Checked column, and as many "
                         "cells as their header (write | inside a cell as \\|):\n" + "\n".join(undated))


def test_undated_and_malformed_rows_are_caught():
    sample = ("| Claim | Where | Source | Checked |\n|---|---|---|---|\n"
              "| a | b | c | 2026-11-30 |\n| a | b | c | soon |\n| `X | None` | b | c | 2026-11-30 |\n"
              "\n| The kit | Why |\n|---|---|\n| d | e |\n")
    assert _table_rows_with_dates(sample) == [("| a | b | c | 2026-11-30 |", "2026-11-30"), ("| a | b | c | soon |", "soon"),
                                              ("| `X | None` | b | c | 2026-11-30 |", "")]
