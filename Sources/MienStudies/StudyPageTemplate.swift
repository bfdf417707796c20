/// The Mustache template of `StudyPage`, the report's template engine: text is escaped by it, charts come drawn
/// (`ChartSVG`) and are placed as they are.
import Mien

enum StudyPageTemplate {
    static let page = """
        <!doctype html>
        <html lang="en" data-rendered="pending"><head><meta charset="utf-8"><title>{{title}}</title>
        <style>
        body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:{{maxWidth}}px}
        h2{margin-top:32px;border-bottom:1px solid #ccc} h3{margin:18px 0 2px;font-size:15px}
        svg{display:block;background:#fafafa} .note{color:#555;font-size:12px} .thin{color:#a15c00}
        svg.chart{background:#fff} svg.chart text{font-size:10px;fill:#666} svg.chart,svg.strip,svg.pictures{width:100%;height:auto}
        table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
        .legend span{display:inline-block;margin-right:12px} .legend i{display:inline-block;width:12px;height:3px;margin-right:4px;vertical-align:middle}
        .key i{display:inline-block;width:14px;height:10px;vertical-align:middle;border:1px solid #ccc;margin:0 2px}
        footer{margin-top:32px;color:#777;font-size:11px}
        section.verdict h2{margin-top:16px} table.kpis{font-size:13px;width:100%} table.kpis td.v{text-align:right;font-weight:600;white-space:nowrap}
        .verdict .grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;align-items:start}
        .verdict ul{margin:6px 0;padding-left:18px} .verdict .sentences li{margin-bottom:2px}
        @media print{body{margin:0;max-width:none} section.verdict{break-after:page} svg,table.kpis,tr{break-inside:avoid} h2,h3{break-after:avoid}}
        </style></head><body>
        <h1>{{title}}</h1>
        <p><b>{{panelSizes}}</b></p>
        {{#profile}}<p class="note">{{text}}</p>{{/profile}}
        {{#verdicts}}<section class="verdict" data-stimulus="{{name}}"><h2>Verdict: {{name}}</h2>
        <table class="kpis"><tr><th>figure</th><th>value</th><th>95 %</th><th>n</th>{{#hasNorm}}<th>against the norm</th>{{/hasNorm}}</tr>
        {{#lines}}<tr><td>{{label}}</td><td class="v">{{value}}</td><td>{{interval}}</td><td>{{n}}</td>{{#hasNorm}}<td>{{norm}}</td>{{/hasNorm}}</tr>
        {{/lines}}</table>
        <div class="grid"><ul class="sentences">{{#lines}}<li>{{sentence}}</li>{{/lines}}</ul>
        <div>{{#hasChart}}<p class="note">{{chartLabel}}</p>{{{chart}}}{{/hasChart}}</div></div>
        <ul class="caveats note">{{#caveats}}<li>{{text}}</li>{{/caveats}}</ul></section>
        {{/verdicts}}
        <section class="summary"><h2>Summary</h2>
        {{#summaries}}<h3>{{name}}</h3><ul>{{#lines}}<li>{{text}}</li>{{/lines}}</ul>
        {{/summaries}}<p class="note">Each figure carries its 95 % interval in brackets. The lines after the curves' figures are, in
        this order: up to two group differences, then responses, three in all (each kind smallest p first, of
        {{minimumEffect}} points or more, among the charted metrics); then each mark, smile's change across it paired within viewers.
        The detail, how each figure is made and what was tested, follows.</p></section>
        {{#hasTallies}}<section class="tallies"><h2>Every closed question, tallied</h2>
        <p class="note">Over each stimulus's included participants who answered (kpis.csv): shares with Wilson's 95 % interval, means with Student's t.</p>
        <details open><summary>{{talliesCount}} figures</summary><table><tr><th>stimulus</th><th>question</th><th>answer</th><th>value</th><th>95 %</th><th>n</th></tr>
        {{#tallies}}<tr><td>{{stimulus}}</td><td>{{question}}</td><td>{{answer}}</td><td>{{value}}</td><td>{{interval}}</td><td>{{n}}</td></tr>
        {{/tallies}}</table></details></section>{{/hasTallies}}
        {{#hasContrasts}}<section class="contrasts"><h2>Which advert did better on what</h2>
        <p class="note">Within participants, over those included for both (comparisons.csv): a share by McNemar's exact test, a mean by Student's paired t with the difference's 95 % interval; q is Benjamini-Hochberg's over every contrast, and an advert is named better only where q &lt; {{alpha}}.</p>
        <table><tr><th>figure</th><th>a</th><th>b</th><th>a</th><th>b</th><th>a − b</th><th>test</th><th>p</th><th>q</th><th>better</th></tr>
        {{#contrasts}}<tr><td>{{kpi}}</td><td>{{a}}</td><td>{{b}}</td><td>{{valueA}}</td><td>{{valueB}}</td><td>{{difference}}</td><td>{{method}}</td><td>{{p}}</td><td>{{q}}</td><td>{{better}}</td></tr>
        {{/contrasts}}</table></section>{{/hasContrasts}}
        {{#groupTables}}<section class="groups"><h2>Groups compared: {{stimulus}}</h2>
        <p class="note">Each figure per group; a letter names each group it is above (a share by the two-proportion z test, a mean by Welch's t, Bonferroni within the row, q &lt; {{alpha}}; comparisons.csv).</p>
        <table><tr><th>figure</th>{{#columns}}<th>{{text}}</th>{{/columns}}</tr>
        {{#rows}}<tr><td>{{kpi}}</td>{{#cells}}<td>{{text}}</td>{{/cells}}</tr>
        {{/rows}}</table></section>
        {{/groupTables}}
        <p class="note">Curves are each group's mean over participants in bins of {{bin}} s, with a band for the
        95 % interval where {{minimumParticipants}} or more participants are measured (a thinner curve, dashed, has fewer;
        bands stop at the metric's range). A participant counts when their face is measured for
        {{minimumFaceShare}} % of the stimulus or more and watched (facing the screen, eyes open, the face settled) for
        {{minimumWatchedShare}} % or more.</p>
        <p class="note">Marked only where a test passes: <b>shaded</b>, two groups differ; <b>green underline</b>, the audience responds
        against its own first {{baseline}} s; <b>○</b>, a peak whose band stands clear of the curve around it.
        Differences and responses are permutation tests ({{correction}}, {{permutations}} permutations); each shows its p.
        <b>ISC</b> (inter-subject correlation) says how much participants rise and fall at the same moments (1: in step,
        0: no more than chance would give); its p is against the same curves shifted in time.</p>
        {{#stimuli}}
        <section class="stimulus"><h2>{{name}}</h2>
        <p class="note">{{included}} of {{panel}} participants included.</p>
        {{^hasCurves}}<p>No participant included: nothing to chart.</p>{{/hasCurves}}
        {{#hasCurves}}
        <p class="note">{{#chosenByStudy}}Charted: the metrics the study names (<code>--chart</code>).{{/chosenByStudy}}{{^chosenByStudy}}Charted: smile, joy and valence, then the metrics with a response or a difference of at least {{minimumEffect}} points that passed its test, strongest first (at most {{chartedPerStimulus}}); smaller effects are not charted or listed (<code>--min-effect</code>; moments.csv keeps them); choose others with <code>mien study --chart METRIC ...</code>.{{/chosenByStudy}}</p>
        <p class="legend">{{#legend}}<span><i style="background:{{colour}}"></i>{{name}}</span>{{/legend}}</p>
        {{#hasPictures}}{{{pictures}}}{{/hasPictures}}
        {{#hasMarks}}<p class="marks">Marked on every chart (dashed purple lines): {{#marks}}<span>{{text}}</span> {{/marks}}</p>{{/hasMarks}}
        {{#viewing}}
        <h3 class="viewing">Viewing and data quality</h3>
        <ul class="note">{{#lines}}<li>{{text}}</li>{{/lines}}</ul>
        {{#hasChart}}{{{chart}}}{{/hasChart}}
        {{#hasRetention}}<ul class="note">{{#retentionLines}}<li>{{text}}</li>{{/retentionLines}}</ul>
        {{{retention}}}{{/hasRetention}}
        {{/viewing}}
        {{#metrics}}
        <h3>{{label}}</h3>
        <p class="note">{{doc}} <code>{{metric}}</code>{{#hasIsc}} · ISC {{isc}}{{/hasIsc}}{{#hasNoIscReason}} · no ISC: {{noIscReason}}{{/hasNoIscReason}}{{#thin}} · <span class="thin">thin: fewer than {{minimumParticipants}} participants in some bins (dashed, no band)</span>{{/thin}}</p>
        {{{chart}}}
        {{#hasEpisodes}}
        <p class="note">share of participants in an episode (%)</p>
        {{{episodes}}}
        {{/hasEpisodes}}
        {{#hasMoments}}<ul class="note">{{#moments}}<li>{{text}}</li>{{/moments}}</ul>{{/hasMoments}}
        {{#strip}}
        <p class="note key">Each participant: {{low}}<i style="background:#fff"></i><i style="background:rgba(31,119,180,0.5)"></i><i style="background:rgb(31,119,180)"></i>{{high}}; <i style="background:#ddd"></i> not measured.</p>
        <svg class="strip" role="img" aria-label="{{metric}} per participant" viewBox="0 0 {{width}} {{height}}" width="{{width}}" height="{{height}}">
        {{#rows}}<rect x="0" y="{{y}}" width="3" height="{{rowHeight}}" fill="{{colour}}"/><text x="{{labelX}}" y="{{labelY}}" font-size="8" text-anchor="end"{{{fit}}}>{{name}}</text>
        {{#cells}}{{#measured}}<rect x="{{x}}" y="{{y}}" width="{{width}}" height="{{rowHeight}}" fill="#1f77b4" fill-opacity="{{opacity}}"/>{{/measured}}{{^measured}}<rect x="{{x}}" y="{{y}}" width="{{width}}" height="{{rowHeight}}" fill="#ddd"/><line x1="{{x}}" y1="{{bottom}}" x2="{{right}}" y2="{{y}}" stroke="#bbb" stroke-width="0.6"/>{{/measured}}
        {{/cells}}
        {{/rows}}
        </svg>
        {{/strip}}
        {{/metrics}}
        {{/hasCurves}}
        </section>
        {{/stimuli}}
        <h2>Participants</h2><table><tr><th>participant</th><th>stimulus</th><th>group</th><th>face share</th><th>included</th><th>notes</th></tr>
        {{#participants}}<tr><td>{{participant}}</td><td>{{stimulus}}</td><td>{{group}}</td><td>{{faceShare}} %</td><td>{{included}}</td><td>{{notes}}</td></tr>
        {{/participants}}
        </table>
        <h2>What was tested</h2><ul class="note">{{#notes}}<li>{{text}}</li>{{/notes}}</ul>
        <footer>Made by {{generator}}; seed {{seed}}. Every figure is in study.json and the CSV tables beside this page.</footer>
        <script>
        window.addEventListener("load", function () {
          var bad = [];
          document.querySelectorAll("svg.chart").forEach(function (svg) {
            if (svg.querySelectorAll("polyline, circle, rect[fill-opacity], polygon").length === 0) bad.push("empty chart " + svg.getAttribute("aria-label"));
          });
          document.documentElement.setAttribute("data-rendered", bad.length ? bad.join("; ") : "ok");
        });
        </script>
        </body></html>

        """
}
