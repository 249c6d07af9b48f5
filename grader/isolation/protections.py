"""How far each protection holds for a worker started here now: the table of docs/threat-model.md, per system
and transport, and the one sentence the report gives where something is missing; and the walls that stand around
the worker on this machine (``walls``), which every report names in one line and ``python -m grader --isolation``
lists for an instructor checking a machine.
"""

import os
import platform
import sys
import typing

from grader.isolation import kernel_rules
from grader.isolation.processes import psutil_or_none
from grader.isolation.transport_portable import portable_worker
from grader.translations import N_, _, ngettext

PROTECTIONS = ("separate process", "time limits", "memory limit", "output limit", "audit-hook guard",
               "kernel rules", "process-tree cleanup")


def protections(portable=None):
    """How far each protection holds for a worker started here now (dict: name from ``PROTECTIONS`` ->
    ``"yes"``, ``"partly"`` or ``"no"``), as docs/threat-model.md's table per system says.

    ``portable``: the transport (bool), or None for ``portable_worker()``. The kernel rules are Landlock or the
    seccomp filter (``grader.isolation.kernel_rules``: Linux only, applied between fork and exec on either
    transport). Off Linux's POSIX transport, the memory limit is the grader's watch of the worker
    (``memory_used``: psutil off Linux), the output limit on the portable transport the worker's own count plus
    the grader's check of the file, and the process tree is found with psutil (else only the worker, or its
    process group, is killed).
    """
    portable = portable_worker() if portable is None else portable
    linux = sys.platform.startswith("linux")
    psutil = psutil_or_none() is not None
    # Both transports apply the kernel's rules on Linux (the portable one since issue 41).
    kernel = "yes" if linux and (kernel_rules.abi_version() > 0 or kernel_rules.seccomp_available()) else "no"
    if linux and not portable:
        return {**dict.fromkeys(PROTECTIONS, "yes"), "memory limit": "yes" if _has_resource() else "no",
                "kernel rules": kernel}
    return {"separate process": "yes", "time limits": "yes",
            "memory limit": "partly" if linux or psutil else "no",
            "output limit": "partly" if portable else "yes",
            "audit-hook guard": "yes", "kernel rules": kernel,
            "process-tree cleanup": "partly" if psutil or not portable or os.name == "posix" else "no"}


# The protections' names as a note shows them (translated where shown; ``PROTECTIONS`` keeps the English keys).
SHOWN_NAMES = {"separate process": N_("separate process"), "time limits": N_("time limits"),
               "memory limit": N_("memory limit"), "output limit": N_("output limit"),
               "audit-hook guard": N_("audit-hook guard"), "kernel rules": N_("kernel rules"),
               "process-tree cleanup": N_("process-tree cleanup")}


def _listed(names, last=N_("and")):
    """``a``, ``a and b``, ``a, b and c`` (str) of ``names`` (list of str), with ``last`` before the last, in the
    current language."""
    names = [_(SHOWN_NAMES.get(name, name)) for name in names]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {_(last)} {names[-1]}"


def protection_note():
    """One sentence for the report when the worker runs off Linux's POSIX transport, naming the protections
    missing or holding only in part there and what an instructor should do instead (str, in the learner's language),
    else None (nothing is missing on Linux's default path). Shown in a report and, once, on a batch's console."""
    if sys.platform.startswith("linux") and not portable_worker():
        return None
    levels = protections()
    missing = [name for name, level in levels.items() if level == "no"]
    partial = [name for name, level in levels.items() if level == "partly"]
    if not missing and not partial:
        return None
    advice = (_("unset KIT_PORTABLE_WORKER, which chose the portable transport") if sys.platform.startswith("linux")
              else _("use Linux, a container, or Gradescope"))
    if missing and partial:
        text = ngettext("On this system the grader's sandbox has no {missing}, and its {partial} works only in part (see "
                        "the table in docs/threat-model.md). That is fine for grading your own work; an instructor "
                        "grading untrusted work should {advice}.",
                        "On this system the grader's sandbox has no {missing}, and its {partial} work only in part (see "
                        "the table in docs/threat-model.md). That is fine for grading your own work; an instructor "
                        "grading untrusted work should {advice}.", len(partial))
    elif missing:
        text = _("On this system the grader's sandbox has no {missing} (see the table in docs/threat-model.md). That is "
                 "fine for grading your own work; an instructor grading untrusted work should {advice}.")
    else:
        text = ngettext("On this system the {partial} of the grader's sandbox works only in part (see the table in "
                        "docs/threat-model.md). That is fine for grading your own work; an instructor grading untrusted "
                        "work should {advice}.",
                        "On this system the {partial} of the grader's sandbox work only in part (see the table in "
                        "docs/threat-model.md). That is fine for grading your own work; an instructor grading untrusted "
                        "work should {advice}.", len(partial))
    return text.format(missing=_listed(missing, N_("or")) if missing else "", partial=_listed(partial) if partial else "",
                       advice=advice)


def _has_resource():
    try:
        import resource  # noqa: F401
    except ImportError:
        return False
    return True


class Wall(typing.NamedTuple):
    """One wall around the worker and whether it stands here now.

    Attributes:
        name: what it is (str, from ``WALLS``). standing: it holds for a worker started now (bool).
        detail: what it covers where it stands, why not where it does not (str, one clause).
    """

    name: str
    standing: bool
    detail: str


