"""`tablesight serve`: the tablet app on waitress (a production WSGI server), with a join PIN."""
from __future__ import annotations

import argparse
import socket
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("serve", help="the tablet app (open the printed address on a tablet)",
                              description="Serve the tablet app. --demo serves the bundled demo table "
                                          "with no camera. Use --host 0.0.0.0 so tablets on the LAN can join.")
    p.add_argument("--camera", metavar="INDEX|URL|FILE", help="live camera: a USB index, a stream URL or a file")
    p.add_argument("--calibration", metavar="CAMERA.json", type=Path,
                   help="the camera's intrinsics from `tablesight calibrate`: frames are undistorted first")
    p.add_argument("--table", metavar="TABLE.toml", type=Path, help="the table profile")
    p.add_argument("--system", metavar="NAME", help="rule system (default: kimmiria)")
    p.add_argument("--demo", action="store_true", help="the bundled demo table and photo, no camera needed")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: the whole LAN)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--pin", help="the join PIN (default: a new random 4-digit PIN)")
    p.add_argument("--instance", type=Path, help="folder for the game logs (default: the app's instance folder)")
    p.add_argument("--threads", type=int, default=24,
                   help="server threads (default 24); live-update streams hold at most two thirds of them "
                        "(16), tablets beyond that poll every few seconds instead")
    p.set_defaults(func=run)


def lan_address() -> str | None:
    """This machine's address on the LAN (no packet is sent: a UDP socket only picks a route)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return None


def live_streams(threads: int) -> int:
    """Live-update streams held open at once: all but a third of the threads (at least 4), which
    always answer the pages (24 threads: 16 streams, 8 for pages)."""
    return max(1, threads - max(4, threads // 3))


def server_options(threads: int) -> dict:
    """waitress settings for the tablet app (also used by the tests and the load benchmark)."""
    # channel_request_lookahead lets a stream notice a tablet that went away; connection_limit is
    # well above forty tablets with a few keep-alive connections each (idle connections hold no thread).
    return {"threads": threads, "ident": "tablesight", "channel_timeout": 120, "channel_request_lookahead": 1,
            "connection_limit": 400}


def build_app(args: argparse.Namespace):
    from assistant.cli import CommandError
    from assistant.web import create_app

    if not args.demo and args.table is None:
        raise CommandError("serve: give --table TABLE.toml (or --demo for the bundled demo table)")
    if not 1 <= args.port <= 65535:
        raise CommandError(f"--port: expected 1-65535, got {args.port}")
    if args.pin is not None and not (args.pin.isdigit() and 4 <= len(args.pin) <= 8):
        raise CommandError("--pin: expected 4 to 8 digits")
    if not 2 <= args.threads <= 256:
        raise CommandError(f"--threads: expected 2-256, got {args.threads}")
    config = {"DEMO": args.demo, "TABLE": str(args.table) if args.table else None, "SYSTEM": args.system,
              "CAMERA": args.camera, "CALIBRATION": str(args.calibration) if args.calibration else None,
              "TABLE_PIN": args.pin, "LIVE_MAX_STREAMS": live_streams(args.threads)}
    if args.instance:
        config["INSTANCE_PATH"] = str(args.instance.resolve())
    return create_app(config)


def run(args: argparse.Namespace) -> int:
    import waitress

    from vision.heap import give_back_freed_memory

    give_back_freed_memory()          # flat memory over hours of frames (vision.heap)
    app = build_app(args)
    if args.camera:
        app.extensions["tablesight"]["table"].start_live(args.camera)
    shown = args.host
    if args.host in ("0.0.0.0", "::"):
        shown = lan_address() or args.host
    print(f"tablesight is ready: open http://{shown}:{args.port}/ on a tablet")
    print(f"join PIN: {app.config['TABLE_PIN']}")
    if args.host in ("127.0.0.1", "localhost"):
        print("(only this computer can connect; use --host 0.0.0.0 to let tablets on the LAN join)")
    try:
        waitress.serve(app, host=args.host, port=args.port, _quiet=True, **server_options(args.threads))
    finally:
        table = app.extensions["tablesight"]["table"]
        if table.live is not None:
            table.stop_live()
    return 0


class BackgroundServer:
    """The tablet app on waitress in a thread of this process, on 127.0.0.1 (for tests and benchmarks).

    `with BackgroundServer(app) as server:` ... `server.url`; leaving the block closes every
    connection (open event streams too) inside the server's own loop, so it ends.
    """

    def __init__(self, app, threads: int = 16, port: int = 0) -> None:
        import threading

        from waitress.server import create_server

        app.config["LIVE_MAX_STREAMS"] = live_streams(threads)
        self._server = create_server(app, host="127.0.0.1", port=port, **server_options(threads))
        self.port = self._server.effective_port
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.run, name="tablesight-test-server", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        server = self._server

        def close_all():
            for channel in list(server._map.values()):
                channel.close()
        server.trigger.pull_trigger(close_all)
        self._thread.join(10)
        server.task_dispatcher.shutdown()

    def __enter__(self) -> "BackgroundServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
