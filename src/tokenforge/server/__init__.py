"""The token visualizer: a local web page that colours each token of a text, for one tokenizer
or several side by side (`tokenforge serve`).

The server is the standard library's ThreadingHTTPServer: the page needs three static files
(static/index.html, app.js, style.css, shipped in the package: no CDN, nothing fetched) and one
JSON call, so a framework would add a dependency and no capability. Routes:

    GET  /                  the page
    GET  /static/NAME       its script and style sheet
    GET  /api/tokenizers    {"tokenizers": [names], "default": [names]}
    POST /api/encode        {"text", "tokenizers": [names], "special": "text"|"match"}
                            -> {"results": [visualize.TokenView.as_json(), ...]}

The encoding is native (visualize.token_view); the page renders the tokens in slices, one
animation frame each, so 100 KB of text stays responsive.

Safety: the server binds 127.0.0.1 unless told otherwise, and `serve()` refuses any other
address without allow_remote=True. Requests must name a local Host (a page elsewhere cannot
reach it through DNS rebinding), API calls must be JSON (a cross-site form cannot post one
without a preflight this server never answers), a foreign Origin is refused, and the text is
limited in size. The page only ever puts text into the document as text nodes, never as HTML.
Tokenizers are the bundled names and the files or folders given on the command line, loaded
once and shared by the request threads (they are thread-safe).
"""

from __future__ import annotations

import http.server
import ipaddress
import json
import os
import re
import threading
import urllib.parse
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

__all__ = ["MAX_TEXT_BYTES", "TokenizerSet", "make_server", "serve"]

MAX_TEXT_BYTES = 4 * 1024 * 1024  # the largest text /api/encode takes
_STATIC = {"app.js": "text/javascript", "style.css": "text/css", "index.html": "text/html"}
_LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]", "::1")
_SURROGATE = re.compile("[\ud800-\udfff]")


class TokenizerSet:
    """The tokenizers the page may pick: bundled names, loaded when first asked for, and files
    or folders given by path (loaded up front, so a bad path fails at start, not on the page)."""

    def __init__(self, paths: Sequence[str] = (), load: Callable[[str], Any] | None = None) -> None:
        from ..cli.common import load as cli_load
        from ..cli.common import names

        self._load = load or cli_load
        self._lock = threading.Lock()
        self._loaded: dict[str, Any] = {}
        self.names: list[str] = list(names())
        for path in paths:
            name = _path_name(path)
            tokenizer = self._load_path(path)
            self._loaded[name] = tokenizer
            if name not in self.names:
                self.names.append(name)
        given = [_path_name(p) for p in paths]
        self.default = given[:2] if given else ["cl100k_base", "o200k_base"]

    def _load_path(self, path: str) -> Any:
        if os.path.isdir(path) and os.path.isfile(os.path.join(path, "tokenizer.json")):
            from ..tokenizer import Tokenizer

            return Tokenizer.from_pretrained(path)
        return self._load(path)

    def get(self, name: str) -> Any:
        with self._lock:
            if name not in self._loaded:
                if name not in self.names:
                    raise KeyError(name)
                self._loaded[name] = self._load(name)
            return self._loaded[name]


