"""A panel collected from a link, checked end to end in Chromium (`make study-check` part 1, run by run.sh).

1. Headless Chromium, driven by the participant page's accessible names, takes part in study `ad` (groups A and B):
   three complete (two by the link's signed group=, one balanced); one closes the tab halfway and comes back with the
   same link in the same browser (re-entry by the kept token; another browser with that link is refused); one reloads mid-stimulus (re-entry by the kept token); one
   blocks the camera, then reloads with it allowed; one opens a second tab mid-stimulus (the second goes on, the
   first is told); one declines (the panel's screen-out link); one takes part on a phone viewport (the controls in
   view, the hint to turn the phone); one takes part in `adrec`, which records the webcam; one (r1) whose face is out
   of the picture is shown the stimulus again, through the position check out of full screen (issue 96); and six
   still faces take part in `still`, whose report must say nothing happened (still.py, issue 95).
2. What was stored: sessions, attempts kept apart, manifest rows with onset 0, result files, no picture in `ad`.
3. `mien study` aggregates the collected folder without analysing again; the recorded participant's live series
   equals the series `mien study` gives for the uploaded recording with the onset the page measured.
4. The dashboard: counts per group against the targets, completion codes as shown to participants, exports
   without a server path.
5. Every refusal: no token, another participant's token, a completed ID again (saying nothing of its state), a
   frame flood, an over-size frame, an over-size and a non-video upload, `..` in an ID, a dashboard without the
   service token; and the right to erasure.
"""

import argparse
import csv
import hashlib
import hmac
import json
import os
import shutil
import struct
import subprocess
import time
import urllib.error
import urllib.request

from playwright.sync_api import expect, sync_playwright
import away
import questions
import still
from checks import canvas_camera, check, page_hidden, pass_framing, verdict
from websockets.sync.client import connect

parser = argparse.ArgumentParser()
for name in ("base", "token", "studies", "out", "mien", "camera", "server-pid", "eval"):
    parser.add_argument(f"--{name}", required=True)
args = parser.parse_args()


def http(method, path, body=None, token=None, headers=None):
    request = urllib.request.Request(args.base + path, data=body, method=method, headers=headers or {})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def group_link(group):
    """A link's signed group (`&group=G&gs=SIGNATURE`) as `mien study init` prints it: computed here with Python's
    hmac from the key in the study's settings, so the server's HMAC-SHA256 is checked against another's."""
    with open(os.path.join(args.studies, "ad", "settings.json")) as file:
        key = json.load(file)["fieldwork"]["groupLinkKey"]
    signature = hmac.new(key.encode(), f"mien group link\n{group}".encode(), hashlib.sha256).hexdigest()[:16]
    return f"&group={group}&gs={signature}"


def consent(study, participant=None, group=None):
    body = {"agreed": True}
    if participant is not None:
        body["participant"] = participant
    if group is not None:
        body["group"] = group
    status, data = http("POST", f"/studies/{study}/sessions", json.dumps(body).encode(),
                        headers={"Content-Type": "application/json"})
    return status, json.loads(data) if data else None


def dashboard(study, table):
    status, data = http("GET", f"/studies/{study}/dashboard/{table}", token=args.token)
    check(status == 200, f"dashboard {table}: {status}")
    return data


def sessions(study):
    return {row["participant"]: row for row in json.loads(dashboard(study, "participants") or b"[]")}


# 1. Participants in a real browser ---------------------------------------------------------------------------
def agree(page):
    page.get_by_role("checkbox", name="I have read this and agree to take part").check()
    page.get_by_role("button", name="I agree").click()


def framing_then_watch(page):
    page.get_by_role("button", name="Turn on the camera").click()
    start = page.get_by_role("button", name="Start watching")
    expect(start).to_be_enabled(timeout=60_000)  # the framing check passed for its seconds
    start.click()


def framing_then_watch_unless_done(page):
    """After a reload mid-stimulus: the framing check, then the rest of the stimulus, unless the page learns the
    stimulus had already been measured to its end (the sample is 1.5 s long: a slow reload can come after it)."""
    page.get_by_role("button", name="Turn on the camera").click()
    page.wait_for_function(
        "document.documentElement.dataset.stage === 'done' || !document.getElementById('start-watching').disabled",
        timeout=60_000)
    if page.evaluate("document.documentElement.dataset.stage") == "done":
        return "the stimulus had ended before the reload"
    page.get_by_role("button", name="Start watching").click()
    return "went on with the stimulus"


def wait_done(page):
    page.wait_for_function("document.documentElement.dataset.stage === 'done'", timeout=120_000)
    return page.evaluate("document.documentElement.dataset.code"), page.locator("#done-text").inner_text()


def wait_stimulus(page):
    page.wait_for_function("document.documentElement.dataset.stage.startsWith('stimulus:')", timeout=60_000)


def new_page(browser, **context):
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    page.on("console", lambda message: message.type == "error" and print(f"    page: {message.text}"))
    return ctx, page


def take_part(browser, study, query, **context):
    ctx, page = new_page(browser, **context)
    page.goto(f"{args.base}/studies/{study}/?{query}")
    agree(page)
    framing_then_watch(page)
    outcome = wait_done(page)
    ctx.close()
    return outcome


