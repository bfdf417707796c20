"""Issue 80's questions after the advert, in Chromium (study-check part 1, called by check.py).

Study `questions` asks Samples/advert-questions.txt: a 7-point liking scale and an 11-point purchase intent after the
stimulus, then at the end a single choice, a multiple choice and free text; run.sh adds a recall question after the
stimulus (issue 98: "Whose advert was it?", its right option NASA). Four participants answer, their answers
set here (two like the advert, two do not):
- a1 presses Continue with nothing chosen first: told which questions need an answer, nothing sent;
- a2 answers with the keyboard alone (Tab, the arrow keys, Space, Enter);
- a3 answers one question, reloads: the answer is still there (nothing was sent), the page asks the rest;
- a4 on a phone: the 11-point scale fits the screen's width.
No page sends an answer before its Continue. Then each surface must hold exactly these answers: every session.json,
the dashboard's answers.csv and participant rows, `mien study`'s answers.csv; and an answer after completion, for
another participant or out of range is refused with nothing stored.
"""

import csv
import io
import json
import os
import shutil
import re
import subprocess
from xml.etree import ElementTree

from checks import check

STIMULUS = "astronaut-pan-zoom"
# What each participant answers: liking (1-7), intent (0-10), seen, where (a list), comments.
ANSWERS = {
    "a1": (6, 8, "No", ["Television", "Social media"], "Nice, calm music"),
    "a2": (7, 9, "Yes", ["Television"], ""),
    "a3": (2, 1, "Not sure", [], "Too slow, I got bored"),
    "a4": (1, 2, "No", ["Video sites"], "=1+1 not for me"),
}
# What each one's panel link says of them (the study declares age and sex): a3's sex is not a declared value and a4's
# link says nothing; a2's also carries a name the study never declared.
# The recall question's answers: three of four right.
RECALL = {"a1": "NASA", "a2": "NASA", "a3": "ESA", "a4": "NASA"}
LINKS = {"a1": "&age=25-34&sex=female", "a2": "&age=18-24&sex=male&name=Jane", "a3": "&age=25-34&sex=robot", "a4": ""}
KEPT = {"a1": {"age": "25-34", "sex": "female"}, "a2": {"age": "18-24", "sex": "male"}, "a3": {"age": "25-34"}, "a4": None}


def group(page, words):
    return page.get_by_role("group", name=re.compile(re.escape(words)))


def point(page, question, value):
    """The radio of a scale's point, by its accessible name ("6", or "7, Very much" at an anchored end)."""
    return group(page, question).get_by_role("radio", name=re.compile(rf"^{value}(,|$)"))


def wait_questions(page, after):
    """Waits for the page of questions after `after`; a stimulus the server measured too little (a loaded machine
    dropping frames) is played again as a participant would, saying so."""
    for _ in range(3):
        page.wait_for_function(
            f"document.documentElement.dataset.stage === 'questions:{after}' || "
            "(document.documentElement.dataset.stage === 'framing' && !document.getElementById('start-watching').disabled)",
            timeout=90_000)
        if page.evaluate("document.documentElement.dataset.stage") == f"questions:{after}":
            return
        print(f"    the page asked to watch again: {page.locator('#status').inner_text()}")
        page.get_by_role("button", name="Start watching").click()
    check(False, f"the questions after {after} were never shown")


def answer_first_page(page, liking, intent, recall):
    point(page, "How much did you like this advert?", liking).check()
    point(page, "How likely are you to buy the product", intent).check()
    group(page, "Whose advert was it?").get_by_role("radio", name=recall, exact=True).check()
    page.get_by_role("button", name="Continue").click()


def answer_end_page(page, seen, where, comments):
    group(page, "Had you seen this advert before today?").get_by_role("radio", name=seen, exact=True).check()
    for option in where:
        group(page, "Where do you usually see adverts").get_by_role("checkbox", name=option).check()
    if comments:
        group(page, "Is there anything else").get_by_role("textbox").fill(comments)
    page.get_by_role("button", name="Continue").click()


