/// The Mustache template of `HTMLReport`'s page.
///
/// Everything is inline (CSS, SVG, thumbnails as data URLs) so the page opens offline, from a mail
/// attachment or a lab share, exactly as written.
enum ReportTemplate {
    static let page = """
        <!DOCTYPE html>
        <html lang="en" data-rendered="pending">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Mien report</title>
        <style>
        :root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #222; }
        body { margin: 0 auto; max-width: 1100px; padding: 16px 24px 48px; background: #fafafa; }
        header { border-bottom: 1px solid #ddd; margin-bottom: 16px; }
        h1 { font-size: 1.5em; margin: 0.3em 0; }
        h2 { font-size: 1.2em; margin: 1.6em 0 0.4em; word-break: break-all; }
        .meta { color: #666; font-size: 0.9em; }
        .problem { background: #fff3cd; border: 1px solid #e0c46c; padding: 6px 10px; border-radius: 4px; }
        .face { background: #fff; border: 1px solid #e2e2e2; border-radius: 6px; padding: 12px 16px; margin: 12px 0; }
        .face-head { display: flex; gap: 16px; align-items: center; }
        .face-head img, .face-head .no-thumb { width: 96px; height: 96px; border-radius: 4px; flex: none; }
        .no-thumb { background: #ddd; display: flex; align-items: center; justify-content: center; color: #777; font-size: 0.8em; text-align: center; }
        .face-head h3 { margin: 0 0 4px; }
        .legend { display: flex; flex-wrap: wrap; gap: 12px; font-size: 0.85em; margin: 6px 0; }
        .legend span::before { content: ""; display: inline-block; width: 14px; height: 3px; margin-right: 5px; vertical-align: middle; background: var(--c); }
        figure { margin: 8px 0; }
        figcaption { font-size: 0.85em; color: #444; }
        svg.chart { max-width: 100%; height: auto; background: #fff; }
        svg.chart text { font-size: 10px; fill: #666; }
        .tables { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
        table { border-collapse: collapse; font-size: 0.85em; }
        th, td { padding: 2px 8px; text-align: right; }
        th:first-child, td:first-child { text-align: left; }
        thead th { border-bottom: 1px solid #ccc; }
        td.bar { width: 110px; }
        td.bar div { position: relative; height: 8px; background: #f0f0f0; }
        td.bar div i { position: absolute; top: 0; height: 8px; background: #6b8fc7; }
        .shares { display: flex; height: 14px; width: 100%; max-width: 600px; border-radius: 3px; overflow: hidden; margin: 4px 0; }
        .shares i { display: block; height: 14px; }
        details summary { cursor: pointer; font-size: 0.9em; margin-top: 6px; }
        </style>
        </head>
        <body>
        <header>
        <h1>Mien report</h1>
        <p class="meta">Made by {{generator}} on {{generated}}. Scores are 0–100 (valence −100–100); times are seconds from the start of each input.</p>
        {{#severalInputs}}<p class="meta">Inputs: {{#inputs}}<a href="#{{anchor}}">{{name}}</a> {{/inputs}}</p>{{/severalInputs}}
        </header>
        {{#inputs}}
        <section id="{{anchor}}">
        <h2>{{name}}</h2>
        <p class="meta">{{frames}} frames, {{processedFrames}} analysed, {{duration}}, {{faceCount}} face(s).</p>
        {{#hasProblem}}<p class="problem">Incomplete: {{problem}}</p>{{/hasProblem}}
        {{#noFaces}}<p>No face was found.</p>{{/noFaces}}
        {{#faces}}
        <article class="face">
        <div class="face-head">
        {{#hasThumbnail}}<img src="{{thumbnail}}" alt="face {{faceId}}">{{/hasThumbnail}}
        {{^hasThumbnail}}<div class="no-thumb">no picture</div>{{/hasThumbnail}}
        <div>
        <h3>Face {{faceId}}</h3>
        <div class="meta">seen {{seen}} in {{frames}} analysed frame(s){{#appearance}} · {{appearance}}{{/appearance}}</div>
        {{#hasDominant}}
        <div class="shares" title="share of frames in which each emotion was the strongest">{{#dominant}}<i style="width: {{width}}%; background: {{colour}}" title="{{name}} {{percent}}%"></i>{{/dominant}}</div>
        <div class="meta">strongest emotion: {{#dominant}}{{name}} {{percent}}% {{/dominant}}</div>
        {{/hasDominant}}
        </div>
        </div>
        {{#charts}}
        <figure>
        <figcaption>{{title}}</figcaption>
        {{{svg}}}
        </figure>
        {{/charts}}
        {{#hasCharts}}<div class="legend">{{#legend}}<span style="--c: {{colour}}">{{name}}</span>{{/legend}}</div>{{/hasCharts}}
        <div class="tables">
        <table>
        <thead><tr><th>emotion</th><th>mean</th><th>max</th><th></th></tr></thead>
        <tbody>
        {{#emotionRows}}<tr><td>{{name}}</td><td>{{mean}}</td><td>{{max}}</td><td class="bar"><div><i style="left: {{barLeft}}%; width: {{bar}}%"></i></div></td></tr>
        {{/emotionRows}}
        </tbody>
        </table>
        <table>
        <thead><tr><th>expression</th><th>mean</th><th>max</th><th></th></tr></thead>
        <tbody>
        {{#expressionRows}}<tr><td>{{name}}</td><td>{{mean}}</td><td>{{max}}</td><td class="bar"><div><i style="left: {{barLeft}}%; width: {{bar}}%"></i></div></td></tr>
        {{/expressionRows}}
        </tbody>
        </table>
        </div>
        {{#emojiRows.first}}
        <details><summary>Emoji</summary>
        <table>
        <thead><tr><th>emoji</th><th>mean</th><th>max</th><th></th></tr></thead>
        <tbody>
        {{#emojiRows}}<tr><td>{{name}}</td><td>{{mean}}</td><td>{{max}}</td><td class="bar"><div><i style="left: {{barLeft}}%; width: {{bar}}%"></i></div></td></tr>
        {{/emojiRows}}
        </tbody>
        </table>
        </details>
        {{/emojiRows.first}}
        </article>
        {{/faces}}
        </section>
        {{/inputs}}
        <script>
        // Self-check for headless browsers (scripts/check-report.sh): every thumbnail decoded, every chart drawn.
        window.addEventListener("load", function () {
          var bad = [];
          document.querySelectorAll("img").forEach(function (img) {
            if (!img.complete || img.naturalWidth === 0) bad.push("undecodable " + img.alt);
          });
          document.querySelectorAll("svg.chart").forEach(function (svg) {
            if (svg.querySelectorAll("polyline, circle, rect[fill-opacity]").length === 0) bad.push("empty chart " + svg.getAttribute("aria-label"));
          });
          document.documentElement.setAttribute("data-rendered", bad.length ? bad.join("; ") : "ok");
        });
        </script>
        </body>
        </html>
        """
}