def in_view(page, locator):
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"] + 1


print("== participants in headless Chromium (fake camera: the bundled sample)")
started = time.monotonic()
codes = {}
with sync_playwright() as playwright:
    browser = playwright.chromium.launch(
        executable_path=shutil.which("chromium") or "/usr/bin/chromium",
        args=["--no-sandbox", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
              f"--use-file-for-fake-video-capture={args.camera}", "--autoplay-policy=no-user-gesture-required"])
    for participant, group in (("p1", "A"), ("p2", "B"), ("p3", None)):
        query = f"participant={participant}&redirect=0" + (group_link(group) if group else "")
        codes[participant] = take_part(browser, "ad", query)
        print(f"  {participant}: {codes[participant]}")

    # p4 closes the tab halfway, then comes back with the same link in the same browser (the token its storage
    # kept): the framing check again, going on. The same link in another browser (no token) is refused in one answer:
    # an ID is not a credential (issue 94).
    ctx, page = new_page(browser)
    p4_link = f"{args.base}/studies/ad/?participant=p4{group_link('B')}&redirect=0"
    page.goto(p4_link)
    agree(page)
    framing_then_watch(page)
    wait_stimulus(page)
    time.sleep(1.5)
    page.close()
    time.sleep(1)
    other_ctx, other = new_page(browser)
    other.goto(p4_link)
    agree(other)
    other.wait_for_function("document.documentElement.dataset.stage === 'done'", timeout=30_000)
    heading = other.locator("#done-heading").inner_text()
    check("already taken part" in heading and not other.evaluate("document.documentElement.dataset.code"),
          f"the same ID in another browser is refused, with no code: {heading}")
    other_ctx.close()
    page = ctx.new_page()
    page.goto(p4_link)
    framing_then_watch(page)
    codes["p4"] = wait_done(page)
    ctx.close()
    print(f"  p4 (closed the tab, came back in the same browser; another browser refused): {codes['p4']}")

    # p6 reloads mid-stimulus: the page keeps its token and goes on from that stimulus.
    ctx, page = new_page(browser)
    page.goto(f"{args.base}/studies/ad/?participant=p6&redirect=0")
    agree(page)
    framing_then_watch(page)
    wait_stimulus(page)
    time.sleep(0.4)
    page.reload()
    expect(page.get_by_role("button", name="Turn on the camera")).to_be_visible(timeout=30_000)
    how = framing_then_watch_unless_done(page)
    codes["p6"] = wait_done(page)
    ctx.close()
    print(f"  p6 (reloaded mid-stimulus, {how}): {codes['p6']}")

    # p7 blocks the camera (told how to allow it, offered the way out), then reloads with the camera allowed.
    ctx, page = new_page(browser)
    page.add_init_script("navigator.mediaDevices.getUserMedia = () => "
                         "Promise.reject(new DOMException('blocked', 'NotAllowedError'));")
    page.goto(f"{args.base}/studies/ad/?participant=p7&redirect=0")
    agree(page)
    page.get_by_role("button", name="Turn on the camera").click()
    expect(page.get_by_role("status")).to_contain_text("blocked", timeout=10_000)
    check(page.get_by_role("button", name="I cannot use a camera").is_visible(), "a blocked camera offers the way out")
    second = ctx.new_page()  # the same browser (its storage), a page without the block: as a reload once allowed
    page.close()
    second.goto(f"{args.base}/studies/ad/?participant=p7&redirect=0")
    framing_then_watch(second)
    codes["p7"] = wait_done(second)
    ctx.close()
    print(f"  p7 (blocked the camera, then reloaded): {codes['p7']}")

    # p9 opens a second tab mid-stimulus: the second goes on, the first is told.
    ctx, page = new_page(browser)
    page.goto(f"{args.base}/studies/ad/?participant=p9&redirect=0")
    agree(page)
    framing_then_watch(page)
    wait_stimulus(page)
    other = ctx.new_page()
    other.goto(f"{args.base}/studies/ad/?participant=p9&redirect=0")
    framing_then_watch(other)
    codes["p9"] = wait_done(other)
    check("another tab" in page.locator("#done-heading").inner_text(),
          f"the first tab is told another went on: {page.locator('#done-heading').inner_text()}")
    ctx.close()
    print(f"  p9 (two tabs): {codes['p9']}")

    # p5 declines: nothing stored, the panel's screen-out link.
    ctx, page = new_page(browser)
    page.goto(f"{args.base}/studies/ad/?participant=p5")
    page.get_by_role("button", name="I do not agree").click()
    expect(page.get_by_role("heading", name="You chose not to take part")).to_be_visible()
    link = page.get_by_role("link", name="Return to the panel").get_attribute("href") or ""
    check("reason=declined" in link and "code=SCREEN" in link and "participant=p5" in link, f"decline link: {link}")
    ctx.close()

    # p8 on a phone: consent and controls in view, the hint to turn the phone for a wide video.
    ctx, page = new_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(f"{args.base}/studies/ad/?participant=p8&redirect=0")
    check(in_view(page, page.get_by_role("button", name="I agree")), "phone: I agree in view with the consent")
    check(page.locator("#consent-more").is_visible(), "phone: the consent says there is more to scroll")
    font = page.evaluate("parseFloat(getComputedStyle(document.querySelector('#consent-text')).fontSize)")
    check(font >= 15, f"phone: the consent is readable ({font} px)")
    # The default consent's "For each picture:" is a paragraph and what is kept a list (issue 77: it ran together).
    items = page.locator("#consent-text ul li").count()
    lead = page.locator("#consent-text p", has_text="For each picture").count()
    check(items >= 3 and lead == 1, f"the consent's list renders as a list: {items} items, {lead} lead paragraph")
    agree(page)
    page.get_by_role("button", name="Turn on the camera").click()
    start = page.get_by_role("button", name="Start watching")
    expect(start).to_be_enabled(timeout=60_000)
    check(in_view(page, start), "phone: Start watching in view during the framing check")
    page.screenshot(path=os.path.join(args.out, "phone-framing.png"))
    start.click()
    wait_stimulus(page)
    check(page.locator("#rotate-hint").is_visible(), "phone: a hint to turn the phone for a 16:9 video")
    codes["p8"] = wait_done(page)
    ctx.close()
    print(f"  p8 (phone): {codes['p8']}")

    codes["r1"] = take_part(browser, "adrec", "participant=r1")
    print(f"  r1: {codes['r1']}")

    # Issue 79: v1 switches to another tab mid-stimulus (headless Chromium never hides a page by itself: the page is
    # shown what a tab switch shows it), and v2's network is throttled so that the stimulus stalls.
    ctx, page = new_page(browser)
    page.add_init_script(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => window.__hidden === true});"
        "Object.defineProperty(document, 'visibilityState', {configurable: true,"
        " get: () => window.__hidden ? 'hidden' : 'visible'});")
    page.goto(f"{args.base}/studies/viewing/?participant=v1&redirect=0")
    agree(page)
    framing_then_watch(page)
    wait_stimulus(page)
    page.wait_for_function("document.getElementById('stimulus').currentTime > 0.2", timeout=30_000)
    switch = ("(hidden) => { window.__hidden = hidden; document.dispatchEvent(new Event('visibilitychange'));"
              " return document.getElementById('stimulus').currentTime; }")
    switched = {"hidden": page.evaluate(switch, True)}
    time.sleep(0.5)
    switched["visible"] = page.evaluate(switch, False)
    codes["v1"] = wait_done(page)
    ctx.close()
    print(f"  v1 (hid the tab at {switched['hidden']:.2f} s of the stimulus, back at {switched['visible']:.2f} s): "
          f"{codes['v1']}")
    ctx, page = new_page(browser)
    page.goto(f"{args.base}/studies/viewing/?participant=v2&redirect=0")
    agree(page)
    page.get_by_role("button", name="Turn on the camera").click()
    start = page.get_by_role("button", name="Start watching")
    expect(start).to_be_enabled(timeout=60_000)
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    # 100 kB/s down for a 530-kB stimulus: it waits for data; frames go up as before.
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 50, "downloadThroughput": 100_000,
                                                   "uploadThroughput": 4_000_000})
    began = time.monotonic()
    start.click()
    codes["v2"] = wait_done(page)
    stalled_for = time.monotonic() - began
    ctx.close()
    print(f"  v2 (a throttled network, {stalled_for:.1f} s from Start watching to the end): {codes['v2']}")
    # Issue 79's retention: s1 presses Skip as soon as it shows (after 1 s), s2 watches to the end.
    ctx, page = new_page(browser)
    page.goto(f"{args.base}/studies/skip/?participant=s1&redirect=0")
    agree(page)
    framing_then_watch(page)
    wait_stimulus(page)
    skip_button = page.locator("#skip")
    expect(skip_button).to_be_visible(timeout=30_000)
    skipped_at = page.evaluate("document.getElementById('stimulus').currentTime")
    skip_button.click()
    codes["s1"] = wait_done(page)
    ctx.close()
    print(f"  s1 (pressed Skip at about {skipped_at:.2f} s): {codes['s1']}")
    codes["s2"] = take_part(browser, "skip", "participant=s2&redirect=0")
    print(f"  s2 (watched to the end): {codes['s2']}")
    # Issue 79: v3's face leaves the camera's frame for a known stretch of the stimulus (away.py).
    codes["v3"] = away.take_part(browser, args.base, agree, framing_then_watch, wait_done)
    print(f"  v3 (out of frame {away.AWAY[0]}-{away.AWAY[1]} s): {codes['v3']}")
    # Issue 80: questions after the advert and at the end, answered as the test sets (questions.py).
    answered, answer_tokens, early = questions.take_part(browser, args.base, args.out, agree, framing_then_watch,
                                                         wait_done, new_page)
    codes.update(answered)
    for problem in early:
        check(False, problem)
    # Issue 96 items 1-2: r1's face is out of the picture for most of the stimulus, so it plays once more: the page
    # leaves full screen and shows the position check again, live, and Start watching can be reached.
    ctx = browser.new_context()
    ctx.add_init_script(canvas_camera((0.2, 2.95), until_retry=True))
    page = ctx.new_page()
    page.goto(f"{args.base}/studies/retry/?participant=r1&redirect=0")
    agree(page)
    framing_then_watch(page)
    page.wait_for_function("document.getElementById('status').textContent.includes('play once more')",
                           timeout=60_000)
    shown = page.evaluate("""() => { const box = document.getElementById('camera-preview').getBoundingClientRect();
        return {fullscreen: !!document.fullscreenElement, player: !document.getElementById('stage-player').hidden,
                preview: box.width > 0 && box.height > 0, stage: document.documentElement.dataset.stage}; }""")
    check(not shown["fullscreen"] and not shown["player"] and shown["preview"],
          f"r1: out of full screen, the player gone and the camera shown for the check again: {shown}")
    page.evaluate("window.__retried = true")
    start = page.get_by_role("button", name="Start watching")
    expect(start).to_be_enabled(timeout=60_000)  # the check passed again, live
    start.click()
    codes["r1"] = wait_done(page)
    ctx.close()
    print(f"  r1 (face away, shown the stimulus again): {codes['r1']}")
    # The other cause on a phone: r2's tab is hidden through the stimulus, so it plays once more.
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    ctx.add_init_script(canvas_camera())
    page = ctx.new_page()
    page.goto(f"{args.base}/studies/retry/?participant=r2&redirect=0")
    agree(page)
    framing_then_watch(page)
    page.wait_for_function("document.documentElement.dataset.stage.startsWith('stimulus:')", timeout=60_000)
    page.evaluate(page_hidden(True))
    page.wait_for_function("document.documentElement.dataset.stage === 'framing'", timeout=60_000)
    page.evaluate(page_hidden(False))
    shown = page.evaluate("""() => ({fullscreen: !!document.fullscreenElement,
        player: !document.getElementById('stage-player').hidden, status: document.getElementById('status').textContent})""")
    check(not shown["fullscreen"] and not shown["player"], f"r2 (tab hidden, phone): out of full screen: {shown}")
    start = page.get_by_role("button", name="Start watching")
    expect(start).to_be_enabled(timeout=60_000)
    start.click()
    codes["r2"] = wait_done(page)
    ctx.close()
    print(f"  r2 (tab hidden, phone, shown the stimulus again): {codes['r2']}")
    # Issue 96 item 7: e1 is erased while watching: the page says so, once, and stops (it went on to "connection
    # lost", then "This session has ended").
    ctx, page = new_page(browser)
    page.goto(f"{args.base}/studies/retry/?participant=e1&redirect=0")
    agree(page)
    framing_then_watch(page)
    wait_stimulus(page)
    erased, _ = http("DELETE", "/studies/retry/participants/e1", token=args.token)
    check(erased in (200, 204), f"e1 erased mid-stimulus: {erased}")
    page.wait_for_function("document.documentElement.dataset.stage === 'done'", timeout=30_000)
    said = page.locator("#done-heading").inner_text()
    time.sleep(2)  # nothing after it: the page has stopped
    check(said == "Your data was deleted" and page.locator("#done-heading").inner_text() == said,
          f"e1: the page says their data was deleted, and stays there: {said!r}")
    ctx.close()
    # Issue 95: a null panel of still faces, each its own person (still.py).
    still_started = time.monotonic()
    stills = still.take_part(browser, args.base, args.eval, agree, framing_then_watch, wait_done)
    if stills is None:
        print(f"  still faces: skipped ({args.eval} is absent)")
        check(os.environ.get("CI") != "true", f"the still faces' evaluation data is absent under CI: {args.eval}")
    else:
        print(f"  still faces: {len(stills)} through the page in {time.monotonic() - still_started:.1f} s")
    browser.close()
