"""Person-wise cross-validation of Mien's expression mappings against their blendshape sources (a spike for
issue 24; `make eval` is where the measurement belongs once the rule is settled). Superseded by
`ExpressionCrossValidation` in `make eval`; its SHIPPED table is the constants of the time, when smile still
averaged the lip corners' lift and the mouth's widening with the blendshape.

Input: `MienDev features` CSV of the labelled pictures (file, 52 blendshapes, geometric features) and the
evaluation folder. For each task: 5 folds of people (seed 24); on the training people each response curve is
refitted (neutral = median of the neutral faces, full = the FULLQ quantile of the positive faces, default
0.5), the held-out faces scored, and the held-out scores pooled into one AUC (and each fold's AUC). Arms: the
plain blendshape source, Mien's shipped constants, the refit combination, and the refit blendshape or
geometry alone.

    E=../shared/eval
    .build/release/MienDev features <yalefaces, JAFFE and muxspace pictures> > features.csv
    FULLQ=0.9 python3 scripts/spikes/expression_cv.py features.csv $E
"""
import csv, sys, random, statistics, os

def auc(pos, neg):
    if not pos or not neg: return float('nan')
    w = 0.0
    for p in pos:
        for n in neg:
            w += 1 if p > n else (0.5 if p == n else 0)
    return w / (len(pos) * len(neg))

def curve(neutral, full):
    def f(v):
        if full == neutral: return 0.0
        t = (v - neutral) / (full - neutral)
        return min(1.0, max(0.0, t))
    return f

SHIPPED = {
    'smile': (0.0, 0.7), 'cornerLift': (-0.01, 0.08), 'mouthWidening': (0.58, 0.75),
    'browOuterUp': (0.02, 0.6), 'browHeight': (0.23, 0.31), 'jawOpenForLips': (0.02, 0.5), 'lipGap': (0.045, 0.2),
    'eyeBlink': (0.12, 0.7), 'eyeClosing': (0.29, 0.08),
}

# components: name -> (raw getter per side or whole)
def comps(task):
    if task == 'smile':
        return [('smile', lambda r, s: r['mouthSmile' + s]), ('cornerLift', lambda r, s: r['lift' + s[0]]),
                ('mouthWidening', lambda r, s: r['mouthWidth'])]
    if task == 'eyeClosure':
        return [('eyeBlink', lambda r, s: r['eyeBlink' + s]), ('eyeClosing', lambda r, s: r['eyeOpen' + s[0]])]
    if task == 'surprise':
        return [('browOuterUp', lambda r, s: r['browOuterUp' + s]), ('browHeight', lambda r, s: r['brow' + s[0]]),
                ('jawOpenForLips', lambda r, s: r['jawOpen']), ('lipGap', lambda r, s: r['lipGap'])]

def score(task, r, curves, use):
    sides = []
    for s in ('Left', 'Right'):
        vals = {}
        for name, get in comps(task):
            vals[name] = curves[name](get(r, s))
        if task == 'smile':
            parts = [vals[n] for n in ('smile', 'cornerLift', 'mouthWidening') if n in use]
            sides.append(sum(parts) / len(parts))
        elif task == 'eyeClosure':
            parts = [vals[n] for n in ('eyeBlink', 'eyeClosing') if n in use]
            sides.append(sum(parts) / len(parts))
        else:
            brow = [vals[n] for n in ('browOuterUp', 'browHeight') if n in use]
            mouth = [vals[n] for n in ('jawOpenForLips', 'lipGap') if n in use]
            b = sum(brow) / len(brow) if brow else 0
            m = sum(mouth) / len(mouth) if mouth else 0
            sides.append((b + m) / 2)
    return max(sides) if task == 'eyeClosure' else sum(sides) / 2

def source(task, r):
    if task == 'smile': return (r['mouthSmileLeft'] + r['mouthSmileRight']) / 2
    if task == 'eyeClosure': return max(r['eyeBlinkLeft'], r['eyeBlinkRight'])
    return ((r['browOuterUpLeft'] + r['browOuterUpRight']) / 2 + r['jawOpen']) / 2

def fit(task, rows, use):
    curves = {}
    for name, get in comps(task):
        neu = [ (get(r, 'Left') + get(r, 'Right')) / 2 for r in rows if r['__neu']]
        pos = [ (get(r, 'Left') + get(r, 'Right')) / 2 for r in rows if r['__pos']]
        n = statistics.median(neu) if neu else SHIPPED[name][0]
        q = float(os.environ.get('FULLQ', '0.5'))
        sp = sorted(pos)
        f = sp[min(len(sp) - 1, int(q * len(sp)))] if sp else SHIPPED[name][1]
        if f == n: f = n + 1e-6
        curves[name] = curve(n, f)
    return curves

