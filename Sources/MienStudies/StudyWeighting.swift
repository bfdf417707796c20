import Foundation
import Mien
import MienStatistics

/// Weights to a population's margins (`mien study --weight age=18-24:0.3,25-34:0.4,35+:0.3 --weight
/// sex=female:0.5,male:0.5`, issue 98 item 5): the participants included for at least one stimulus raked to the
/// margins of the attributes their panel's link gave (`Raking`), with no weight above `cap` times the mean.
///
/// A participant without a value for a weighted attribute cannot be placed in its margin: they are left out of the
/// weighted figures, and said to be. Refused, naming what: shares that do not sum to 1, an attribute no included
/// participant has, a participant's value the margin does not list, a listed value nobody has, and a cap the raking
/// cannot meet.
package struct StudyWeighting: Sendable, Equatable, Codable {
    package struct Margin: Sendable, Equatable, Codable {
        package var attribute: String
        package var values: [String]
        package var shares: [Double]
    }

    package var margins: [Margin]
    /// The largest weight, as a multiple of the mean weight (1).
    package var cap: Double

    /// What raking made of a study's participants.
    package struct Weights: Sendable, Equatable, Codable {
        /// By participant, averaging 1 over those raked.
        package var weights: [String: Double]
        /// Kish's effective sample size of the weights.
        package var effectiveSize: Double
        /// Participants left out of the weighted figures (no value for a weighted attribute), sorted.
        package var leftOut: [String]
        package var iterations: Int
        package var margins: [Margin]
        package var cap: Double
    }

    /// Parses `--weight NAME=VALUE:SHARE,...` (one per attribute) and `--weight-cap`.
    /// - Throws: `MienError` `.invalidArgument` naming the argument and what is wrong.
    package init(arguments: [String], cap: Double) throws {
        guard cap.isFinite, cap >= 1 else {
            throw MienError(
                .invalidArgument, "--weight-cap \(cap): a cap is a multiple of the mean weight, 1 or more")
        }
        self.cap = cap
        margins = []
        for argument in arguments {
            func refuse(_ why: String) -> MienError { MienError(.invalidArgument, "--weight \(argument): \(why)") }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw refuse("write NAME=VALUE:SHARE,VALUE:SHARE (age=18-24:0.3,25-34:0.7)")
            }
            var margin = Margin(attribute: parts[0], values: [], shares: [])
            for pair in parts[1].split(separator: ",") {
                guard let colon = pair.lastIndex(of: ":"), let share = Double(pair[pair.index(after: colon)...]),
                    share.isFinite, share > 0, share <= 1
                else { throw refuse("\(pair) is not VALUE:SHARE with a share above 0 and at most 1") }
                let value = String(pair[..<colon])
                guard !margin.values.contains(value) else { throw refuse("\(value) is given twice") }
                margin.values.append(value)
                margin.shares.append(share)
            }
            let sum = margin.shares.reduce(0, +)
            guard abs(sum - 1) < 1e-6 else {
                throw refuse("the shares sum to \(ResultTable.number(sum, places: 4)), not 1")
            }
            guard !margins.contains(where: { $0.attribute == margin.attribute }) else {
                throw refuse("\(margin.attribute) is weighted twice")
            }
            margins.append(margin)
        }
    }

    /// Rakes `study`'s included participants (each once) to the margins.
    /// - Throws: `MienError` `.invalidArgument` naming the attribute, value or cap that cannot be met.
    package func weights(for study: Study) throws -> Weights {
        var attributes: [String: [String: String]] = [:]
        for series in study.participants where series.included {
            attributes[series.row.participant] = series.row.attributes ?? [:]
        }
        let known = Set(attributes.values.flatMap(\.keys))
        var leftOut: Set<String> = []
        for margin in margins {
            guard known.contains(margin.attribute) else {
                throw MienError(
                    .invalidArgument,
                    "--weight \(margin.attribute): no included participant has that attribute (theirs: \(known.isEmpty ? "none" : known.sorted().joined(separator: ", ")))"
                )
            }
            for (participant, given) in attributes {
                guard let value = given[margin.attribute], !value.isEmpty else {
                    leftOut.insert(participant)
                    continue
                }
                guard margin.values.contains(value) else {
                    throw MienError(
                        .invalidArgument,
                        "--weight \(margin.attribute): participants have \(margin.attribute)=\(value), which the margin does not list (\(margin.values.joined(separator: ", ")))"
                    )
                }
            }
        }
        let raked = attributes.keys.filter { !leftOut.contains($0) }.sorted()
        for margin in margins {
            for value in margin.values where !raked.contains(where: { attributes[$0]?[margin.attribute] == value }) {
                throw MienError(
                    .invalidArgument,
                    "--weight \(margin.attribute)=\(value): no included participant has it, so its share cannot be met"
                )
            }
        }
        let categories = margins.map { margin in
            raked.map { participant in
                margin.values.firstIndex(of: attributes[participant]?[margin.attribute] ?? "") ?? 0
            }
        }
        let outcome = Raking.rake(categories: categories, targets: margins.map(\.shares), cap: cap)
        guard outcome.converged else {
            throw MienError(
                .invalidArgument,
                "--weight-cap \(ResultTable.number(cap, places: 2)): the margins cannot be met with no weight above \(ResultTable.number(cap, places: 2)) times the mean (after \(outcome.iterations) passes a share is still \(ResultTable.number(outcome.largestGap * 100, places: 2)) points off); raise the cap or merge categories"
            )
        }
        return Weights(
            weights: Dictionary(uniqueKeysWithValues: zip(raked, outcome.weights)),
            effectiveSize: Raking.effectiveSize(outcome.weights), leftOut: leftOut.sorted(),
            iterations: outcome.iterations, margins: margins, cap: cap)
    }
}

extension StudyWeighting.Weights {
    /// `weights.csv`: a row per participant raked.
    package var csv: String {
        (["participant,weight"]
            + weights.keys.sorted().map {
                ResultTable.quoted($0) + "," + ResultTable.number(weights[$0] ?? 0, places: 6)
            }).joined(separator: "\n") + "\n"
    }

    /// What the weighting did, in words (the verdict's caveat and the notes).
    package var words: String {
        let names = margins.map(\.attribute).joined(separator: " and ")
        return
            "Weighted to the margins of \(names) by raking (no weight above \(ResultTable.number(cap, places: 2)) times the mean; weights.csv): effective sample size \(ResultTable.number(effectiveSize, places: 1)) of \(weights.count)"
            + (leftOut.isEmpty
                ? "" : "; \(leftOut.count) without a value for it left out of the weighted figures") + "."
    }
}