print(f"  browser part: {time.monotonic() - started:.1f} s")
time.sleep(1)

# 2. What was stored --------------------------------------------------------------------------------------------
print("== what the study folders hold")
ad = os.path.join(args.studies, "ad")
rows = sessions("ad")
completed = ("p1", "p2", "p3", "p4", "p6", "p7", "p8", "p9")
for participant in completed:
    row = rows.get(participant, {})
    check(row.get("state") == "complete", f"{participant} complete: {row}")
    check(codes.get(participant) and codes[participant][0] == row.get("code"),
          f"{participant} saw the completion code the dashboard lists: {codes.get(participant)} / {row.get('code')}")
check(rows.get("p1", {}).get("group") == "A" and rows.get("p2", {}).get("group") == "B",
      "the link's signed group= assigns the group")
check(rows.get("p3", {}).get("group") in ("A", "B"), "a participant without group= is given one")
for participant in ("p4", "p6"):
    row = rows.get(participant, {})
    check(row.get("reentries", 0) >= 1 and row.get("attempts", 0) == 1,
          f"{participant} came back, their interrupted attempt kept apart: {row}")
    attempt = os.path.join(ad, "participants", participant, "astronaut-pan-zoom.attempt1.jsonl")
    check(os.path.exists(attempt), f"{participant}'s first attempt's results: {attempt}")