def take_part(browser, base, out, agree, framing_then_watch, wait_done, new_page):
    """The four participants above; returns their completions, their tokens, and the answers their pages sent before
    their Continue (none expected)."""
    codes, tokens, early = {}, {}, []
    for participant, (liking, intent, seen, where, comments) in ANSWERS.items():
        phone = participant == "a4"
        ctx, page = new_page(browser, **({"viewport": {"width": 360, "height": 740}, "is_mobile": True,
                                          "has_touch": True} if phone else {}))
        clicked = {"continue": 0}
        sent = []
        page.on("request", lambda request: request.url.endswith("/answers") and sent.append(clicked["continue"]))
        page.goto(f"{base}/studies/questions/?participant={participant}&redirect=0{LINKS[participant]}")
        agree(page)
        framing_then_watch(page)
        wait_questions(page, STIMULUS)
        if participant == "a1":
            page.get_by_role("button", name="Continue").click()
            error = page.locator("#error-liking")
            check(error.is_visible() and "Please answer" in error.inner_text(),
                  f"a1: Continue with nothing chosen says what is missing: {error.inner_text()}")
            check(group(page, "How much did you like").get_attribute("aria-describedby") == "error-liking",
                  "a1: the message is the question's description, for a screen reader")
            check(page.evaluate("document.activeElement.name") == "q-liking", "a1: focus on the first question missing")
            check(not sent, f"a1: nothing sent for an incomplete page: {sent}")
            # Answered, the mark goes at once, before Continue (issue 96: it stayed red until pressed again).
            point(page, "How much did you like this advert?", liking).check()
            check(not error.is_visible() and group(page, "How much did you like").get_attribute("aria-describedby")
                  is None, f"a1: the answered question is no longer marked: {error.is_visible()}")
            check(page.locator("fieldset.invalid").count() == 2, "a1: the questions still unanswered stay marked")
        if participant == "a2":
            # The keyboard alone: Tab into each scale, arrow keys to the point, Tab to Continue, Enter.
            page.keyboard.press("Tab")
            for _ in range(liking - 1):
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Tab")
            for _ in range(intent):
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Tab")  # into the recall question's options
            target = ["NASA", "ESA", "JAXA"].index(RECALL[participant])
            for _ in range(target):
                page.keyboard.press("ArrowDown")
            if target == 0:
                page.keyboard.press("Space")
            page.keyboard.press("Tab")
            clicked["continue"] += 1
            page.keyboard.press("Enter")
        elif participant == "a3":
            point(page, "How much did you like this advert?", liking).check()
            page.reload()
            wait_questions(page, STIMULUS)
            check(point(page, "How much did you like this advert?", liking).is_checked(),
                  "a3: the answer chosen before the reload is still chosen")
            check(not sent, f"a3: nothing was sent before Continue: {sent}")
            point(page, "How likely are you to buy the product", intent).check()
            group(page, "Whose advert was it?").get_by_role("radio", name=RECALL[participant], exact=True).check()
            clicked["continue"] += 1
            page.get_by_role("button", name="Continue").click()
        else:
            if phone:
                width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
                check(width[0] <= width[1], f"a4: the 11-point scale fits a phone's width: {width}")
                page.screenshot(path=os.path.join(out, "phone-questions.png"))
            clicked["continue"] += 1
            answer_first_page(page, liking, intent, RECALL[participant])
        wait_questions(page, "end")
        if participant == "a2":
            page.keyboard.press("Tab")
            target = ["Yes", "No", "Not sure"].index(seen)
            for _ in range(target):
                page.keyboard.press("ArrowDown")
            if target == 0:
                page.keyboard.press("Space")
            page.keyboard.press("Tab")  # the first option of "where"
            page.keyboard.press("Space")  # Television
            for _ in range(5):  # past the other options to the text box
                page.keyboard.press("Tab")
            page.keyboard.type(comments)
            page.keyboard.press("Tab")
            clicked["continue"] += 1
            page.keyboard.press("Enter")
        else:
            clicked["continue"] += 1
            answer_end_page(page, seen, where, comments)
        codes[participant] = wait_done(page)
        tokens[participant] = page.evaluate("Object.entries(localStorage).find(([key]) => key.startsWith('mien:'))?.[1]")
        early += [f"{participant}: an answer sent before Continue" for count in sent if count == 0]
        ctx.close()
        print(f"  {participant} answered {ANSWERS[participant][:3]}: {codes[participant]}")
    return codes, tokens, early


