/// Whether a viewer watched: per frame of their face, and over a window (the attention curve and `onScreenShare`).
import Mien

extension StudyRecordingReader {
    /// Whether the viewer watched on a frame of their face: false with the eyes shut past a blink or `onScreen`
    /// below 50, true with `onScreen` 50 or more, nil when neither was measured.
    static func watching(_ face: FaceResult) -> Bool? {
        if face.measures["eyesClosed"] == 100 { return false }
        return face.measures["onScreen"].map { $0 >= 50 }
    }

    /// The share of the window's judged frames the chosen face watched, overall (scaled by `visible`) and per bin.
    ///
    /// A processed frame without the face is not watching. Nil when no frame of any face was judged.
    func onScreen(window: Window, chosen: FaceSums?, binCount: Int, visible: Double)
        -> (share: Double, bins: [Double?])?
    {
        guard window.faces.values.contains(where: { !$0.judged.isEmpty }) else { return nil }
        let present = Set(chosen?.times ?? [])
        var on = [Int](repeating: 0, count: binCount)
        var judged = [Int](repeating: 0, count: binCount)
        for time in window.frameTimes {
            let bin = time / settings.binMilliseconds
            guard bin < binCount else { continue }
            let watching: Bool? = present.contains(time) ? chosen?.judged[time] : false
            guard let watching else { continue }
            judged[bin] += 1
            if watching { on[bin] += 1 }
        }
        let total = judged.reduce(0, +)
        guard total > 0 else { return nil }
        let share = Double(on.reduce(0, +)) / Double(total) * visible
        return (share, zip(on, judged).map { $1 == 0 ? nil : Double($0) / Double($1) })
    }

    /// The part (0...1) of the row's stimulus its page was visible, from the page's viewing; 1 when not recorded.
    func visibleShare(_ row: StudyManifest.Row) -> Double {
        guard let viewing = row.viewing, let duration = row.duration, duration > 0 else { return 1 }
        return max(0, 1 - viewing.hiddenSeconds / duration)
    }
}