check("p5" not in rows and not os.path.exists(os.path.join(ad, "participants", "p5")), "declining stored nothing")
with open(os.path.join(ad, "manifest.csv")) as file:
    manifest = list(csv.DictReader(file))
check(sorted(row["participant"] for row in manifest) == sorted(completed), f"manifest rows: {manifest}")
check(all(float(row["onset"]) == 0 and row["status"] == "complete" for row in manifest), "manifest: onset 0, complete")
pictures = [os.path.join(folder, name) for folder, _, names in os.walk(ad) for name in names
            if not folder.endswith("stimuli")
            and name.rsplit(".", 1)[-1].lower() in ("jpg", "jpeg", "png", "webm", "mp4", "y4m", "mkv", "part")]
check(not pictures, f"no image or video stored in the default mode: {pictures}")
leftovers = [name for _, _, names in os.walk(ad) for name in names if ".partial-" in name]
check(not leftovers, f"no temporary file left: {leftovers}")
for participant in ("p1", "p2", "p3", "r1"):
    study = "adrec" if participant == "r1" else "ad"
    session = json.load(open(os.path.join(args.studies, study, "participants", participant, "session.json")))
    progress = session["stimuli"]["astronaut-pan-zoom"]
    # Every frame the page sent is analysed (a live source's default 5 fps cap once left half of them out).
    check(progress["frames"] >= 20 and progress["analysed"] >= 0.95 * progress["frames"],
          f"{participant}: {progress['analysed']} of {progress['frames']} frames analysed")
    check(progress["coverage"] >= 0.9, f"{participant}: {progress['coverage']} of the stimulus measured")
