"""Peers that misbehave at the socket, for the clients of reward servers to meet."""

import socket
import threading


class Misbehaving:
    """A TCP server on loopback that reads a request and then does ``what``: ``hang`` (never answers), ``drop``
    (closes the connection), ``garbage`` (a 200 whose body is not JSON), ``short`` (a list of rewards one short),
    ``refuse`` (a 401), ``forbid`` (a 403), ``unavailable`` (a 503)."""

    BODIES = {
        "garbage": b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\nnot json!",
        "short": b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 15\r\n\r\n{"rewards": []}',
        "refuse": b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 9\r\n\r\nbad token",
        "forbid": b"HTTP/1.1 403 Forbidden\r\ncontent-length: 9\r\n\r\nforbidden",
        "unavailable": b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 4\r\n\r\nbusy",
    }

    def __init__(self, what):
        self.what, self.requests = what, 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/get_reward"
        self.held = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.recv(65536)
            self.requests += 1
            if self.what == "hang":
                self.held.append(conn)  # read, never answered, never closed
            elif self.what == "drop":
                conn.close()
            else:
                conn.sendall(self.BODIES[self.what])
                conn.close()

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()