def _path_name(path: str) -> str:
    """The name a file or folder given by path shows under (its path, as given)."""
    return os.path.normpath(path)


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "tokenforge"
    tokenizers: TokenizerSet
    quiet = True

    def log_message(self, format: str, *args: Any) -> None:
        if not self.quiet:
            super().log_message(format, *args)

    # -- responses ---------------------------------------------------------------------------

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        )
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def _allowed(self) -> bool:
        """A local Host (or any, where the server was bound to a remote address on purpose), and
        no foreign Origin."""
        host = self.headers.get("Host", "")
        name = host.rsplit(":", 1)[0] if not host.startswith("[") else host[: host.find("]") + 1]
        if not getattr(self.server, "allow_remote", False) and name not in _LOCAL_NAMES:
            self._error(403, f"Host {host!r} is not this machine: open the page at http://127.0.0.1")
            return False
        origin = self.headers.get("Origin")
        if origin is not None and urllib.parse.urlsplit(origin).netloc != host:
            self._error(403, f"requests from {origin!r} are refused")
            return False
        return True

    # -- routes ------------------------------------------------------------------------------

    def do_GET(self) -> None:
        if not self._allowed():
            return
        path = urllib.parse.urlsplit(self.path).path
        if path in ("/", "/index.html"):
            self._static("index.html")
        elif path.startswith("/static/") and path[len("/static/") :] in _STATIC:
            self._static(path[len("/static/") :])
        elif path == "/api/tokenizers":
            self._json(200, {"tokenizers": self.tokenizers.names, "default": self.tokenizers.default})
        else:
            self._error(404, f"no such page: {path}")

    do_HEAD = do_GET

    def _static(self, name: str) -> None:
        body = resources.files(__package__).joinpath("static", name).read_bytes()
        self._send(200, body, _STATIC[name] + "; charset=utf-8")

    def do_POST(self) -> None:
        if not self._allowed():
            return
        if urllib.parse.urlsplit(self.path).path != "/api/encode":
            self._error(404, f"no such call: {self.path}")
            return
        if self.headers.get_content_type() != "application/json":
            self._error(415, "send the request as application/json")
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._error(411, "a Content-Length is required")
            return
        if length < 0 or length > MAX_TEXT_BYTES * 2 + 65536:
            self._error(413, f"the text is too large (at most {MAX_TEXT_BYTES} bytes)")
            return
        try:
            request = json.loads(self.rfile.read(length).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            self._error(400, f"the request is not JSON: {e}")
            return
        self._encode(request)

    def _encode(self, request: Any) -> None:
        from ..visualize import token_view

        if not isinstance(request, dict):
            self._error(400, 'send {"text": ..., "tokenizers": [...]}')
            return
        text, names, special = request.get("text"), request.get("tokenizers"), request.get("special", "text")
        if not isinstance(text, str):
            self._error(400, '"text" must be a string')
            return
        if len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
            self._error(413, f"the text is too large (at most {MAX_TEXT_BYTES} bytes)")
            return
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names) or len(names) > 8:
            self._error(400, '"tokenizers" must be a list of one to eight names')
            return
        if special not in ("text", "match"):
            self._error(400, '"special" must be "text" or "match"')
            return
        # Lone surrogates (a JS string can hold them) are not text: show them as U+FFFD.
        text = _SURROGATE.sub("\ufffd", text)
        results = []
        for name in names:
            try:
                tokenizer = self.tokenizers.get(name)
            except KeyError:
                self._error(404, f"no tokenizer {name!r}; the names are listed by /api/tokenizers")
                return
            except (ValueError, OSError) as e:  # a bundled file that fails to load
                self._error(500, f"{name}: cannot load it: {e}")
                return
            try:
                results.append(token_view(tokenizer, text, special=special, name=name).as_json())
            except ValueError as e:
                self._error(400, f"{name}: {e}")
                return
        self._json(200, {"results": results})


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_remote = False


def _is_local(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def make_server(
    tokenizers: TokenizerSet,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    allow_remote: bool = False,
    quiet: bool = True,
) -> http.server.ThreadingHTTPServer:
    """The visualizer's server, bound (port 0: any free port; `server.server_address` says
    which) but not yet serving. A non-loopback host needs allow_remote=True: the page then
    answers anyone who can reach the port."""
    if not _is_local(host) and not allow_remote:
        raise ValueError(
            f"{host!r} is not a loopback address: the visualizer would answer other machines; "
            "bind 127.0.0.1 (the default), or pass --allow-remote if that is what you want"
        )
    handler = type("Handler", (_Handler,), {"tokenizers": tokenizers, "quiet": quiet})
    server = _Server((host.strip("[]"), port), handler)
    server.allow_remote = allow_remote
    return server


def serve(
    tokenizers: TokenizerSet,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    allow_remote: bool = False,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve the page until interrupted; `on_ready(url)` is called once it listens."""
    server = make_server(tokenizers, host, port, allow_remote=allow_remote, quiet=False)
    with server:
        bound_host, bound_port = server.server_address[:2]
        shown = "127.0.0.1" if bound_host in ("127.0.0.1", "0.0.0.0") else str(bound_host)
        url = f"http://{shown}:{bound_port}/"
        if on_ready is not None:
            on_ready(url)
        server.serve_forever()