for participant in ("p1", "p2", "p3"):
    summary = json.load(open(os.path.join(ad, "participants", participant, "astronaut-pan-zoom.summary.json")))
    check(summary.get("ended") == "complete" and summary.get("processedFrames", 0) >= 15,
          f"{participant}'s summary: {summary.get('ended')}, {summary.get('processedFrames')} frames analysed")
stored = open(os.path.join(ad, "STORED.md")).read() + open(os.path.join(ad, "consent.md")).read()
for words in ("34 points", "gender", "study@example.org", "how your head is turned"):
    check(words in stored, f"STORED.md and consent.md say what is kept: {words}")

# Issue 79: what the pages recorded of the viewing.
view = os.path.join(args.studies, "viewing")


def viewing_of(participant):
    session = json.load(open(os.path.join(view, "participants", participant, "session.json")))
    return session["stimuli"].get("astronaut-pan-zoom", {}).get("viewing") or {}


v1 = viewing_of("v1")
kinds = [event["kind"] for event in v1.get("events", [])]
hidden = [event["at"] for event in v1.get("events", []) if event["kind"] == "hidden"]
shown = [event["at"] for event in v1.get("events", []) if event["kind"] == "visible"]
check(len(hidden) == 1 and len(shown) == 1, f"v1: one tab switch recorded: {v1.get('events')}")
if hidden and shown:
    # Within a frame interval of the stimulus (15 fps) at its time, and within a second in length.
    check(abs(hidden[0] - switched["hidden"]) <= 1 / 15 and abs(shown[0] - switched["visible"]) <= 1 / 15,
          f"v1: the switch at the stimulus's times: {hidden[0]}, {shown[0]} / {switched}")
    check(abs((shown[0] - hidden[0]) - (switched["visible"] - switched["hidden"])) <= 1.0,
          f"v1: the hidden stretch's length: {shown[0] - hidden[0]:.2f} s")
camera = v1.get("camera") or {}
check(camera.get("width") == 640 and camera.get("height") == 360, f"v1: the camera's picture recorded: {camera}")
check((v1.get("screen") or {}).get("width", 0) > 0, f"v1: the screen recorded: {v1.get('screen')}")
timing = v1.get("timing")
print(f"  v1: events {kinds}; camera {camera}; playback {v1.get('playback')}; timing {timing}")
v2 = viewing_of("v2")
stalls = [event for event in v2.get("events", []) if event["kind"] == "stall"]
stall_seconds = sum(event.get("length", 0) for event in stalls)
check(stalls and 0.5 <= stall_seconds <= stalled_for, f"v2: the stalls recorded ({stall_seconds:.1f} s): {v2}")
print(f"  v2: {len(stalls)} stall(s), {stall_seconds:.1f} s; timing {v2.get('timing')}")
row = sessions("viewing").get("v1", {})
check(abs(((row.get("viewing") or {}).get("hiddenSeconds") or 0) - (shown[0] - hidden[0] if hidden and shown else 0))
      < 0.01, f"the dashboard shows v1's hidden seconds: {row.get('viewing')}")
away.verify(args.studies, args.out, args.mien, sessions)
questions.verify(args.studies, args.out, args.mien, sessions, dashboard, http, codes, answer_tokens)
still.verify(args.studies, args.out, args.mien, stills)
retried = sessions("retry").get("r1", {})
check(retried.get("attempts") == 1 and "shown again after attempt 1" in (retried.get("review") or ""),
      f"the dashboard: r1's earlier attempt and why it was repeated: {retried.get('attempts')} {retried.get('review')}")
