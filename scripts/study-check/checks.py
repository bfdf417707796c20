"""What the study-check scripts share: a check that records a failure and goes on, and the verdict at the end."""

import csv
import json
import os
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


def canvas_camera(away=None, until_retry=False):
    """JavaScript giving the page's `getUserMedia` a camera for engines without a file-playing fake device: a 640x360
    canvas stream at 15 fps drawing the study's own stimulus (a face), and an empty grey picture while the page's
    stimulus is between `away[0]` and `away[1]` seconds (away.py); with `until_retry`, only until the test sets
    `window.__retried` (check.py's participant shown a stimulus again). Evaluates to true."""
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
      const away = document.documentElement.dataset.stage?.startsWith('stimulus:') && time >= %s && time < %s
        && !(%s && window.__retried);
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
""" % (lower, upper, "true" if until_retry else "false")


def page_hidden(hidden):
    """JavaScript telling the page its tab is hidden (or shown again) as a browser tells it: `document.hidden` and
    `visibilityState` read so and `visibilitychange` fires. The page then sends no frame (its `stamp()` is null) and
    records the stretch as hidden, as behind a real tab (issue 96 item 1's second cause: a page driven by a test is
    always in front). Evaluates to true."""
    return """((hidden) => {
  for (const [name, value] of [['hidden', hidden], ['visibilityState', hidden ? 'hidden' : 'visible']])
    Object.defineProperty(document, name, { configurable: true, get: () => value });
  document.dispatchEvent(new Event('visibilitychange'));
  return true;
})(%s)""" % ("true" if hidden else "false")


def take_part_with_camera(browser, url, camera, agree, framing_then_watch, wait_done):
    """One participant through the page at `url` in a new context of `browser` whose `getUserMedia` is `camera`
    (JavaScript, as `canvas_camera` gives): consent, the framing check, the stimuli; returns their completion."""
    ctx = browser.new_context()
    ctx.add_init_script(camera)
    page = ctx.new_page()
    page.goto(url)
    agree(page)
    framing_then_watch(page)
    outcome = wait_done(page)
    ctx.close()
    return outcome


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


def nothing_happened(result):
    """Checks that `mien study`'s output folder `result` says a panel of still faces did nothing (issue 95): no frame
    settling (the framing check learnt each face's rest, which its stimuli start from), no response or difference of
    the report's size (5 points), no significant ISC, every panel curve within 5 points of its first bin. Returns the
    figures in words."""
    with open(os.path.join(result, "participants.csv")) as file:
        rows = list(csv.DictReader(file))
    settling = [row["participant"] for row in rows if "frames settling" in row["notes"]]
    check(not settling, f"a still face settles though the framing check learnt its rest: {settling}")
    with open(os.path.join(result, "moments.csv")) as file:
        moments = [row for row in csv.DictReader(file)
                   if row["kind"] in ("response", "difference") and abs(float(row["value"] or 0)) >= 5]
    check(not moments, "still faces respond: " + "; ".join(
        f"{row['kind']} {row['metric']} {row['value']} at {row['time']} s" for row in moments[:5]))
    with open(os.path.join(result, "isc.csv")) as file:
        iscs = list(csv.DictReader(file))
    correlated = [row for row in iscs if row["p"] and float(row["p"].lstrip("<")) < 0.05]
    check(not correlated, f"still faces correlate: {[(row['metric'], row['isc'], row['p']) for row in correlated[:5]]}")
    curves = {}
    with open(os.path.join(result, "curves.csv")) as file:
        for row in csv.DictReader(file):
            if row["group"] == "all" and row["mean"]:
                curves.setdefault(row["metric"], []).append((float(row["time"]), float(row["mean"])))
    moved = {metric: max(abs(mean - min(points)[1]) for _, mean in points) for metric, points in curves.items()}
    largest = max(moved.items(), key=lambda item: item[1], default=("none", 0))
    check(len(curves) > 40 and largest[1] <= 5,
          f"a still panel's curve moves {largest[1]:.1f} points from its first bin ({largest[0]}; {len(curves)} curves)")
    tested = sum(1 for row in iscs if row["isc"])
    included = sum(1 for row in rows if not row["exclusion"])
    return (f"{included} of {len(rows)} included, largest curve movement {largest[1]:.1f} points ({largest[0]}), "
            f"{len(moments)} responses, {len(correlated)} of {tested} ISCs tested significant, {len(settling)} settling")
