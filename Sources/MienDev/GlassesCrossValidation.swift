import Foundation
import Mien
import MienTesting

/// Person-wise cross-validation of the glasses decision (issue 24).
///
/// Both of the decision's constants (`Appearance.glassesThreshold` on the nose-bridge evidence and
/// `Appearance.lensDarknessThreshold`) were chosen on the dev data, so both are refitted on the training
/// people of each fold (the pair with the best training accuracy, the middle of its plateau) and the
/// held-out people's faces are judged with them. Five folds of people, repeated with four seeds, pooled per
/// set; beside it the bridge evidence alone with its threshold refitted the same way.
struct GlassesCrossValidation {
    static let folds = 5
    static let repetitions = 4
    static let seed: UInt64 = 24

    /// One face without quality flags.
    struct Sample: Sendable {
        let set: String
        let person: String
        let wearsGlasses: Bool
        let evidence: Double
        let lensDarkness: Double
    }

    /// A decision rule fitted on training faces.
    private struct Rule {
        let glassesThreshold: Double
        /// nil: the bridge evidence alone.
        let lensDarknessThreshold: Double?

        func wearsGlasses(_ s: Sample) -> Bool {
            Appearance.wearsGlasses(
                glassesEvidence: s.evidence, lensDarkness: s.lensDarkness, glassesThreshold: glassesThreshold,
                lensDarknessThreshold: lensDarknessThreshold ?? .infinity)
        }
    }

    func run(_ samples: [Sample]) -> [String: Any] {
        let people = Set(samples.map(\.person)).sorted()
        guard people.count >= Self.folds else { return [:] }
        // Held-out decisions per arm and per set ("all" too): (right, judged).
        var tally: [String: [String: (right: Int, count: Int)]] = [:]
        var chosen: [(glasses: Double, darkness: Double)] = []
        var generator = SeededGenerator(seed: Self.seed)
        for _ in 0..<Self.repetitions {
            let fold = PersonFolds.assign(people, count: Self.folds, using: &generator)
            for k in 0..<Self.folds {
                let training = samples.filter { fold[$0.person] != k }
                let mien = Self.fitBoth(training)
                let rules = [("bridge_alone", Self.fitBridge(training)), ("mien", mien)]
                chosen.append((mien.glassesThreshold, mien.lensDarknessThreshold ?? .infinity))
                for sample in samples where fold[sample.person] == k {
                    for (arm, rule) in rules {
                        let hit = rule.wearsGlasses(sample) == sample.wearsGlasses ? 1 : 0
                        for key in [sample.set, "all"] {
                            let old = tally[arm, default: [:]][key] ?? (0, 0)
                            tally[arm, default: [:]][key] = (old.right + hit, old.count + 1)
                        }
                    }
                }
            }
        }
        let accuracy = tally.mapValues { sets in sets.mapValues { Double($0.right) / Double(max($0.count, 1)) } }
        var result: [String: Any] = [
            "people": people.count, "folds": Self.folds, "repetitions": Self.repetitions,
        ]
        for (arm, sets) in accuracy { result[arm] = sets.mapValues(round3) }
        let thresholds = chosen.map(\.glasses).sorted()
        let darkness = chosen.map(\.darkness).sorted()
        if let t0 = thresholds.first, let t1 = thresholds.last, let d0 = darkness.first, let d1 = darkness.last {
            result["refitted_thresholds"] = [
                "glasses": [round3(t0), round3(t1)], "lens_darkness": [round3(d0), round3(d1)],
            ]
        }
        let line = ["mien", "bridge_alone"].map { arm in
            let sets = accuracy[arm] ?? [:]
            let perSet = sets.keys.filter { $0 != "all" }.sorted().map {
                "\($0) \(String(format: "%.1f", 100 * (sets[$0] ?? 0)))"
            }
            return "\(arm) \(String(format: "%.2f", 100 * (sets["all"] ?? 0))) % (\(perSet.joined(separator: ", ")))"
        }
        print(
            "glasses cross-validated (\(people.count) people, \(Self.folds) folds x \(Self.repetitions) seeds,"
                + " held-out accuracy): " + line.joined(separator: "; "))
        return result
    }

    /// The bridge evidence's threshold with the best training accuracy.
    private static func fitBridge(_ training: [Sample]) -> Rule {
        Rule(
            glassesThreshold: bestThreshold(training.map { ($0.evidence, $0.wearsGlasses) }).threshold,
            lensDarknessThreshold: nil)
    }

    /// Both thresholds: for each bridge threshold, the darkness threshold that best sorts the faces below it.
    private static func fitBoth(_ training: [Sample]) -> Rule {
        var best: [(Double, Double)] = []
        var bestRight = -1
        for glasses in candidates(training.map(\.evidence)) {
            let above = training.filter { $0.evidence >= glasses }
            let below = training.filter { $0.evidence < glasses }
            let darkness = bestThreshold(below.map { ($0.lensDarkness, $0.wearsGlasses) })
            let right = above.filter(\.wearsGlasses).count + darkness.right
            if right > bestRight {
                (bestRight, best) = (right, [(glasses, darkness.threshold)])
            } else if right == bestRight {
                best.append((glasses, darkness.threshold))
            }
        }
        let middle = best[best.count / 2]
        return Rule(glassesThreshold: middle.0, lensDarknessThreshold: middle.1)
    }

    /// Thresholds between consecutive distinct values, and one beyond each end.
    private static func candidates(_ values: [Double]) -> [Double] {
        let distinct = Array(Set(values)).sorted()
        guard let first = distinct.first, let last = distinct.last else { return [0] }
        return [first - 1] + zip(distinct, distinct.dropFirst()).map { ($0 + $1) / 2 } + [last + 1]
    }

    /// The threshold (value >= threshold means glasses) with the most right decisions: the middle of the
    /// best plateau.
    private static func bestThreshold(_ samples: [(value: Double, positive: Bool)]) -> (threshold: Double, right: Int) {
        let sorted = samples.sorted { $0.value < $1.value }
        let positives = sorted.filter(\.positive).count
        var best: [Double] = []
        var bestRight = -1
        var negativesBelow = 0
        var positivesBelow = 0
        var index = 0
        for threshold in candidates(sorted.map(\.value)) {
            while index < sorted.count, sorted[index].value < threshold {
                if sorted[index].positive { positivesBelow += 1 } else { negativesBelow += 1 }
                index += 1
            }
            let right = negativesBelow + positives - positivesBelow
            if right > bestRight {
                (bestRight, best) = (right, [threshold])
            } else if right == bestRight {
                best.append(threshold)
            }
        }
        return (best.isEmpty ? .infinity : best[best.count / 2], max(bestRight, 0))
    }
}
