"""The app in a browser: textual-serve runs one dynotui per browser tab, each in a
process of its own, behind a URL that holds a random token.

Every request must carry the token as the first segment of its path: the page, its
scripts and styles, and the websocket that drives the app; any other request is answered
403 before anything else happens, so another user of this machine, or a web page in the
browser that guesses the port, opens nothing (a session reads tables with the server's
credentials). The token is made anew for each server and printed once, in the URL.
A tab's app ends when its websocket closes: it is asked to quit, and killed if it has
not within a few seconds; the server kills whatever is left when it stops.

textual-serve serves files the app offers for download at ``/download/KEY``, outside
the token's path: dynotui offers none, and those requests are refused like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import signal
import socket
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from textual_serve.app_service import AppService
from textual_serve.server import Server

from dynotui.core.numbers import is_whole

QUIT_GRACE = 5.0  # seconds an app has to quit after its tab closed, before it is killed
# A tab's screen, as its browser asks: the app draws every cell of it, so 20000 x 20000
# drove one process past 3 GB. The largest terminal a browser window holds is far less.
MAX_WIDTH = 500
MAX_HEIGHT = 200
REFUSED = "dynotui serve: this address lacks the token printed when the server started\n"
log = logging.getLogger("dynotui.serve")


def tab_size(given: Any, largest: int) -> int | None:
    """A tab's width or height as its browser says it (a query parameter's text or a
    message's number), 1 to ``largest``; None when it is no whole number."""
    if isinstance(given, str) and is_whole(given):
        given = int(given)
    if not isinstance(given, int) or isinstance(given, bool):
        return None
    return min(max(given, 1), largest)


class _QuietMalformed(logging.Filter):
    """aiohttp logs each request it cannot parse with a traceback, on the server's
    terminal: answered 400 already, whoever sent it gets no more said about it."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, HttpProcessingError)


class TokenServer(Server):
    """textual-serve's server with every route under ``/TOKEN/``, and a 403 for the rest.

    ``command`` is a shell command line that runs one app (textual-serve's contract);
    begin it with ``exec`` so that the process the server holds is the app itself."""

    def __init__(
        self, command: str, *, token: str, host: str, port: int, public_url: str | None = None
    ) -> None:
        super().__init__(command, host=host, port=port, title="dynotui", public_url=public_url)
        self.token = token
        self.apps: set[asyncio.subprocess.Process] = set()  # one per open tab

    @property
    def url(self) -> str:
        """What a browser opens: the page, under the token."""
        return f"{self.public_url}/{self.token}/"

    async def _make_app(self) -> web.Application:
        token = self.token.encode()

        @web.middleware
        async def require_token(request: web.Request, handler: Any) -> web.StreamResponse:
            first = request.path.split("/")[1] if request.path.count("/") >= 2 else ""
            # compare_digest: how long a wrong guess takes says nothing of the token.
            if not hmac.compare_digest(first.encode(), token):
                raise web.HTTPForbidden(text=REFUSED)
            response: web.StreamResponse = await handler(request)
            return response

        app = web.Application(middlewares=[require_token])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        prefix = f"/{self.token}"
        app.add_routes(
            [
                web.get(f"{prefix}/", self.handle_index, name="index"),
                web.get(f"{prefix}/ws", self.handle_websocket, name="websocket"),
                web.static(f"{prefix}/static", self.statics_path, name="static"),
            ]
        )
        app.on_response_prepare.append(_private)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_shutdown(self, app: web.Application) -> None:
        for process in list(self.apps):
            if process.returncode is None:
                process.kill()
                await process.wait()

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's own, but the app is sure to end with its tab."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = tab_size(request.query.get("width"), MAX_WIDTH) or 80
        height = tab_size(request.query.get("height"), MAX_HEIGHT) or 24
        service: AppService | None = None

        async def close() -> None:
            await websocket.close()

        try:
            await websocket.prepare(request)
            service = AppService(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            await service.start(width, height)
            process = service._process  # textual-serve keeps it to itself (pinned below 2)
            if process is not None:
                self.apps.add(process)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:
            log.exception(error)
        finally:
            if service is not None:
                await self._end(service)
        return websocket

    async def _process_messages(
        self, websocket: web.WebSocketResponse, app_service: AppService
    ) -> None:
        """textual-serve's own, but what the browser sends is checked: a resize to 20000 x
        20000 is one to MAX_WIDTH x MAX_HEIGHT, and a message of another shape is dropped
        (textual-serve's asserts ended the tab with a traceback on the server's terminal)."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except (ValueError, RecursionError):
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                width = tab_size(data.get("width"), MAX_WIDTH)
                height = tab_size(data.get("height"), MAX_HEIGHT)
                if width is not None and height is not None:
                    await app_service.set_terminal_size(width, height)
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def _end(self, service: AppService) -> None:
        """The tab is gone: the app is asked to quit, then killed if it has not."""
        with contextlib.suppress(Exception):  # a hung or broken app must not hold the server
            await asyncio.wait_for(service.stop(), QUIT_GRACE)
        process = service._process
        if process is not None:
            if process.returncode is None:
                process.kill()
                await process.wait()
            self.apps.discard(process)

    def serve_on(self, sock: socket.socket) -> None:
        """Serve on a socket already bound (so the URL printed has the port in force)
        until SIGINT or SIGTERM."""
        logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
        logging.getLogger("aiohttp.server").addFilter(_QuietMalformed())
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self.request_exit)
        web.run_app(
            self._make_app(),
            sock=sock,
            handle_signals=False,
            loop=loop,
            print=lambda *_: None,
            access_log=None,
        )


async def _private(request: web.Request, response: web.StreamResponse) -> None:
    # The token is in every path: no page or script may pass it on in a Referer, and no
    # cache keeps it.
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