WALLS = ("namespaces", "seccomp filter", "Landlock", "capabilities given up", "child subreaper", "audit-hook guard")


def walls(portable=None):
    """The walls around a worker started here now, in ``WALLS`` order (list of ``Wall``).

    The kernel's (namespaces, seccomp, Landlock, capabilities, subreaper: ``grader.isolation.kernel_rules``) are
    Linux's, on either transport; the audit-hook guard (``grader.isolation.worker``) stands everywhere, as the
    last line where nothing stands below it. The namespaces are probed once per process
    (``kernel_rules.namespace_refusal``); the rest is read from the kernel without starting anything.

    Args:
        portable: the transport (bool), or None for ``portable_worker()``; named in the guard's detail.
    """
    portable = portable_worker() if portable is None else portable
    guard = Wall("audit-hook guard", True, "Python's audit hooks in the worker refuse what no solution needs"
                 + (" (portable transport)" if portable else ""))
    if not sys.platform.startswith("linux"):
        elsewhere = "Linux's kernel only"
        return [Wall("namespaces", False, elsewhere), Wall("seccomp filter", False, elsewhere),
                Wall("Landlock", False, elsewhere), Wall("capabilities given up", False, elsewhere),
                Wall("child subreaper", False,
                     elsewhere + ("; psutil finds the processes still below the worker" if psutil_or_none() else "")),
                guard]
    refusal = kernel_rules.namespace_refusal()
    version = kernel_rules.abi_version()
    machine = platform.machine()
    landlock = "write only in scratch, read only Python and the system's libraries, run only Python"
    landlock += "; no TCP" if version >= 4 else ""
    landlock += "; no signals to the grader" if version >= 6 else ""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    return [
        Wall("namespaces", not refusal, refusal or "a user and a network namespace of its own: no network device, "
             "no tracing of processes outside"),
        Wall("seccomp filter", kernel_rules.seccomp_available(),
             f"{machine}: no sockets but a stream socket pair, no tracing, no new processes"
             if kernel_rules.seccomp_available() else f"none for this kernel or architecture ({machine})"),
        Wall(f"Landlock ABI {version}" if version else "Landlock", bool(version),
             landlock if version else "not in this kernel (Linux 5.13 and later)"),
        Wall("capabilities given up", True, "every one, root's included (the grader runs as root)" if root
             else "none to give up (the grader is not root)" if refusal else
             "every one it holds inside its user namespace"),
        Wall("child subreaper", True, "every process the worker starts stays below it and ends with it"),
        guard]


def walls_line(listed=None):
    """The report's one line on isolation (str): the walls standing, then those missing with why, e.g.
    "Isolation: namespaces, seccomp filter, Landlock ABI 7, capabilities given up, child subreaper, audit-hook
    guard."
    or "...; missing: namespaces (refused with ENOSPC: ...).".

    Args:
        listed: ``walls()``'s list (computed now when None).
    """
    listed = walls() if listed is None else listed
    standing = [wall.name for wall in listed if wall.standing]
    missing = [f"{wall.name} ({wall.detail})" for wall in listed if not wall.standing]
    return "Isolation: " + ", ".join(standing) + (f"; missing: {'; '.join(missing)}" if missing else "") + "."


# What an instructor can do about a missing wall (issue 42's instructor trial: "nothing says what to do").
REMEDIES = {
    "namespaces": "the other walls still stand; namespaces come back where the system allows unprivileged user "
                  "namespaces (user.max_user_namespaces above 0; on Ubuntu, AppArmor's "
                  "kernel.apparmor_restrict_unprivileged_userns)",
    "seccomp filter": "sockets and new processes then rest on Landlock and the guard: grade untrusted work on "
                      "x86-64 or arm64 Linux",
    "Landlock": "files then rest on the guard: grade untrusted work on Linux 5.13 or later (6.7 for its TCP rule, "
                "6.12 for signals)",
}


def walls_table(listed=None):
    """What ``python -m grader --isolation`` prints (str): one line per wall, "yes" or "no" and its detail; for
    each missing wall of ``REMEDIES`` what to do; on the portable transport or off Linux the report's sentence on
    the limits that hold only in part (``protection_note``); then where the table per system is
    (docs/threat-model.md).

    Args:
        listed: ``walls()``'s list (computed now when None).
    """
    listed = walls() if listed is None else listed
    width = max(len(wall.name) for wall in listed)
    lines = [f"Walls around a worker started on this machine now ({sys.platform}, "
             f"{'portable' if portable_worker() else 'POSIX'} transport):"]
    lines += [f"  {wall.name:<{width}}  {'yes' if wall.standing else 'no '}  {wall.detail}" for wall in listed]
    remedies = [f"  {wall.name}: {REMEDIES[wall.name]}" for wall in listed
                if not wall.standing and wall.name in REMEDIES and sys.platform.startswith("linux")]
    if remedies:
        lines += ["What a missing wall means:"] + remedies
    note = protection_note()
    if note:
        lines.append(note)
    lines.append("What each covers and what stays open, per system: docs/threat-model.md.")
    return "\n".join(lines)
