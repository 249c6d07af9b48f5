"""The bounds of one submission's worker process (``Limits``): what every grading command shares.

The command line's options (``grader.classroom.cli.add_grading_options``) default to these fields, the sandbox
applies them (``grader.isolation.sandbox``: the kernel's resource limits on the POSIX transport, the grader's
watch on the portable one), and the report names the bound a submission hit.
"""

from dataclasses import dataclass


# What the file size limit, which is the grader's output limit, raises in the worker as the worker reports it
# ("Type: message"); the judge names it even in a hidden case (the same sentence for every input).
OUTPUT_LIMIT = "OSError: [Errno 27] File too large"


@dataclass
class Limits:
    """Bounds for one submission's worker process.

    Attributes:
        case_seconds: wall-clock limit for one case, including the model/dispatch exchanges (float, s).
        load_seconds: wall-clock limit for loading the submission (float, s).
        memory_mb: address-space limit of the worker (int, MiB).
        cpu_seconds: CPU-time limit of one worker process over its life (int, s).
        output_bytes: how much the submission may print per case (and while loading) before the rest is dropped (int, bytes).
        total_seconds: time budget for all cases of one submission (float, s; the wall clock less what a busy machine
            kept the worker waiting for a CPU: ``grader.isolation.deadlines.Budget``): in a batch, of all of one
            student's files together; on Gradescope, of one upload. Cases after it fail with "used up its total
            time budget". The one place this number is set (``--total-timeout`` changes it).
        max_requests: ask_model/dispatch requests allowed in one call before it is stopped as
            unbounded (int); the contract allows one of each, and four times that is still bounded. Further requests are answered with
            ``halt`` (the worker raises an exception the learner's ``except Exception`` does not
            catch); after ``grader.isolation.sandbox.HALT_GRACE`` more, the worker is killed.
    """

    # The slowest case (1 MB of input, twice) takes about 0.05 s against the reference: 1 s leaves a slow
    # machine 20 times that, and keeps a hanging submission cheap in a class's batch.
    case_seconds: float = 1.0
    load_seconds: float = 3.0
    memory_mb: int = 1024
    cpu_seconds: int = 120
    output_bytes: int = 8 * 1024 * 1024
    max_requests: int = 8
    total_seconds: float = 120.0
