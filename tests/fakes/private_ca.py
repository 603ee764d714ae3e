"""A private CA and a server certificate for 127.0.0.1, made with the `openssl` command (a team's LLM server behind
its own CA, in tests): `make_ca(folder)` -> paths and the server's `ssl.SSLContext`."""

from __future__ import annotations

import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

_EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


@dataclass
class PrivateCA:
    ca_file: Path
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        return context


def make_ca(folder: Path) -> PrivateCA:
    folder.mkdir(parents=True, exist_ok=True)

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    run("req", "-x509", *_EC, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Team test CA")
    run("req", *_EC, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf")  # fmt: skip
    return PrivateCA(folder / "ca.pem", folder / "server.pem", folder / "server.key")
