"""How far each protection holds for a worker started here now: the table of docs/threat-model.md, per system
and transport, and the one sentence the report gives where something is missing.
"""

import os
import sys

from grader.isolation import kernel_rules
from grader.isolation.processes import psutil_or_none
from grader.isolation.transport_portable import portable_worker

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


def _listed(names, last="and"):
    """``a``, ``a and b``, ``a, b and c`` (str) of ``names`` (list of str), with ``last`` before the last."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def protection_note():
    """One sentence for the report when the worker runs off Linux's POSIX transport, naming the protections
    missing or holding only in part there and what an instructor should do instead (str), else None (nothing is
    missing on Linux's default path). Shown in a report and, once, on a batch's console."""
    if sys.platform.startswith("linux") and not portable_worker():
        return None
    levels = protections()
    missing = [name for name, level in levels.items() if level == "no"]
    partial = [name for name, level in levels.items() if level == "partly"]
    if not missing and not partial:
        return None
    work = "works" if len(partial) == 1 else "work"
    if missing:
        state = f"the grader's sandbox has no {_listed(missing, 'or')}" + (
            f", and its {_listed(partial)} {work} only in part" if partial else "")
    else:
        state = f"the {_listed(partial)} of the grader's sandbox {work} only in part"
    advice = ("unset KIT_PORTABLE_WORKER, which chose the portable transport" if sys.platform.startswith("linux")
              else "use Linux, a container, or Gradescope")
    return (f"On this system {state} (see the table in docs/threat-model.md). That is fine for grading your own "
            f"work; an instructor grading untrusted work should {advice}.")


def _has_resource():
    try:
        import resource  # noqa: F401
    except ImportError:
        return False
    return True
