"""Reads the grader's memory and command line and a sibling's command line through /proc (issue 41: on the portable
transport /proc/<grader's pid>/mem gave 38 hidden cases' texts, and in a batch /proc/<ppid>/cmdline named
classmates' files). Every read must be refused, by the guard or by the kernel, on both transports."""
import os

grader = os.getppid()
read = 0


def attempt(label, action):
    global read
    try:
        action()
        read += 1
        print(label, "read")
    except BaseException as exc:
        print(label, "refused", type(exc).__name__, exc)


def first_bytes(path):
    with open(path, "rb", buffering=0) as handle:
        return handle.read(64)


attempt("grader memory", lambda: first_bytes(f"/proc/{grader}/mem"))
attempt("grader command line", lambda: first_bytes(f"/proc/{grader}/cmdline"))
attempt("grader through self", lambda: first_bytes(f"/proc/self/../{grader}/environ"))
attempt("grader descriptors", lambda: os.listdir(f"/proc/{grader}/fd"))
try:
    others = [name for name in os.listdir("/proc") if name.isdigit() and int(name) not in (os.getpid(), grader)]
except OSError:  # Landlock grants no /proc
    others = ["1"]
for pid in others[:50]:  # siblings: the grader's other children, a batch's other workers, the machine's processes
    try:
        first_bytes(f"/proc/{pid}/cmdline")
        read += 1
    except OSError:
        pass
print("other processes read:", read)


def handle_tool_call(raw, ask_model):
    return None
