"""What the study-check scripts share: a check that records a failure and goes on, and the verdict at the end."""

import json
import struct
import sys
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

problems = []


def check(condition, message):
    """Records `message` as a problem when `condition` is false; returns the condition."""
    if not condition:
        problems.append(message)
        print(f"  FAILED: {message}")
    return condition


def verdict(part):
    """Exits with every problem found, or returns when there was none."""
    if problems:
        sys.exit(f"study-check{part}: {len(problems)} problem(s):\n  " + "\n  ".join(problems))


def pass_framing(url, frame):
    """Passes a session's framing check on its socket `url` (`ws://…/live?session=TOKEN`) as the page does, frames at
    5 a second until the server says `positioned` (a stimulus needs a check the server saw pass), then `framed` and
    the server's `ended`; returns whether it passed."""
    heard = []
    with connect(url, max_size=None, open_timeout=10) as ws:
        while not heard or heard[-1] not in ("ready", "error"):
            heard.append(json.loads(ws.recv(timeout=120)).get("type"))
        for index in range(150):  # 30 s at most
            if "positioned" in heard or heard[-1] == "error":
                break
            ws.send(struct.pack("<d", index * 200.0) + frame)
            time.sleep(0.2)
            try:
                while True:
                    heard.append(json.loads(ws.recv(timeout=0)).get("type"))
            except (TimeoutError, ConnectionClosed):
                pass
        if "positioned" not in heard:
            return check(False, f"the framing check on {url.split('?')[0]}: not positioned (heard {heard})")
        ws.send(json.dumps({"type": "framed"}))
        while heard[-1] not in ("ended", "error"):
            heard.append(json.loads(ws.recv(timeout=30)).get("type"))
    return check(heard[-1] == "ended", f"the framing check on {url.split('?')[0]}: {heard}")
