"""What every peer script of make bench-peers does around its own loop: time RUNS passes over the clip and
print one JSON line (median frames/s, faces per frame of the last pass, this process's peak RSS in MB)."""
import json
import resource
import statistics


def report(clip, mode, runs, one_pass):
    """`one_pass()` returns (frames, faces found, seconds)."""
    rates = []
    faces_per_frame = 0.0
    for _ in range(runs):
        frames, found, seconds = one_pass()
        rates.append(frames / seconds)
        faces_per_frame = found / max(frames, 1)
    print(json.dumps({
        "clip": clip, "mode": mode, "fps": round(statistics.median(rates), 1),
        "faces_per_frame": round(faces_per_frame, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))
