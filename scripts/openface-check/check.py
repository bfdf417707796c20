"""Mien's OpenFace CSV against py-feat 2.0.3's own column lists, read from its source distribution (see run.sh).

read_openface does `pd.read_csv(file)`, strips the names, and selects OPENFACE_ORIG_COLUMNS (silently keeping
everything when one is missing); Fex.aus / .poses / .gazes / .landmarks then select openface_AU_columns,
openface_facepose_columns, openface_gaze_columns and openface_2d_landmark_columns, raising KeyError for a missing
one. This reads the lists from feat/utils/__init__.py (only their assignments, so PyTorch is not needed), reads the
files as read_openface does, and checks every column is there and the values are what the columns mean.
"""

import ast
import csv
import math
import sys
import tarfile

sdist, *files = sys.argv[1:]
with tarfile.open(sdist) as archive:
    member = next(m for m in archive.getmembers() if m.name.endswith("feat/utils/__init__.py"))
    source = archive.extractfile(member).read().decode()
names = {}
for node in ast.parse(source).body:
    # The column lists are plain assignments of literals, comprehensions and sums of them; run those alone.
    if isinstance(node, (ast.Assign, ast.Expr)) and "openface" in ast.unparse(node).lower():
        try:
            exec(compile(ast.Module([node], []), "feat/utils/__init__.py", "exec"), {}, names)
        except NameError:
            pass
    if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "landmark_length":
        exec(compile(ast.Module([node], []), "feat/utils/__init__.py", "exec"), {}, names)
accessors = {
    "read_openface": names["OPENFACE_ORIG_COLUMNS"], "Fex.aus": names["openface_AU_columns"],
    "Fex.poses": names["openface_facepose_columns"], "Fex.gazes": names["openface_gaze_columns"],
    "Fex.landmarks": names["openface_2d_landmark_columns"],
}
problems = []
checks = 0
for path in files:
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    header = [name.strip(" ") for name in rows[0]]
    table = [dict(zip(header, row)) for row in rows[1:]]
    for accessor, columns in accessors.items():
        checks += 1
        missing = [c for c in columns if c not in header]
        if missing:
            problems.append(f"{path}: {accessor} would raise KeyError: {len(missing)} columns missing, e.g. {missing[:5]}")
    checks += 1
    if not table:
        problems.append(f"{path}: no rows")
        continue
    for row in table:
        checks += 1
        number = lambda name: float(row[name]) if row[name] else None
        for eye in ("0", "1"):
            vector = [number(f"gaze_{eye}_{axis}") for axis in "xyz"]
            if None not in vector and not (abs(math.hypot(*vector) - 1) < 1e-3 and vector[2] < 0):
                problems.append(f"{path} frame {row['frame']}: gaze_{eye} is not a unit vector toward the camera: {vector}")
        tz = number("pose_Tz")
        if tz is None or not 100 < tz < 3000:
            problems.append(f"{path} frame {row['frame']}: pose_Tz {tz} is not a head's distance in millimetres")
        z = [number(f"Z_{i}") for i in range(68)]
        if None in z or tz is None or max(abs(v - tz) for v in z) > 150:
            problems.append(f"{path} frame {row['frame']}: Z_* are not around pose_Tz ({tz}): {z[:3]}")
        if row["AU23_r"] or row["AU23_c"]:
            if not 0 <= float(row["AU23_r"]) <= 5:
                problems.append(f"{path}: AU23_r outside 0...5")
        if any(row[p] for p in ("p_scale", "p_0", "p_33")):
            problems.append(f"{path}: shape parameters are not Mien's to fill")
print(f"openface-check: py-feat 2.0.3's {len(accessors['read_openface'])} columns and its accessors' lists, "
      f"{len(files)} files, {checks} checks, {len(problems)} problems")
if problems:
    sys.exit("\n".join(problems[:20]))
