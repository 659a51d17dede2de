"""Debian's nginx as a test's own process: a temporary prefix, a config, started and
stopped by the test (test_web_proxy.py, test_web_cluster.py)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest
from netkit import until

NGINX = "/usr/sbin/nginx"

HEADER = """
daemon off;
master_process off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 128; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
"""
"""A config's first lines: one process in the foreground, every file in the prefix,
WebSocket upgrades passed on. A test's config is HEADER + its own ``http`` block's rest
(closing that block), formatted with ``prefix``, ``port`` and what it names."""


def nginx_or_skip() -> None:
    if not os.access(NGINX, os.X_OK):
        if os.environ.get("XACTIKA_REQUIRE_BROWSER"):  # CI installs it beside chromium
            pytest.fail(f"{NGINX} is missing (.ci/run installs Debian's nginx)")
        pytest.skip(f"{NGINX} is not installed")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Nginx:
    """nginx on ``port`` with ``config`` (HEADER + the rest), listening once made."""

    def __init__(self, prefix: Path, config: str, **names: object) -> None:
        prefix.mkdir()
        self.port = free_port()
        (prefix / "nginx.conf").write_text(config.format(prefix=prefix, port=self.port,
                                                         **names))
        self.process = subprocess.Popen(
            [NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
             "-e", str(prefix / "error.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        def listening() -> bool:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            except OSError:
                return self.process.poll() is not None
            return True

        until(listening, "nginx listening")
        if self.process.poll() is not None:
            err = self.process.stderr.read().decode() if self.process.stderr else ""
            raise AssertionError(f"nginx did not start: {err}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
