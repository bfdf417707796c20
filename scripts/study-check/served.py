"""What the fault and abuse cases share (faults.py, abuse.py): `mien serve --studies` processes of their own on
loopback ports, study folders, and a participant's socket as the page drives it."""

import atexit
import json
import os
import re
import resource
import signal
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

from checks import check, pass_framing
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

STIMULUS = "astronaut-pan-zoom"
MIEN = SAMPLE = OUT = None
FRAME = b""
FRAMED = set()  # tokens whose session passed the framing check (kept by the server across restarts)


def configure(mien, sample, out):
    """The mien binary, the repository's Samples folder and where logs go; call once before the rest."""
    global MIEN, SAMPLE, OUT, FRAME
    MIEN, SAMPLE, OUT = mien, sample, out
    FRAME = open(os.path.join(sample, "astronaut.jpg"), "rb").read()
    os.makedirs(out, exist_ok=True)


class Server:
    """`mien serve --studies FOLDER` on a loopback port, stopped by its PID."""

    def __init__(self, studies, *extra, env=None, start_timeout=20, files=None):
        self.log = os.path.join(OUT, f"serve-{int(time.monotonic() * 1000)}.log")
        self.process = subprocess.Popen(
            [MIEN, "serve", "--port", "0", "--token", "faults", "--studies", studies, *extra],
            stdout=subprocess.DEVNULL, stderr=open(self.log, "w"), env=env,
            # `files`: the server's file-descriptor limit, soft and hard (as `ulimit -n` in its shell).
            preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))) if files else None)
        # A case that fails midway (an exception, not a check) still stops every server it started, by its PID.
        atexit.register(lambda: self.stop(signal.SIGKILL))
        deadline = time.monotonic() + start_timeout
        while True:
            match = re.search(r"listening on http://127.0.0.1:(\d+)/", self.text())
            if match:
                self.base = f"http://127.0.0.1:{match.group(1)}"
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop(signal.SIGKILL)
                raise RuntimeError(f"mien serve did not start: {self.text()}")
            time.sleep(0.1)

    def text(self):
        return open(self.log).read()

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=30)

    def http(self, method, path, body=None, token=None):
        request = urllib.request.Request(self.base + path, data=body, method=method,
                                         headers={"Content-Type": "application/json"})
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            return error.code, error.read(), error.headers

    def consent(self, study, participant=None):
        body = {"agreed": True} | ({"participant": participant} if participant else {})
        status, data, headers = self.http("POST", f"/studies/{study}/sessions", json.dumps(body).encode())
        return status, json.loads(data or b"null"), headers

    def session(self, study, participant):
        status, data, _ = self.http("GET", f"/studies/{study}/dashboard/participants", token="faults")
        return {row["participant"]: row for row in json.loads(data)}.get(participant, {}) if status == 200 else {}

    def socket(self, study, token, stimulus=STIMULUS):
        """A participant's socket; a stimulus's after the framing check the server judges (once per token)."""
        base = f"{self.base.replace('http', 'ws')}/studies/{study}/live?session={token}"
        if stimulus and token not in FRAMED:
            pass_framing(base, FRAME)
            FRAMED.add(token)
        query = f"session={token}" + (f"&stimulus={stimulus}" if stimulus else "")
        return connect(f"{self.base.replace('http', 'ws')}/studies/{study}/live?{query}", max_size=None,
                       open_timeout=10)


def study(folder, name, *options):
    path = os.path.join(folder, name)
    run = subprocess.run([MIEN, "study", "init", path, "--stimulus", os.path.join(SAMPLE, f"{STIMULUS}.mp4"),
                          "--contact", "faults@example.org", *options], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"faults: mien study init: {run.stderr}")
    return path


def ready(ws):
    """Messages until `ready` (after a queue, if any); returns them."""
    messages = []
    while True:
        message = json.loads(ws.recv(timeout=60))
        messages.append(message)
        if message["type"] in ("ready", "error", "restarting"):
            return messages


def stream(ws, start=0.0, seconds=1.0, rate=10, stop_when=None):
    """Frames on stimulus time from `start` for `seconds`; returns the messages the server sent meanwhile."""
    received = []
    began = time.monotonic()
    for index in range(int(seconds * rate)):
        time.sleep(max(0, began + index / rate - time.monotonic()))
        try:
            ws.send(struct.pack("<d", (start + index / rate) * 1000) + FRAME)
        except ConnectionClosed:
            break
        try:
            while True:
                received.append(json.loads(ws.recv(timeout=0)))
        except (TimeoutError, ConnectionClosed):
            pass
        if stop_when and stop_when():
            break
    return received


def finish(ws):
    """Says the stimulus ended; returns the messages up to the close."""
    ws.send(json.dumps({"type": "end"}))
    messages = []
    try:
        while True:
            messages.append(json.loads(ws.recv(timeout=30)))
    except ConnectionClosed:
        pass
    return messages


def watch_whole(server, name, token):
    with server.socket(name, token) as ws:
        check(ready(ws)[-1]["type"] == "ready", "a socket is ready")
        stream(ws, seconds=3.0)
        return finish(ws)