def expected_rows(participant):
    liking, intent, seen, where, comments = ANSWERS[participant]
    return [
        (participant, "liking", STIMULUS, "scale 7", str(liking), str(liking)),
        (participant, "intent", STIMULUS, "scale 11", str(intent), str(intent)),
        (participant, "brand", STIMULUS, "single", "", RECALL[participant]),
        (participant, "seen", "end", "single", "", seen),
        (participant, "where", "end", "multiple", "", " | ".join(where)),
        (participant, "comments", "end", "text", "", ("'" + comments) if comments.startswith("=") else comments),
    ]


def rows_of(text):
    return sorted((r["participant"], r["question"], r["after"], r["type"], r["score"], r["answer"])
                  for r in csv.DictReader(io.StringIO(text)))


def first_screen(path):
    """Where study.html's first verdict ends, in a 1280x800 headless Chromium window: the bottom (CSS px) of its KPI
    table, its sentences, its chart and its caveats, the table's rows, and whether it comes before the summary."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                             args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto("file://" + os.path.abspath(path))
            return page.evaluate("""() => {
              const verdict = document.querySelector('section.verdict');
              const bottom = (selector) => { const el = verdict && verdict.querySelector(selector);
                return el ? Math.round(el.getBoundingClientRect().bottom) : null; };
              const summary = document.querySelector('section.summary');
              return { table: bottom('table.kpis'), sentences: bottom('.sentences'), chart: bottom('svg.chart'),
                caveats: bottom('.caveats'), rows: verdict ? verdict.querySelectorAll('table.kpis tr').length : 0,
                verdictBeforeSummary: !!(verdict && summary
                  && (verdict.compareDocumentPosition(summary) & Node.DOCUMENT_POSITION_FOLLOWING)) }; }""")
        finally:
            browser.close()


def verify(studies, out, mien, sessions, dashboard, http, codes, tokens):
    """Every surface holds exactly the answers set above; refusals keep nothing."""
    folder = os.path.join(studies, "questions")
    expected = sorted(row for participant in ANSWERS for row in expected_rows(participant))
    rows = sessions("questions")
    for participant, (liking, intent, seen, where, comments) in ANSWERS.items():
        check(rows.get(participant, {}).get("state") == "complete" and codes.get(participant, (None,))[0] ==
              rows.get(participant, {}).get("code"), f"{participant} complete with their code: {rows.get(participant)}")
        check(rows.get(participant, {}).get("answered") == 6, f"the dashboard: {participant} answered 6 of 6")
        session = json.load(open(os.path.join(folder, "participants", participant, "session.json")))
        check(session.get("attributes") == KEPT[participant],
              f"{participant}'s link attributes kept as declared: {session.get('attributes')}")
        kept = {a["question"]: a for a in session.get("answers") or []}
        check(kept.get("liking", {}).get("score") == liking and kept.get("intent", {}).get("score") == intent
              and kept.get("seen", {}).get("choices") == [seen] and (kept.get("where", {}).get("choices") or []) == where
              and kept.get("comments", {}).get("text", "") == comments,
              f"{participant}'s session.json holds their answers: {kept}")
    summary = json.loads(dashboard("questions", "fieldwork"))
    check(summary["all"].get("answeredAll") == len(ANSWERS) and summary.get("questions") == 6,
          f"the dashboard counts those who answered every page: {summary['all'].get('answeredAll')}")
    check(rows_of(dashboard("questions", "answers.csv").decode()) == expected, "the dashboard's answers.csv")
    result = os.path.join(out, "results", "questions")
    pdf = result + ".pdf"
    charts = result + "-charts"
    run = subprocess.run([mien, "study", folder, "--output", result, "--pdf", pdf, "--export-charts", charts],
                         capture_output=True, text=True)
    if check(run.returncode == 0, f"mien study questions: {run.returncode} {run.stderr[-300:]}"):
        got = rows_of(open(os.path.join(result, "answers.csv")).read())
        check(got == expected, f"mien study's answers.csv: {got}")
        # Issue 97 item 2: one pipeline. The dashboard's study.html ("Made by" aside), participants.csv and
        # answers.csv are the bytes mien study wrote for the same folder and the study's own settings.
        def without_maker(text):
            return "\n".join(line for line in text.split("\n") if "<footer>Made by " not in line)
        differing = [table for table in ("study.html", "participants.csv", "answers.csv")
                     if without_maker(dashboard("questions", table).decode())
                     != without_maker(open(os.path.join(result, table)).read())]
        check(not differing, f"the dashboard's files are mien study's, byte for byte: {differing or 'all the same'}")
        # The mark given at init, on every chart and in marks.csv; --marks after collection replaces it.
        page = open(os.path.join(result, "study.html")).read()
        # The summary first: the answers in plain words, and with 4 viewers no prediction or relation, saying why.
        liking = sum(ANSWERS[p][0] for p in ANSWERS) / len(ANSWERS)
        check(page.index("<h2>Summary</h2>") < page.index('<section class="stimulus">')
              and f"How much did you like this advert? (liking, 7 points): mean {liking:g} " in page
              and "Whether the faces predict it: not testable: 4 included participants answered" in page,
              "study.html opens with the summary of the answers")
        # Issue 98 item 1: kpis.csv's figures are the hand counts of the answers set here.
        with open(os.path.join(result, "kpis.csv")) as file:
            kpis = {(r["group"], r["kpi"]): r for r in csv.DictReader(file)}
        n = len(ANSWERS)
        for kpi, hand in (("liking.top2box", sum(a[0] >= 6 for a in ANSWERS.values())),
                          ("intent.top2box", sum(a[1] >= 9 for a in ANSWERS.values())),
                          ("seen=No", sum(a[2] == "No" for a in ANSWERS.values())),
                          ("brand.correct", sum(choice == "NASA" for choice in RECALL.values()))):
            row = kpis.get(("all", kpi), {})
            check(row.get("n") == str(n) and abs(float(row.get("value") or -1) - 100 * hand / n) < 0.01
                  and float(row.get("low") or 101) <= 100 * hand / n <= float(row.get("high") or -1),
                  f"kpis.csv: {kpi} is the hand count, {hand} of {n}, within its interval: {row}")
        # The dashboard offers the same verdict during fieldwork, from the same KPIs.
        live = {(r["group"], r["kpi"]): r for r in csv.DictReader(io.StringIO(dashboard("questions", "kpis.csv").decode()))}
        check(all(live.get(key, {}).get("value") == kpis[key]["value"] for key in (("all", "liking.top2box"), ("all", "seen=No")))
              and "<h2>Verdict: " + STIMULUS in dashboard("questions", "study.html").decode(),
              f"the dashboard's kpis.csv and verdict: {live.get(('all', 'liking.top2box'))}")
        # Issue 98 item 3: the verdict first, its whole table, sentences, curve and caveats on the first screen of
        # a 1280x800 window (by geometry, in headless Chromium), before the summary.
        first = first_screen(os.path.join(result, "study.html"))
        check(first["rows"] == 8 and first["verdictBeforeSummary"]
              and all(first[part] is not None and first[part] <= 800 for part in ("table", "sentences", "chart", "caveats")),
              f"study.html's first screen at 1280x800 holds the verdict: {first}")
        check("50 % answered 6-7 of 1-7 to “How much did you like this advert?” (95 % 15-85 %, n 4)" in page.replace("&#39;", "'")
              and "Every closed question, tallied" in page, "the verdict's sentences, from kpis.csv's numbers; the tallies")
        check("75 % chose the right answer, NASA, to “Whose advert was it?” (95 %" in page,
              "the verdict's recall sentence: 3 of 4 right")
        # The recall question's right answers, in answers.csv's correct column (norms read them from it).
        with open(os.path.join(result, "answers.csv")) as file:
            right = {r["participant"]: r["correct"] for r in csv.DictReader(file) if r["question"] == "brand"}
        check(right == {p: "1" if c == "NASA" else "0" for p, c in RECALL.items()}, f"answers.csv's correct: {right}")
        # Issue 98 item 6: --pdf, printed by the headless Chromium on PATH: the verdict whole on page one, the
        # summary from page two.
        from pypdf import PdfReader
        pages = [p.extract_text() for p in PdfReader(pdf).pages] if os.path.exists(pdf) else []
        check(len(pages) > 2 and "Verdict: " + STIMULUS in pages[0] and "How much did you" in pages[0]
              and "Unweighted" in pages[0] and "Verdict" not in pages[1] and pages[1].lstrip().startswith("Summary"),
              f"--pdf: the verdict on page one, the summary next: {[p[:80] for p in pages[:2]]}")
        # --export-charts: each chart of the page as a standalone SVG (well-formed XML) and a PNG at twice its size.
        names = sorted(os.listdir(charts)) if os.path.isdir(charts) else []
        svgs = [n for n in names if n.endswith(".svg")]
        sizes = []
        for name in svgs:
            ElementTree.parse(os.path.join(charts, name))  # raises on a file that is not XML
            with open(os.path.join(charts, name[:-4] + ".png"), "rb") as file:
                head = file.read(24)
            sizes.append((head[:8] == b"\x89PNG\r\n\x1a\n", int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")))
        check(f"{STIMULUS}-expressions.smile.svg" in svgs and len(svgs) > 2 and all(s == (True, 1280, 340) for s in sizes),
              f"--export-charts: {len(svgs)} charts as SVG and 1280x340 PNG: {names[:6]} {sizes[:3]}")
        # The sample's profile by what the links said (issue 80 item 5), and participants.csv's columns.
        check("Sample by age (as the panel&#39;s link gave it): 18-24 1 (25 %) · 25-34 2 (50 %) · not given 1" in page
              and "Sample by sex (as the panel&#39;s link gave it): female 1 (25 %) · male 1 (25 %) · not given 2" in page,
              "study.html profiles the sample by the links' attributes")
        with open(os.path.join(result, "participants.csv")) as file:
            ages = {r["participant"]: r.get("attribute.age") for r in csv.DictReader(file)}
        check(ages == {"a1": "25-34", "a2": "18-24", "a3": "25-34", "a4": ""}, f"participants.csv's attribute.age: {ages}")
        # Issue 98 item 5: weighted to an age margin, half 18-24 and half 25-34 (a4 gave no age: left out). By hand:
        # each of the raked is weighed its age's share of them against the target's.
        weighted = result + "-weighted"
        run = subprocess.run([mien, "study", folder, "--output", weighted, "--weight", "age=18-24:0.5,25-34:0.5"],
                             capture_output=True, text=True)
        raked = [p for p in ANSWERS if ages.get(p)]
        weight = {p: 0.5 * len(raked) / sum(ages[q] == ages[p] for q in raked) for p in raked}
        hand = 100 * sum(weight[p] for p in raked if ANSWERS[p][0] >= 6) / sum(weight.values())
        if check(run.returncode == 0, f"mien study --weight: {run.returncode} {run.stderr[-300:]}"):
            with open(os.path.join(weighted, "kpis.csv")) as file:
                rows = {(r["kpi"], r["weighted"]): r for r in csv.DictReader(file) if r["group"] == "all"}
            row = rows.get(("liking.top2box", "true"), {})
            check(abs(float(row.get("value") or -1) - hand) < 0.01 and row.get("n") == str(len(raked))
                  and rows.get(("liking.top2box", "false"), {}).get("value") == kpis[("all", "liking.top2box")]["value"],
                  f"kpis.csv weighted by age: liking's top two {row} vs {hand:.2f} by hand")
            with open(os.path.join(weighted, "weights.csv")) as file:
                kept = {r["participant"]: float(r["weight"]) for r in csv.DictReader(file)}
            check(kept.keys() == weight.keys() and all(abs(kept[p] - weight[p]) < 1e-6 for p in kept),
                  f"weights.csv: {kept} vs {weight}")
        refused = subprocess.run([mien, "study", folder, "--output", weighted, "--weight", "age=18-24:0.5,25-34:0.4"],
                                 capture_output=True, text=True)
        check(refused.returncode != 0 and "the shares sum to 0.9, not 1" in refused.stderr,
              f"--weight whose shares do not sum to 1 is refused: {refused.returncode} {refused.stderr[-200:]}")
        with open(os.path.join(result, "prediction.csv")) as file:
            predicted = list(csv.DictReader(file))
        check([r["question"] for r in predicted] == ["liking", "intent"] and all(
            r["auc"] == "" and r["reason"].startswith("not testable") for r in predicted),
            f"prediction.csv: no AUC below the floor, saying why: {predicted}")
        charts = page.count('<svg class="chart"')
        check(page.count('<svg class="pictures"') == 1 and page.count("<image ") == 6,
              "study.html pictures the stimulus along its time axis (six frames)")
        check(open(os.path.join(result, "marks.csv")).read() == f"stimulus,mark,time\n{STIMULUS},brand,1.2\n"
              and charts > 2 and page.count(">brand 1.2 s</text>") == charts,
              f"the study's mark on every one of its {charts} charts: {page.count('>brand 1.2 s</text>')}")
        again = subprocess.run([mien, "study", folder, "--output", result + "-marks", "--marks", "offer=2.5,0.4"],
                               capture_output=True, text=True)
        marks = open(os.path.join(result + "-marks", "marks.csv")).read() if again.returncode == 0 else again.stderr
        check(marks == f"stimulus,mark,time\n{STIMULUS},offer,0.4\n{STIMULUS},offer,2.5\n",
              f"--marks after collection replaces the study's: {marks}")
    consent = open(os.path.join(folder, "consent.md")).read() + open(os.path.join(folder, "STORED.md")).read()
    check("asks you 6 questions" in consent and "answers to the study's 6 questions" in consent,
          "consent.md and STORED.md say the answers are kept")
    check("your age and sex as the panel that sent you here gives them" in consent
          and "what the panel's link gave of them (age, sex" in consent, "consent.md and STORED.md name the attributes")
    # Refused, nothing stored: after completion (a1's own token), another participant's, one before its stimulus.
    before = open(os.path.join(folder, "participants", "a1", "session.json")).read()
    status, data = http("POST", "/studies/questions/answers", json.dumps({"answers": {"liking": 1, "intent": 0}}).encode(),
                        token=tokens.get("a1"), headers={"Content-Type": "application/json"})
    check(status == 409 and b"sessionEnded" in data, f"an answer after completion refused: {status} {data[:120]}")
    check(open(os.path.join(folder, "participants", "a1", "session.json")).read() == before,
          "a1's session unchanged by the refused answer")
    status, data = http("POST", "/studies/questions/sessions", json.dumps({"agreed": True, "participant": "a9"}).encode(),
                        headers={"Content-Type": "application/json"})
    token = json.loads(data)["token"] if status == 201 else None
    status, data = http("POST", "/studies/questions/answers",
                        json.dumps({"participant": "a1", "answers": {"liking": 3}}).encode(), token=token,
                        headers={"Content-Type": "application/json"})
    check(status == 403 and b"notYours" in data, f"another participant's answers refused: {status} {data[:120]}")
    status, data = http("POST", "/studies/questions/answers",
                        json.dumps({"answers": {"liking": 5, "intent": 5, "brand": "NASA"}}).encode(),
                        token=token, headers={"Content-Type": "application/json"})
    check(status == 409 and b"notYetAsked" in data, f"an answer before its stimulus refused: {status} {data[:120]}")
    kept = sessions("questions").get("a9", {}).get("answered")
    check(kept == 0, f"nothing kept of the refused answers: {kept}")
    print(f"  answers: {len(expected)} rows the same in session.json, the dashboard's and mien study's answers.csv")