retried = sessions("retry").get("r2", {})
check(retried.get("attempts") == 1 and "shown again after attempt 1" in (retried.get("review") or ""),
      f"the dashboard: r2's earlier attempt (tab hidden) and why: {retried.get('attempts')} {retried.get('review')}")
review = {line.split(",")[0]: line for line in dashboard("viewing", "approvals.csv").decode().splitlines()[1:]}
check("viewing rule hidden" in review.get("v1", "") and ",approve," in review.get("v1", ""),
      f"approvals.csv: v1 approved, marked for review: {review.get('v1')}")

# 3. Aggregation, and live against recorded ---------------------------------------------------------------------
print("== mien study on the collected folders")
live_out, recorded_out = os.path.join(args.out, "results", "live"), os.path.join(args.out, "results", "recorded")
run = subprocess.run([args.mien, "study", ad, "--output", os.path.join(args.out, "results", "ad")],
                     capture_output=True, text=True)
check(run.returncode == 0, f"mien study ad: {run.returncode} {run.stderr[-500:]}")
check("nothing analysed again" in run.stderr, f"mien study said it only aggregated: {run.stderr[-300:]}")
with open(os.path.join(args.out, "results", "ad", "participants.csv")) as file:
    aggregated = {row["participant"]: row for row in csv.DictReader(file)}
check(all(aggregated.get(p, {}).get("included") == "1" for p in completed),
      f"every completer included: {[(p, aggregated.get(p, {}).get('included'), aggregated.get(p, {}).get('exclusion')) for p in aggregated]}")
check(all(aggregated.get(p, {}).get("viewing") == "recorded" for p in completed),
      f"participants.csv says each page recorded the viewing: {[aggregated.get(p, {}).get('viewing') for p in completed]}")
# Issue 79: the viewing rules: v1 hid the tab for about a sixth of the stimulus (the default allows 10 %), v2 stalled (a
# rule of 1 s here: its stall's length depends on the machine); with --quality off both are included.
for quality, expected in (("stalls=1", {"v1": "viewing rule hidden", "v2": "viewing rule stalls"}),
                          ("off", {"v1": None, "v2": None})):
    out = os.path.join(args.out, "results", f"viewing-{quality}")
    run = subprocess.run([args.mien, "study", view, "--output", out, "--quality", quality], capture_output=True,
                         text=True)
    check(run.returncode == 0, f"mien study viewing --quality {quality}: {run.returncode} {run.stderr[-300:]}")
    with open(os.path.join(out, "participants.csv")) as file:
        judged = {row["participant"]: row for row in csv.DictReader(file)}
    for participant, rule in expected.items():
        row = judged.get(participant, {})
        if rule:
            check(row.get("included") == "0" and rule in row.get("exclusion", ""),
                  f"--quality {quality}: {participant} left out by {rule}: {row.get('exclusion')}")
        else:
            check(row.get("included") == "1", f"--quality off: {participant} included: {row.get('exclusion')}")
    print(f"  --quality {quality}: " + "; ".join(f"{p}: {judged.get(p, {}).get('exclusion') or 'included'}"
                                                 for p in expected))
# Issue 79: who watched (the attention curve) and who stayed (retention of the skippable study).
with open(os.path.join(args.out, "results", "ad", "attention.csv")) as file:
    attention = [row for row in csv.DictReader(file) if row["group"] == "all"]
check(attention and all(int(row["n"]) > 0 for row in attention), f"attention.csv has the panel's bins: {attention[:3]}")
print("  attention (share of viewers watching per bin, %): "
      + ", ".join(f"{float(row['time']):g} s {row['onScreen']}" for row in attention))
skip_out = os.path.join(args.out, "results", "skip")
run = subprocess.run([args.mien, "study", os.path.join(args.studies, "skip"), "--output", skip_out, "--bin", "0.5"],
                     capture_output=True, text=True)
check(run.returncode == 0, f"mien study skip: {run.returncode} {run.stderr[-300:]}")
if run.returncode == 0:
    with open(os.path.join(skip_out, "participants.csv")) as file:
        skippers = {row["participant"]: row for row in csv.DictReader(file)}
    s1_at = float(skippers.get("s1", {}).get("skippedAt") or "nan")
    check(abs(s1_at - skipped_at) <= 0.5, f"s1's skip at its time: {s1_at} (pressed at about {skipped_at:.2f} s)")
    # s1 played about 1 s, its face's settling second (issue 95): too little watched for its responses
    # (--min-watched), so left out of them saying why; retention, below, still counts it as a skip.
    s1 = skippers.get("s1", {})
    check((s1.get("included") == "1" or (s1.get("exclusion") or "").startswith("watched in "))
          and skippers.get("s2", {}).get("skippedAt") == "",
          f"s1 judged over the part it played, s2 did not skip: {skippers}")
    with open(os.path.join(skip_out, "retention.csv")) as file:
        retention = [row for row in csv.DictReader(file) if row["group"] == "all"]
    left = [row for row in retention if int(row["skipped"]) > 0]
    check(len(left) == 1 and float(left[0]["time"]) <= s1_at < float(left[0]["time"]) + 0.5
          and abs(float(retention[-1]["retained"]) - 50) < 1e-6, f"retention: 1 of 2 left at the skip: {retention}")
    check("Retention" in open(os.path.join(skip_out, "study.html")).read(), "study.html draws the retention")
    print(f"  retention: s1 skipped at {s1_at:.2f} s; still watching at the end: {retention[-1]['retained'] if retention else '?'} %")
