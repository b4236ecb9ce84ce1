"""A TLS front for a plain-HTTP server on 127.0.0.1: terminate TLS, pipe the bytes through.

Used by :mod:`ditto_nb.sandbox.mediawiki` to serve PHP's built-in web server (which speaks
only HTTP) over HTTPS with a certificate from a local ``trustme`` CA, so the kit reaches the
wiki exactly as it reaches any site: ``https://<name>.test:<port>`` pinned to 127.0.0.1 by
``NetworkPolicy.resolve_overrides`` and trusted through ``NetworkPolicy.ca_bundle``.

It is a byte pipe (asyncio streams), not an HTTP proxy: requests and responses pass through
unchanged, keep-alive included. Run it as a process::

    python -m ditto_nb.sandbox.tls_front --cert SERVER.pem --backend-port 8080 --port-file PORT

It listens on 127.0.0.1 (port 0 = a free port, written to ``--port-file`` once listening) and
stops on SIGTERM / SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import ssl
from pathlib import Path

_CHUNK_BYTES = 65536


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(_CHUNK_BYTES):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
        pass
    finally:
        with contextlib.suppress(Exception):
            if writer.can_write_eof():
                writer.write_eof()


async def _client(
    client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter, backend_port: int
) -> None:
    try:
        backend_reader, backend_writer = await asyncio.open_connection("127.0.0.1", backend_port)
    except OSError:
        client_writer.close()
        return
    upstream = asyncio.ensure_future(_pipe(client_reader, backend_writer))
    try:
        # The backend closing ends the exchange (a TLS stream cannot half-close); the client
        # closing first half-closes the backend side, which then finishes its reply.
        await _pipe(backend_reader, client_writer)
    finally:
        upstream.cancel()
        for writer in (backend_writer, client_writer):
            with contextlib.suppress(Exception):
                writer.close()


async def serve(cert_path: Path, backend_port: int, port: int, port_file: Path | None) -> None:
    """Listen on 127.0.0.1:``port`` with TLS; pipe each connection to 127.0.0.1:``backend_port``.

    Args:
        cert_path: PEM file with the server's private key and certificate chain.
        backend_port: the plain-HTTP server's port on 127.0.0.1.
        port: the port to listen on (0 = a free port).
        port_file: where to write the listening port (written atomically once listening).
    """
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert_path))
    server = await asyncio.start_server(
        lambda r, w: _client(r, w, backend_port), "127.0.0.1", port, ssl=context
    )
    bound = int(server.sockets[0].getsockname()[1])
    if port_file is not None:
        partial = port_file.with_suffix(".partial")
        partial.write_text(str(bound), encoding="ascii")
        partial.replace(port_file)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()


def main() -> None:
    """Command line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description="TLS front for a plain-HTTP server on 127.0.0.1")
    parser.add_argument("--cert", type=Path, required=True, help="PEM: server key + certificate chain")
    parser.add_argument("--backend-port", type=int, required=True, help="plain-HTTP port on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0 = free port)")
    parser.add_argument("--port-file", type=Path, default=None, help="file to write the listening port to")
    args = parser.parse_args()
    asyncio.run(serve(args.cert, args.backend_port, args.port, args.port_file))


if __name__ == "__main__":
    main()
