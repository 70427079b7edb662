"""A TCP proxy on 127.0.0.1 that a test can cut as a network partition cuts: ``cut()``
stops forwarding in both directions but keeps every socket open (nothing is refused or
reset: the bytes just stop arriving), ``heal()`` forwards again, what was held included.

    with TcpProxy(postgres_port) as proxy:   # proxy.port: where clients connect
        ...
        proxy.cut()
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading

__all__ = ["TcpProxy"]


class TcpProxy:
    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.flowing = threading.Event()
        self.flowing.set()
        self.stopping = threading.Event()
        self.sockets: list[socket.socket] = []
        self.threads = [threading.Thread(target=self._accept, daemon=True)]

    def __enter__(self) -> TcpProxy:
        self.threads[0].start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.flowing.set()
        self.listener.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()

    def cut(self) -> None:
        self.flowing.clear()

    def heal(self) -> None:
        self.flowing.set()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            self.sockets += [client, server]
            thread = threading.Thread(target=self._pump, args=(client, server), daemon=True)
            thread.start()
            self.threads.append(thread)

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        """Forward both ways while flowing; while cut, read nothing (the kernel's buffers
        fill, the peers wait)."""
        other = {client: server, server: client}
        with selectors.DefaultSelector() as selector:
            for sock in other:
                selector.register(sock, selectors.EVENT_READ)
            while not self.stopping.is_set():
                if not self.flowing.wait(0.1):
                    continue
                for key, _ in selector.select(0.1):
                    if not self.flowing.is_set():
                        break
                    try:
                        data = key.fileobj.recv(65536)
                        if not data:
                            return self._close(client, server)
                        other[key.fileobj].sendall(data)
                    except OSError:
                        return self._close(client, server)

    @staticmethod
    def _close(*socks: socket.socket) -> None:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.close()
