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


def canvas_camera(away=None):
    """JavaScript giving the page's `getUserMedia` a camera for engines without a file-playing fake device: a 640x360
    canvas stream at 15 fps drawing the study's own stimulus (a face), and an empty grey picture while the page's
    stimulus is between `away[0]` and `away[1]` seconds (away.py). Evaluates to true."""
    lower, upper = away if away else (-1, -1)
    return """
(() => {
  if (!navigator.mediaDevices) Object.defineProperty(navigator, 'mediaDevices', { value: {}, configurable: true });
  navigator.mediaDevices.getUserMedia = async () => {
    const config = await (await fetch(location.pathname.replace(/\\/?$/, '/config'))).json();
    const video = document.createElement('video');
    video.src = config.stimuli[0].url; video.muted = true; video.loop = true; video.playsInline = true;
    await video.play();
    const canvas = document.createElement('canvas');
    canvas.width = 640; canvas.height = 360;
    const context = canvas.getContext('2d');
    const draw = () => {
      const time = document.getElementById('stimulus')?.currentTime ?? 0;
      const away = document.documentElement.dataset.stage?.startsWith('stimulus:') && time >= %s && time < %s;
      context.fillStyle = '#808080';
      context.fillRect(0, 0, canvas.width, canvas.height);
      if (!away) context.drawImage(video, 0, 0, canvas.width, canvas.height);
    };
    setInterval(draw, 1000 / 30);
    draw();
    return canvas.captureStream(15);
  };
  return true;
})()
""" % (lower, upper)


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
