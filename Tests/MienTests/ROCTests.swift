import MienTesting
import Testing

/// The ROC-AUC `make eval` reports, and the interval around a difference of two of them.
@Suite("ROC-AUC and its paired bootstrap")
struct ROCTests {
    /// The pairwise definition the rank formula must equal: wins plus half the ties over all pairs.
    static func pairwise(_ positives: [Double], _ negatives: [Double]) -> Double {
        var wins = 0.0
        for p in positives {
            for n in negatives { wins += p > n ? 1 : (p == n ? 0.5 : 0) }
        }
        return wins / Double(positives.count * negatives.count)
    }

    @Test func auc_equalsThePairwiseCount_withTies() {
        #expect(ROC.auc(positives: [3, 4], negatives: [1, 2]) == 1)
        #expect(ROC.auc(positives: [1, 2], negatives: [3, 4]) == 0)
        #expect(ROC.auc(positives: [1, 1], negatives: [1]) == 0.5)
        #expect(ROC.auc(positives: [], negatives: [1]).isNaN)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<50 {
            // Few distinct values, so ties are common.
            let positives = (0..<Int.random(in: 1...30, using: &generator)).map { _ in
                Double(Int.random(in: 0...6, using: &generator))
            }
            let negatives = (0..<Int.random(in: 1...30, using: &generator)).map { _ in
                Double(Int.random(in: 0...5, using: &generator))
            }
            let difference = ROC.auc(positives: positives, negatives: negatives) - Self.pairwise(positives, negatives)
            #expect(abs(difference) < 1e-12)
        }
    }

    /// Rows where `first` separates the classes better than `second` by construction.
    static func rows(people: Int, perPerson: Int, seed: UInt64, noise: Double) -> [PairedAUCBootstrap.Row] {
        var generator = SeededGenerator(seed: seed)
        var rows: [PairedAUCBootstrap.Row] = []
        for person in 0..<people {
            for picture in 0..<perPerson {
                let positive = (person + picture) % 2 == 0
                let signal = positive ? 1.0 : 0.0
                rows.append(
                    PairedAUCBootstrap.Row(
                        person: "p\(person)", positive: positive,
                        first: signal + Double.random(in: -0.6...0.6, using: &generator),
                        second: signal + Double.random(in: -noise...noise, using: &generator)))
            }
        }
        return rows
    }

    @Test func interval_coversTheDifference_andIsBehindOnlyWhenClearlySo() throws {
        let bootstrap = PairedAUCBootstrap(resamples: 400)
        // Second score much noisier: first is ahead, so the difference first - second is positive.
        let ahead = try #require(bootstrap.interval(Self.rows(people: 200, perPerson: 2, seed: 1, noise: 3)))
        #expect(ahead.low <= ahead.difference && ahead.difference <= ahead.high)
        #expect(ahead.low > 0 && !ahead.behind)
        // Swapped: the same rows with the scores exchanged are behind.
        let swapped = Self.rows(people: 200, perPerson: 2, seed: 1, noise: 3).map {
            PairedAUCBootstrap.Row(person: $0.person, positive: $0.positive, first: $0.second, second: $0.first)
        }
        let behind = try #require(bootstrap.interval(swapped))
        #expect(behind.behind)
        // Identical scores: the difference is exactly 0 on every draw.
        let same = Self.rows(people: 50, perPerson: 2, seed: 2, noise: 0.6).map {
            PairedAUCBootstrap.Row(person: $0.person, positive: $0.positive, first: $0.first, second: $0.first)
        }
        let zero = try #require(bootstrap.interval(same))
        #expect(zero.difference == 0 && zero.low == 0 && zero.high == 0)
        #expect(bootstrap.interval(Array(same.filter(\.positive))) == nil)
    }

    @Test func interval_widensWhenPicturesOfOnePersonAreResampledTogether() throws {
        // 20 people with 10 pictures each, scores shared within a person: the information is that of 20
        // faces, not 200, and the person-wise interval must say so.
        var rows: [PairedAUCBootstrap.Row] = []
        var generator = SeededGenerator(seed: 3)
        for person in 0..<20 {
            let positive = person % 2 == 0
            let first = (positive ? 0.3 : 0) + Double.random(in: 0...1, using: &generator)
            let second = Double.random(in: 0...1, using: &generator)
            for _ in 0..<10 {
                rows.append(
                    PairedAUCBootstrap.Row(person: "p\(person)", positive: positive, first: first, second: second))
            }
        }
        let byPerson = try #require(PairedAUCBootstrap(resamples: 400).interval(rows))
        let byPicture = try #require(
            PairedAUCBootstrap(resamples: 400).interval(
                rows.map {
                    PairedAUCBootstrap.Row(person: "", positive: $0.positive, first: $0.first, second: $0.second)
                }))
        #expect(byPerson.high - byPerson.low > 1.5 * (byPicture.high - byPicture.low))
    }
}