page_html = open(os.path.join(args.out, "results", "ad", "study.html")).read()
check("<h1>Study ad</h1>" in page_html and "Participants included: all 8" in page_html,
      "the study page is titled with the study and its n")
rec = os.path.join(args.studies, "adrec")
check(os.path.exists(os.path.join(rec, "participants", "r1", "recording.webm")), "r1's recording kept (--record)")
run_live = subprocess.run([args.mien, "study", rec, "--output", live_out, "--bin", "0.5"], capture_output=True,
                          text=True)
run_rec = subprocess.run([args.mien, "study", os.path.join(rec, "recorded.csv"), "--output", recorded_out, "--bin", "0.5"],
                         capture_output=True, text=True)
check(run_live.returncode == 0 and run_rec.returncode == 0, f"mien study: {run_live.stderr[-300:]} {run_rec.stderr[-300:]}")


def curves(folder):
    table = {}
    with open(os.path.join(folder, "curves.csv")) as file:
        for row in csv.DictReader(file):
            if row["group"] == "all" and row["mean"]:
                table.setdefault(row["metric"], {})[round(float(row["time"]), 3)] = float(row["mean"])
    return table


if run_live.returncode == 0 and run_rec.returncode == 0:
    live, recorded = curves(live_out), curves(recorded_out)
    # Within one bin of timing (the page's onset is measured by its clock, the recorder starts a few frames late)
    # and a small difference in value (JPEG frames at 10 fps against VP8 at the camera's 15 fps).
    worst, mean_differences = [], []
    for metric in sorted(set(live) & set(recorded)):
        differences = []
        for time_, value in live[metric].items():
            near = [recorded[metric][t] for t in recorded[metric] if abs(t - time_) <= 0.5 + 1e-6]  # ±1 bin
            if near:
                differences.append(min(abs(value - other) for other in near))
        if differences:
            mean_differences.append(sum(differences) / len(differences))
            worst.append((max(differences), metric))
    worst.sort(reverse=True)
    overall = sum(mean_differences) / max(1, len(mean_differences))
    print(f"  live against recorded: {len(mean_differences)} metrics, mean |difference| {overall:.2f} points, "
          f"largest {worst[0][0]:.1f} ({worst[0][1]})" if worst else "  no common metric")
    check(len(mean_differences) >= 20, f"metrics compared: {len(mean_differences)}")
    check(overall <= 3.0, f"live and recorded series differ by {overall:.2f} points on average (tolerance 3)")
    # One metric's one bin may differ more (emoji.smiley by 15.0 points when this was written: a 0-100 score
    # near its threshold, JPEG against VP8); the tolerance is on the largest, with the mean held tight above.
    check(not worst or worst[0][0] <= 25, f"largest live/recorded difference {worst[0] if worst else None} (tolerance 25)")

# 4. The dashboard ----------------------------------------------------------------------------------------------
print("== the dashboard")
summary = json.loads(dashboard("ad", "fieldwork"))
groups = {group["group"]: group for group in summary["groups"]}
check(summary["all"]["complete"] == 8 and summary["all"]["declined"] == 1, f"fieldwork counts: {summary['all']}")
check(groups.get("A", {}).get("target") == 4 and groups.get("B", {}).get("target") == 4, f"targets: {groups}")
check(abs(groups.get("A", {}).get("complete", 0) - groups.get("B", {}).get("complete", 0)) <= 2,
      f"groups balanced: {[(g, c.get('complete')) for g, c in groups.items()]}")
approvals = dashboard("ad", "approvals.csv?tz=Europe/Berlin").decode()
approved = {line.split(",")[0]: line for line in approvals.splitlines()[1:]}
check(all(",approve," in approved.get(p, "") and codes[p][0] in approved.get(p, "") for p in completed),
      f"approvals list every completer with their code: {approvals[:400]}")
check("+01:00" in approvals or "+02:00" in approvals, "approvals in the researcher's zone")
for table in ("approvals.csv", "participants.csv", "manifest.csv", "participants", "fieldwork"):
    check(args.studies.encode() not in dashboard("ad", table), f"no server path in the dashboard's {table}")
status, page_body = http("GET", "/studies/ad/dashboard?token=" + args.token)
check(status == 200 and b"fieldwork" in page_body, f"the dashboard page: {status}")

# 5. Refusals ---------------------------------------------------------------------------------------------------
print("== refusals")
status, body = http("GET", "/studies/ad/dashboard/participants")
check(status == 401, f"dashboard without the service token: {status}")
status, body = http("GET", "/studies/ad/dashboard/participants", token="not-the-token")
check(status == 401, f"dashboard with a wrong token: {status}")
status, body = consent("ad", "p1")
text = json.dumps(body)
check(status == 409 and body["error"]["code"] == "cannotTakePart" and "complete" not in text,
      f"p1 again: {status} {body}")
