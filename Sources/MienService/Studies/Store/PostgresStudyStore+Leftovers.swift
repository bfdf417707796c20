import Foundation
import Logging
import Mien
import MienCore
import MienStudies

/// What a killed server left in a database study's folder: the temporary result files (`.<stimulus>.jsonl.partial-
/// <pid>-<n>`, and the CSV's, events' and summary's) of the sockets it held, biometric data the database already holds
/// (its rows were sent as frames were measured) that nothing else would remove.
extension PostgresStudyStore {
    /// How long a temporary file must have been left untouched before it is taken for a leftover: a live socket
    /// writes a line per frame, and is closed after 20 s without enough frames; one whose participant a live server
    /// holds is given far longer (an end waiting out a database outage, up to 3 minutes).
    static let leftoverAge: (unheld: TimeInterval, held: TimeInterval) = (10, 600)

    /// Removes the temporary result files in `folder` that no live socket writes (issue 96 item 9: they survived
    /// every restart, 1–10 frames more than the database held, until an erasure).
    ///
    /// With several servers on one folder a file may be another live server's: it stays while the ledger says a
    /// live server holds that participant's socket and the file was written in the last `leftoverAge.held`, or
    /// while it was written in the last `leftoverAge.unheld` (a socket whose hold this server has not yet read).
    /// A webcam recording's partial upload (`recording.webm.part`) is not one: an upload resumes from it.
    /// - Returns: the files removed.
    @discardableResult
    static func removeLeftovers(in folder: CollectionFolder, ledger: StudyLedger, now: Date = Date()) -> Int {
        let manager = FileManager.default
        guard let ids = try? manager.contentsOfDirectory(atPath: folder.participants.path) else { return 0 }
        var removed = 0
        for id in ids {
            let directory = folder.participant(id)
            guard let names = try? manager.contentsOfDirectory(atPath: directory.path) else { continue }
            let limit = ledger.holder(of: id) == nil ? leftoverAge.unheld : leftoverAge.held
            for name in names where name.hasPrefix(".") && name.contains(".partial-") {
                let path = directory.appendingPathComponent(name).path
                let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date
                guard let modified, now.timeIntervalSince(modified) > limit else { continue }
                do {
                    try manager.removeItem(atPath: path)
                    removed += 1
                } catch {
                    CollectedStudy.logger.error(
                        "study \(folder.url.lastPathComponent): a killed server's temporary file \(path) cannot be removed: \(error)"
                    )
                }
            }
        }
        return removed
    }
}
