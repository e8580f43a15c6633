"""Throwaway servers for the tests: each session starts its own
``redis-server`` (or ``$REDVOTE_SERVER``, e.g. valkey-server) on a free
loopback port, never touching a server at 6379."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, List

import pytest
import redis

HERE = Path(__file__).resolve().parent
PACKAGE_ROOT = HERE.parent
REPO_ROOT = PACKAGE_ROOT.parent.parent

INSTALL_HINT = (
    "redis-server was not found: the redvote tests start throwaway servers of their own. "
    "Install it (Debian/Ubuntu: apt-get install -y redis-server, with sudo when not root), "
    "or set REDVOTE_SERVER to a server binary (e.g. valkey-server)."
)


def server_binary() -> str:
    wanted = os.environ.get("REDVOTE_SERVER") or "redis-server"
    found = shutil.which(wanted)
    if found is None:
        if os.environ.get("REDVOTE_SERVER"):
            pytest.fail(f"REDVOTE_SERVER={wanted} is not an executable", pytrace=False)
        pytest.fail(INSTALL_HINT, pytrace=False)
    return found


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port != 6379:
            return port


class Server:
    """One throwaway server process."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.dir = tempfile.mkdtemp(prefix="redvote-py-")
        self.process: "subprocess.Popen[bytes] | None" = None
        self.port = 0
        for _ in range(5):
            self.port = free_port()
            self.process = subprocess.Popen(
                [
                    binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--enable-debug-command", "yes", "--dir", self.dir,
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            if self._wait():
                return
            why = self._stop_process()
        raise RuntimeError(f"{binary} did not start on a free port: {why}")

    def _wait(self) -> bool:
        deadline = time.time() + 10
        while time.time() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                return False
            try:
                if redis.Redis(port=self.port, socket_timeout=1).ping():
                    return True
            except redis.ConnectionError:
                time.sleep(0.02)
        return False

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self, **kw: object) -> "redis.Redis":
        return redis.Redis(host="127.0.0.1", port=self.port, **kw)  # type: ignore[arg-type]

    def _stop_process(self) -> str:
        """Stop the process; answer what it wrote on stderr."""
        if self.process is None:
            return ""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        err = self.process.stderr.read() if self.process.stderr else b""
        self.process = None
        return err.decode(errors="replace").strip()[-2000:]

    def stop(self) -> None:
        self._stop_process()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    s = Server(server_binary())
    yield s
    s.stop()


@pytest.fixture
def r(server: Server) -> Iterator["redis.Redis"]:
    """A client (str replies) on an emptied database."""
    client = server.client(decode_responses=True)
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def rb(server: Server) -> Iterator["redis.Redis"]:
    """A client with bytes replies (decode_responses=False), emptied database."""
    client = server.client()
    client.flushall()
    yield client
    client.close()


def digest(client: "redis.Redis") -> str:
    value = client.execute_command("DEBUG", "DIGEST")
    return value.decode() if isinstance(value, bytes) else str(value)


# The golden runner's tally, printed at the end of the session.
GOLDEN_TALLY: Dict[str, List[int]] = {"files": [0], "steps": [0]}


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    files, steps = GOLDEN_TALLY["files"][0], GOLDEN_TALLY["steps"][0]
    if files or steps:
        terminalreporter.write_line(f"golden cases: {files} files, {steps} steps run")