status, body = consent("ad", "../../etc")
check(status == 400, f"'..' in an ID: {status} {body}")
status, body = consent("ad", "x", group="C")
check(status == 400, f"an unknown group: {status} {body}")
status, _ = http("POST", "/studies/ad/complete")
check(status == 401, f"complete without a token: {status}")
status, q1 = consent("ad", "q1")
status2, q2 = consent("ad", "q2")
check(status == 201 and status2 == 201, "two new participants admitted")
ws_base = args.base.replace("http", "ws")
r2_token = consent("adrec", "r2")[1]["token"]  # another study's participant
# A participant's token is no service token, and one participant's token cannot complete another's session.
status, _ = http("GET", "/studies/ad/dashboard/participants", token=q1["token"])
check(status == 401, f"a participant's token on the dashboard: {status}")
status, _ = http("PUT", "/studies/adrec/recording?offset=0", b"x" * 100, token=q1["token"])
check(status == 401, f"a token of study ad used on study adrec: {status}")
for query in ("stimulus=astronaut-pan-zoom", f"session={r2_token}&stimulus=astronaut-pan-zoom"):
    with connect(f"{ws_base}/studies/ad/live?{query}", open_timeout=10) as refused:
        message = json.loads(refused.recv(timeout=10))
        check(message.get("error", {}).get("code") == "unauthorized", f"a socket with {query[:30]}: {message}")
frame = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Samples/astronaut.jpg"), "rb").read()
# Straight from the consent to a stimulus: refused until the server has seen the framing check pass.
with connect(f"{ws_base}/studies/ad/live?session={q1['token']}&stimulus=astronaut-pan-zoom", open_timeout=10) as early:
    message = json.loads(early.recv(timeout=10))
    check(message.get("error", {}).get("code") == "notFramed", f"a stimulus before the framing check: {message}")
pass_framing(f"{ws_base}/studies/ad/live?session={q1['token']}", frame)
with connect(f"{ws_base}/studies/ad/live?session={q1['token']}&stimulus=astronaut-pan-zoom", max_size=None) as ws:
    check(json.loads(ws.recv(timeout=30))["type"] == "ready", "q1's socket is ready")
    for index in range(40):  # a flood: 40 frames at once against 10 per second
        ws.send(struct.pack("<d", 100.0 * (index + 1)) + frame)
    big = bytes(6 << 20)  # over the study's largest frame (1280 x 1280 x 3 bytes), under the socket's limit
    ws.send(struct.pack("<d", 10_000.0) + big)
    errors = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not ({"tooFast", "tooLarge"} <= {e["code"] for e in errors}):
        try:
            message = json.loads(ws.recv(timeout=5))
        except TimeoutError:
            break
        if message.get("type") == "error":
            errors.append(message["error"])
    codes_seen = {e["code"] for e in errors}
    check("tooFast" in codes_seen, f"a frame flood is refused: {codes_seen}")
    check("tooLarge" in codes_seen, f"an over-size frame is refused: {codes_seen}")
status, body = http("PUT", "/studies/ad/recording?offset=0", b"\x1a\x45\xdf\xa3" + bytes(100), token=q2["token"])
check(status == 403, f"an upload to a study that does not record: {status} {body[:200]}")
status, body = http("PUT", "/studies/adrec/recording?offset=0", b"%PDF-1.7 not a video" * 10, token=r2_token)
check(status == 415, f"a non-video upload: {status} {body[:200]}")
status, body = http("PUT", "/studies/adrec/recording?offset=0", b"\x1a\x45\xdf\xa3" + bytes(9 << 20), token=r2_token)
check(status == 413, f"an over-size chunk: {status} {body[:200]}")
status, body = http("PUT", "/studies/adrec/recording?offset=5", b"\x1a\x45\xdf\xa3", token=r2_token)
check(status == 409, f"a chunk at the wrong offset: {status} {body[:200]}")
status, body = http("GET", "/studies/ad/stimuli/..%2F..%2Fsettings.json")
check(status == 404, f"a path in a stimulus name: {status}")
time.sleep(1)
q1_files = sorted(os.listdir(os.path.join(ad, "participants", "q1")))
check(all(name.startswith(("astronaut-pan-zoom.", "session.json")) for name in q1_files),
      f"q1's socket wrote only q1's files: {q1_files}")

# Erasure: every file of a participant, and their manifest rows.
status, _ = http("DELETE", "/studies/ad/participants/p2")
check(status == 401, f"erasure without the service token: {status}")
status, _ = http("DELETE", "/studies/ad/participants/p2", token=args.token)
check(status == 204, f"erasure: {status}")
check(not os.path.exists(os.path.join(ad, "participants", "p2")), "p2's folder is gone")
with open(os.path.join(ad, "manifest.csv")) as file:
    check("p2" not in {row["participant"] for row in csv.DictReader(file)}, "p2 left the manifest")
status, page = http("GET", "/studies/ad/dashboard/study.html", token=args.token)
check(status == 200 and b"<svg" in page, f"the dashboard's study page: {status}")

verdict("")
print(f"study-check: every Chromium check passed ({time.monotonic() - started:.0f} s)")
