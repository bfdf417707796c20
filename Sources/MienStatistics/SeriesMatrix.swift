/// One metric's values over a panel: a row per participant, a column per time bin.
///
/// NaN where the participant's face was not measured. The permutation tests and the correlations read these.
package struct SeriesMatrix: Sendable, Equatable {
    package let rows: Int
    package let columns: Int
    /// Row-major: `values[row * columns + column]`.
    package var values: [Double]

    /// A matrix of `rows` series, each padded with NaN (or cut) to `columns` bins.
    package init(_ rows: [[Double?]], columns: Int) {
        self.rows = rows.count
        self.columns = columns
        values = rows.flatMap { row in (0..<columns).map { $0 < row.count ? (row[$0] ?? .nan) : .nan } }
    }

    package init(rows: Int, columns: Int, values: [Double]) {
        precondition(values.count == rows * columns, "a matrix needs rows × columns values")
        self.rows = rows
        self.columns = columns
        self.values = values
    }

    /// The value at a row and column; nil where not measured.
    package subscript(row: Int, column: Int) -> Double? {
        let value = values[row * columns + column]
        return value.isNaN ? nil : value
    }

    /// The rows at `indices`, in that order.
    package func selecting(rows indices: [Int]) -> SeriesMatrix {
        SeriesMatrix(
            rows: indices.count, columns: columns,
            values: indices.flatMap { values[($0 * columns)..<(($0 + 1) * columns)] })
    }
}
