"""A stranger's flood of silent TCP connections: up to ``per_port`` held open to each
port at once, from many loopback addresses that are nobody's seat (127.0.0.2-127.0.0.101),
each re-opened the moment the other side closes it. Runs in a thread."""

from __future__ import annotations

import errno
import selectors
import socket
import threading

SOURCES = [f"127.0.0.{i}" for i in range(2, 102)]


class Flood:
    """Keeps up to ``per_port`` silent connections open to each port, from many
    addresses, re-opening any that the peer closes."""

    def __init__(self, ports: list[int], per_port: int = 300) -> None:
        self.ports = ports
        self.per_port = per_port
        self.selector = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.opened = 0
        self.closed_by_peer = 0
        self.max_open = 0
        self._open: dict[int, int] = {p: 0 for p in ports}
        self._next = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _connect(self, port: int) -> None:
        source = SOURCES[self._next % len(SOURCES)]
        self._next += 1
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.bind((source, 0))
            err = sock.connect_ex(("127.0.0.1", port))
        except OSError:
            sock.close()
            return
        if err not in (0, errno.EINPROGRESS):
            sock.close()
            return
        self.selector.register(sock, selectors.EVENT_READ, port)
        self._open[port] += 1
        self.opened += 1

    def _run(self) -> None:
        while not self.stop.is_set():
            for port in self.ports:
                while self._open[port] < self.per_port:
                    self._connect(port)
            self.max_open = max(self.max_open, sum(self._open.values()))
            for key, _ in self.selector.select(timeout=0.05):
                sock = key.fileobj
                try:
                    data = sock.recv(65536)  # the hello, or the end
                except OSError:
                    data = b""
                if not data:
                    self.selector.unregister(sock)
                    sock.close()
                    self._open[key.data] -= 1
                    self.closed_by_peer += 1
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()
