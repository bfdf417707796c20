import MienTesting

/// Person-wise cross-validation folds: the people, sorted and then shuffled with a seeded generator, are dealt
/// round-robin into folds, so all of one person's faces land in the same fold and a held-out person was
/// never seen in training.
enum PersonFolds {
    /// Each person's fold, 0..<`count`.
    static func assign(_ people: some Sequence<String>, count: Int, using generator: inout SeededGenerator)
        -> [String: Int]
    {
        var fold: [String: Int] = [:]
        for (i, person) in Set(people).sorted().shuffled(using: &generator).enumerated() { fold[person] = i % count }
        return fold
    }
}