def run(name, rows, task, folds=5, seed=24):
    people = sorted(set(r['__person'] for r in rows))
    random.Random(seed).shuffle(people)
    fold = {p: i % min(folds, len(people)) for i, p in enumerate(people)}
    k = min(folds, len(people))
    shipped = {n: curve(*SHIPPED[n]) for n, _ in comps(task)}
    allc = [n for n, _ in comps(task)]
    variants = {'source': None, 'shipped': ('shipped', allc), 'refit': ('refit', allc),
                'refit_blendshape_only': ('refit', [c for c in allc if c in ('smile','eyeBlink','browOuterUp','jawOpenForLips')]),
                'refit_geometry_only': ('refit', [c for c in allc if c not in ('smile','eyeBlink','browOuterUp','jawOpenForLips')])}
    out = {}
    for v, spec in variants.items():
        pos, neg, perfold = [], [], []
        for i in range(k):
            train = [r for r in rows if fold[r['__person']] != i]
            test = [r for r in rows if fold[r['__person']] == i and (r['__pos'] or r['__neg'])]
            if spec is None:
                sc = lambda r: source(task, r)
            else:
                curves = shipped if spec[0] == 'shipped' else fit(task, train, spec[1])
                sc = lambda r, c=curves, u=spec[1]: score(task, r, c, u)
            fp = [sc(r) for r in test if r['__pos']]; fn = [sc(r) for r in test if r['__neg']]
            pos += fp; neg += fn
            perfold.append(round(auc(fp, fn), 3))
        valid = [x for x in perfold if x == x]
        out[v] = (round(auc(pos, neg), 4), perfold, round(sum(valid) / len(valid), 4) if valid else float('nan'))
    print(name, task, 'people', len(people), 'pos', sum(r['__pos'] for r in rows), 'neg', sum(r['__neg'] for r in rows))
    for v, (a, pf, m) in out.items():
        print(f'   {v:24s} pooled held-out AUC {a}  mean of folds {m}  folds {pf}')
    return out

def load(features, eval_dir):
    labels = {}
    with open(os.path.join(eval_dir, 'yalefaces/labels.csv')) as f:
        for row in csv.DictReader(f):
            if row['expression']:
                labels[os.path.join(eval_dir, 'yalefaces', row['file_png'])] = ('yalefaces', row['expression'], row['subject'])
    with open(os.path.join(eval_dir, 'muxspace_facial_expressions/jaffe_test_labels.csv')) as f:
        for row in csv.DictReader(f):
            labels[os.path.join(eval_dir, 'muxspace_facial_expressions', row['file'])] = ('jaffe', row['emotion'], row['subject'])
    with open(os.path.join(eval_dir, 'muxspace_facial_expressions/labels.csv')) as f:
        for row in csv.DictReader(f):
            person = '_'.join(os.path.basename(row['file'])[:-4].split('_')[:-1])
            labels[os.path.join(eval_dir, 'muxspace_facial_expressions', row['file'])] = ('muxspace', row['emotion'], person)
    rows = []
    with open(features) as f:
        reader = csv.reader(f)
        header = next(reader)
        for rec in reader:
            if len(rec) < len(header): continue
            r = {h: float(v) for h, v in zip(header[1:], rec[1:])}
            s, label, person = labels[rec[0]]
            r['__set'], r['__label'], r['__person'] = s, label, person
            rows.append(r)
    return rows

if __name__ == '__main__':
    rows = load(sys.argv[1], sys.argv[2])
    tasks = [('yalefaces', 'smile', {'happiness'}, None), ('jaffe', 'smile', {'happiness'}, None),
             ('muxspace', 'smile', {'happiness'}, {'neutral'}),
             ('yalefaces', 'eyeClosure', {'sleepy', 'wink'}, {'neutral'}),
             ('yalefaces', 'surprise', {'surprise'}, {'neutral'}), ('jaffe', 'surprise', {'surprise'}, {'neutral'}),
             ('muxspace', 'surprise', {'surprise'}, {'neutral'})]
    for s, task, pos, neg in tasks:
        sel = []
        for r in rows:
            if r['__set'] != s: continue
            r = dict(r)
            r['__pos'] = r['__label'] in pos
            r['__neg'] = (not r['__pos']) if neg is None else r['__label'] in neg
            r['__neu'] = r['__label'] == 'neutral'
            sel.append(r)
        run(s, sel, task)
