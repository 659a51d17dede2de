"""A WebSocket client that only writes: the handshake, then masked text frames, and never
a read after it (the flooding client of issue 30; bench/web_flood.py uses it too)."""

from __future__ import annotations

import base64
import os
import socket
import struct


class RawSocket:
    """One WebSocket over a plain socket with a small receive buffer, so that what the
    server sends piles up on its side when we do not read."""

    def __init__(self, host: str, port: int, path: str = "/ws", *, origin: str | None = None,
                 headers: dict[str, str] | None = None, source: str | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)  # "sent": taken
        if source is not None:
            self.sock.bind((source, 0))
        self.sock.settimeout(10)
        self.sock.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        fields = {"Host": f"{host}:{port}", "Upgrade": "websocket", "Connection": "Upgrade",
                  "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13",
                  "Origin": origin or f"http://{host}:{port}", **(headers or {})}
        lines = [f"GET {path} HTTP/1.1", *(f"{k}: {v}" for k, v in fields.items())]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                break
            head += chunk
        self.status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0

    def send_text(self, text: str) -> None:
        """One masked text frame (OSError once the server has dropped us)."""
        data = text.encode()
        size = len(data)
        if size < 126:
            header = struct.pack("!BB", 0x81, 0x80 | size)
        elif size < 1 << 16:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, size)
        mask = os.urandom(4)
        self.sock.sendall(header + mask + _mask(data, mask))

    def close(self) -> None:
        self.sock.close()


def _mask(data: bytes, mask: bytes) -> bytes:
    """XOR with the mask, a whole frame at once (int arithmetic, not a byte loop)."""
    repeated = (mask * (len(data) // 4 + 1))[:len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(repeated, "big")).to_bytes(
        len(data), "big")
