"""Listeners on this machine that a confined worker must not reach: UDP and TCP on 127.0.0.1, and UNIX sockets
(stream and datagram, each by a path in a short temporary folder and by an abstract name).

Used by test_network_walls.py. Every listener is bounded: ports are the kernel's free ones on 127.0.0.1, socket
files live in a folder made for them and removed with it, one daemon thread serves them all through ``select``
with a 0.2 s timeout until ``close`` or a deadline (``LIFETIME`` seconds), and every socket is closed in
``finally``. Nothing listens on any other address (the workplace's rule: loopback only).
"""

import os
import select
import shutil
import socket
import tempfile
import threading
import time

LIFETIME = 240.0  # seconds: the longest a listener stays open, even if a test forgets to close it


class Listeners:
    """Six listeners and what reached them.

    Attributes:
        targets: where each listens (dict, JSON-ready): ``udp_port``, ``tcp_port`` (int); ``unix_stream``,
            ``unix_dgram`` (socket file paths, str, under 108 bytes); ``abstract_stream``, ``abstract_dgram``
            (abstract names without the leading NUL, str).
        received: listener name -> list of what reached it: each datagram's bytes, and for a stream listener a
            ``b""`` per accepted connection (being reached is already a leak) followed by the bytes it sent.
    Use as a context manager; ``close`` stops the thread and removes the folder.
    """

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="kw", dir="/tmp" if os.path.isdir("/tmp") else None)  # short paths
        tag = os.path.basename(self.folder)
        self.received = {name: [] for name in ("udp", "tcp", "unix_stream", "unix_dgram", "abstract_stream",
                                               "abstract_dgram")}
        self._sockets, self._stop, self._lock = {}, threading.Event(), threading.Lock()
        try:
            self._open("udp", socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0))
            self._open("tcp", socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0))
            self._open("unix_stream", socket.AF_UNIX, socket.SOCK_STREAM, os.path.join(self.folder, "s"))
            self._open("unix_dgram", socket.AF_UNIX, socket.SOCK_DGRAM, os.path.join(self.folder, "d"))
            self._open("abstract_stream", socket.AF_UNIX, socket.SOCK_STREAM, "\0" + tag + "-s")
            self._open("abstract_dgram", socket.AF_UNIX, socket.SOCK_DGRAM, "\0" + tag + "-d")
        except BaseException:
            self.close()
            raise
        self.targets = {"udp_port": self._sockets["udp"].getsockname()[1],
                        "tcp_port": self._sockets["tcp"].getsockname()[1],
                        "unix_stream": os.path.join(self.folder, "s"), "unix_dgram": os.path.join(self.folder, "d"),
                        "abstract_stream": tag + "-s", "abstract_dgram": tag + "-d"}
        self._thread = threading.Thread(target=self._serve, name="kit-test-listeners", daemon=True)
        self._thread.start()

    def _open(self, name, family, kind, address):
        server = socket.socket(family, kind)
        self._sockets[name] = server
        server.bind(address)
        if kind == socket.SOCK_STREAM:
            server.listen(16)
        server.setblocking(False)

    def _serve(self):
        deadline = time.monotonic() + LIFETIME
        connections = {}  # accepted socket -> listener name
        try:
            while not self._stop.is_set() and time.monotonic() < deadline:
                readable, _, _ = select.select(list(self._sockets.values()) + list(connections), [], [], 0.2)
                for ready in readable:
                    if ready in connections:
                        try:
                            data = ready.recv(65536)
                        except OSError:
                            data = b""
                        if not data:
                            del connections[ready]
                            ready.close()
                        else:
                            self._record(connections[ready], data)
                        continue
                    name = next(n for n, s in self._sockets.items() if s is ready)
                    try:
                        if ready.type == socket.SOCK_STREAM:
                            accepted, _ = ready.accept()
                            accepted.setblocking(False)
                            connections[accepted] = name
                            self._record(name, b"")
                        else:
                            self._record(name, ready.recv(65536))
                    except (BlockingIOError, InterruptedError):
                        continue
        finally:
            for accepted in connections:
                accepted.close()

    def _record(self, name, data):
        with self._lock:
            self.received[name].append(data)

    def reached(self):
        """Listener name -> how many datagrams or connections reached it, for those reached at all (dict)."""
        with self._lock:
            return {name: len(items) for name, items in self.received.items() if items}

    def wait_until_reached(self, least, seconds=5.0):
        """Wait until each listener of ``least`` (dict: name -> count) was reached at least that many times, or
        ``seconds`` pass; return ``reached()``. Only controls wait: what a confined worker sent has been queued
        before its case ends, and a test that expects nothing reads ``reached()`` after one more wait."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            reached = self.reached()
            if all(reached.get(name, 0) >= count for name, count in least.items()):
                break
            time.sleep(0.05)
        return self.reached()

    # What one reach_every_listener adds to reached(): a stream listener records the connection, then its bytes.
    CONTROL = {"udp": 1, "tcp": 2, "unix_stream": 2, "unix_dgram": 1, "abstract_stream": 2, "abstract_dgram": 1}

    def nothing_reached(self, seconds=0.5):
        """``reached()`` after ``seconds`` more for anything still queued to be read (dict; empty when nothing
        came), proved live: a control from this process then reaches every listener. A listener that had stopped
        serving would hear nothing from anyone, which would pass a test that expects nothing.

        Raises:
            AssertionError: a listener's thread died or it did not hear the control within 5 s.
        """
        time.sleep(seconds)
        before = self.reached()
        assert self._thread.is_alive(), "the listeners' thread stopped"
        reach_every_listener(self.targets)
        expected = {name: before.get(name, 0) + count for name, count in self.CONTROL.items()}
        after = self.wait_until_reached(expected)
        assert {name: after.get(name, 0) for name in expected} == expected, (before, after)
        return before

    def close(self):
        self._stop.set()
        thread = getattr(self, "_thread", None)
        if thread is not None:
            thread.join(timeout=5)
        for server in self._sockets.values():
            server.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def reach_every_listener(targets):
    """Send ``b"control"`` to each listener of ``targets`` (``Listeners.targets``) from this (unconfined) process:
    shows that they listen (None). Raises OSError (a refused or timed-out connection, 2 s) if one does not."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.sendto(b"control", ("127.0.0.1", targets["udp_port"]))
    with socket.create_connection(("127.0.0.1", targets["tcp_port"]), timeout=2) as tcp:
        tcp.sendall(b"control")
    for address, kind in ((targets["unix_stream"], socket.SOCK_STREAM),
                          ("\0" + targets["abstract_stream"], socket.SOCK_STREAM),
                          (targets["unix_dgram"], socket.SOCK_DGRAM), ("\0" + targets["abstract_dgram"], socket.SOCK_DGRAM)):
        with socket.socket(socket.AF_UNIX, kind) as unix:
            if kind == socket.SOCK_STREAM:
                unix.settimeout(2)
                unix.connect(address)
                unix.sendall(b"control")
            else:
                unix.sendto(b"control", address)
