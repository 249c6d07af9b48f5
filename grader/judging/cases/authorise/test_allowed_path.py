"""Notebook 9: validation is not authorisation. A file tool confined to one folder allows a path only where it really
leads: ``..`` and symbolic links resolved, compared by whole components; everything else is refused with a reason."""

import pytest

from grader.judging.expectations import expect_confined
from grader.judging.rule_ids import rule_id
from grader.translations import N_

GROUP = N_("A file tool confined to one folder")
ORDER = 1

# A path the rules allow and one they refuse, each the other's control: a function that answers every path alike
# loses both kinds of case.
ALLOWED_CONTROL = "{notes}"
REFUSED_CONTROL = "../{secret}"

INSIDE_RULE = N_("A path that really leads inside the allowed folder is allowed, and comes back as (real_path, None): the "
               "path joined to the folder when relative, .. and every symbolic link resolved (os.path.realpath).")
INSIDE = {
    "a-file": "{notes}",
    "in-a-folder": "{sub}/{deep}",
    "dot-dot-that-stays-inside": "{sub}/../{notes}",
    "dot-slash": "./{notes}",
    "absolute-inside": "{root}/{sub}/{deep}",
    "a-link-that-stays-inside": "{inside_link}",
    "a-name-starting-with-dots": "..{notes}",
    "a-file-not-made-yet": "{sub}/new-{notes}",
    "the-folder-itself": ".",
}


@rule_id("path.inside")
@pytest.mark.points(1)
@pytest.mark.rule(INSIDE_RULE)
@pytest.mark.parametrize("template", list(INSIDE.values()), ids=list(INSIDE))
def test_a_path_inside_is_allowed_as_its_real_path(harness, template):
    """A path that stays inside, however it is written, is allowed as the real path the tool will open.

    Why: refusing on the spelling (any "..", a leading dot, a file that does not exist yet) blocks work the user asked
    for, and returning the path as sent instead of the real one lets a link decide later what is opened.
    """
    expect_confined(harness.confined(template, REFUSED_CONTROL))


@rule_id("path.inside")
@pytest.mark.points(1)
@pytest.mark.rule(INSIDE_RULE)
@pytest.mark.parametrize("template", ["{notes}", "{sub}/{deep}"], ids=["a-file", "in-a-folder"])
def test_a_folder_reached_through_a_link_is_resolved_too(harness, template):
    """The allowed folder itself is handed over by a path through a symbolic link.

    Why: on macOS /tmp is a link to /private/tmp; a check that resolves the path but not the folder finds every real
    path outside the folder and refuses everything.
    """
    expect_confined(harness.confined(template, REFUSED_CONTROL, via_link=True))


TRAVERSAL_RULE = N_("A path that leads outside the allowed folder is refused with a reason: through .., an absolute path "
                  "elsewhere, or a sibling folder whose name starts like the allowed one (compare whole components of "
                  "the real paths, never strings).")
TRAVERSAL = {
    "dot-dot": "../{secret}",
    "dot-dot-after-a-folder": "{sub}/../../{secret}",
    "many-dot-dots": "../../../../../../../../etc/passwd",
    "absolute-elsewhere": "/etc/passwd",
    "a-sibling-by-prefix": "../{old}/{notes}",
    "absolute-sibling-by-prefix": "{root}-{old}/{notes}",
    "the-folder-above": "..",
}


@rule_id("path.traversal")
@pytest.mark.points(1)
@pytest.mark.rule(TRAVERSAL_RULE)
@pytest.mark.parametrize("template", list(TRAVERSAL.values()), ids=list(TRAVERSAL))
def test_a_path_outside_is_refused(harness, template):
    """A path that leads out of the folder, by .. or by an absolute path or by a name that only starts alike.

    Why: read_file("../../etc/passwd") is a well-formed call; only a check of where the path leads stops it, and
    startswith("/work/data") lets "/work/data-old" through.
    """
    expect_confined(harness.confined(template, ALLOWED_CONTROL))


LINK_RULE = N_("A path that leads outside through a symbolic link is refused: resolve every link (os.path.realpath) "
             "before the check, since the operating system follows them when the tool opens the file.")
LINKS = {
    "a-link-to-a-file-outside": "{outside_link}",
    "through-a-linked-folder": "{up_link}/{secret}",
    "a-link-to-the-folder-above": "{up_link}",
    "dot-dot-after-a-link": "{up_link}/{root_name}/../{secret}",
    # Text says inside (parent/.. cancels out); the system says outside (.. is taken from where the link leads).
    "a-link-then-dot-dot": "{up_link}/../{root_name}/{notes}",
    "a-link-to-a-file-not-made": "{dangling}",
    "a-new-file-through-a-linked-folder": "{up_link}/new-{notes}",
    "a-chain-of-links": "{chain}",
    "an-absolute-link-target": "{absolute_link}",
}


@rule_id("path.symlink")
@pytest.mark.points(1)
@pytest.mark.rule(LINK_RULE)
@pytest.mark.parametrize("template", list(LINKS.values()), ids=list(LINKS))
def test_a_link_that_leads_outside_is_refused(harness, template):
    """A link inside the folder that points outside it: the path looks inside and is not.

    Why: a check on the text of the path (normpath, abspath) passes a link that the file system then follows out of
    the folder; the MCP filesystem server checks the real path after realpath for this reason.
    """
    expect_confined(harness.confined(template, ALLOWED_CONTROL))


VALUE_RULE = N_("A path that is no non-empty string, holds a NUL character, or cannot be resolved (a character no file name "
              "can hold) is refused with a reason; allowed_path never raises.")
VALUES = {
    "empty": "",
    "none": None,
    "a-number": 7,
    "a-list": ["{notes}"],
    "a-nul-character": "{notes}\x00.png",
    # JSON may carry a lone surrogate (\ud800); no file name can hold it, and realpath raises UnicodeEncodeError.
    "a-lone-surrogate": "{notes}\ud800",
}


@rule_id("path.value")
@pytest.mark.points(1)
@pytest.mark.rule(VALUE_RULE)
@pytest.mark.parametrize("template", list(VALUES.values()), ids=list(VALUES))
def test_a_value_that_is_no_path_is_refused(harness, template):
    """Values a model sends where a path is declared but a runtime may not have checked: refused, never raised.

    Why: os.path raises TypeError on None and ValueError on a NUL byte; a tool that crashes leaves the model without an
    observation, and a NUL byte cuts a path short in C code below Python.
    """
    expect_confined(harness.confined(template, ALLOWED_CONTROL))
