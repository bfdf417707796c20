import Foundation
import HTTPTypes
import Mien
import MienStudies
import Testing

@testable import MienService

/// Issue 77 item 5: panels' exits (generic, Prolific, Cint, Dynata) and targets that close a group.
@Suite("Panels and targets", .serialized)
struct StudyPanelTests {
    typealias Collection = StudyCollectionTests

    /// Issue 77: with `--panel prolific` a completer goes back with Prolific's own code (cc=) and is shown it, and a
    /// screen-out link carries the screen-out code as cc=; settings Prolific cannot use are refused.
    @Test func prolific_getsItsOwnCodesBack_asCC() async throws {
        let parent = try Collection.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = CollectionFolder(parent.appendingPathComponent("ad"))
        var settings = try CollectionSettings.read(folder: folder.url)
        settings.completionURL = "https://app.prolific.com/submissions/complete?cc=C1234ABC"
        settings.fieldwork.panel = .prolific
        settings.fieldwork.screenoutCode = "NOCAM99"
        try settings.validate()
        try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
        let study = try CollectedStudy(folder: folder.url)
        _ = try await study.admit(participant: "5f1e2d", group: nil)
        for name in ["first", "second"] {
            try await Collection.watch(study, "5f1e2d", name, progress: Collection.measured(to: 3, ended: true))
        }
        let (redirect, code) = try await study.complete("5f1e2d")
        #expect(redirect == "https://app.prolific.com/submissions/complete?cc=C1234ABC", "Prolific's link as given")
        #expect(code == "C1234ABC", "the page shows the code Prolific expects")
        let own = try #require(study.session("5f1e2d")?.code)
        #expect(own.count == 8, "the participant's own code stays, as a reference")
        // approvals.csv and the dashboard show the code the participant was shown and Prolific pays by; their own
        // only as a reference, in a column of its own (issue 96: the dashboard showed only their own).
        let lines = study.approvals(in: .gmt).split(separator: "\n")
        #expect(lines.first?.hasSuffix(",code,started,finished,seconds,measured,reason,review,reference") == true)
        let line = try #require(lines.first { $0.hasPrefix("5f1e2d,") })
        #expect(line.contains(",approve,C1234ABC,") && line.hasSuffix(",\(own)"), "\(line)")
        let row = try #require(study.rows(exclusions: [:]).first)
        #expect(row.code == "C1234ABC" && row.reference == own)
        #expect(
            study.screenoutRedirect(participant: "x", reason: "noCamera")
                == "https://app.prolific.com/submissions/complete?cc=NOCAM99")
        #expect(
            PageConfiguration(study).exits["screenout"] == "https://app.prolific.com/submissions/complete?cc=NOCAM99")

        var noCC = settings
        noCC.completionURL = "https://app.prolific.com/submissions/complete"
        #expect(throws: MienError.self) { try noCC.validate() }
        var noScreenout = settings
        noScreenout.fieldwork.screenoutCode = nil
        #expect(throws: MienError.self) { try noScreenout.validate() }
        // Generic links as before: participant= and code= appended.
        #expect(
            PanelConventions.generic.completion("https://panel.example.org/done?s=1", participant: "p", code: "AB")
                .redirect == "https://panel.example.org/done?s=1&participant=p&code=AB")
    }

    /// Cint credits by the RID its entry link carried: each exit link gets `RID=`, no code; the over-quota link is
    /// the terminate link unless given; Cint needs both its complete and terminate links.
    @Test func cint_carriesTheRID_onEveryExit() async throws {
        let parent = try Collection.studies(groups: [])
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = CollectionFolder(parent.appendingPathComponent("ad"))
        var settings = try CollectionSettings.read(folder: folder.url)
        settings.completionURL = "https://samplicio.us/s/ClientCallBack.aspx?RIS=10"
        settings.fieldwork.screenoutURL = "https://samplicio.us/s/ClientCallBack.aspx?RIS=20"
        settings.fieldwork.panel = .cint
        try settings.validate()
        try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
        let study = try CollectedStudy(folder: folder.url)
        let rid = "E9FC9420-810D-4006-BB3F-4101A6D6C815"
        _ = try await study.admit(participant: rid, group: nil)
        for name in ["first", "second"] {
            try await Collection.watch(study, rid, name, progress: Collection.measured(to: 3, ended: true))
        }
        let (redirect, _) = try await study.complete(rid)
        #expect(redirect == "https://samplicio.us/s/ClientCallBack.aspx?RIS=10&RID=\(rid)")
        #expect(
            settings.exitLink(.screenout, participant: rid, reason: "noCamera")
                == "https://samplicio.us/s/ClientCallBack.aspx?RIS=20&RID=\(rid)")
        #expect(
            settings.exitLink(.overquota, participant: rid, reason: "full")
                == "https://samplicio.us/s/ClientCallBack.aspx?RIS=20&RID=\(rid)", "the terminate link by default")
        var overquota = settings
        overquota.fieldwork.overquotaURL = "https://samplicio.us/s/ClientCallBack.aspx?RIS=40"
        #expect(
            overquota.exitLink(.overquota, participant: rid, reason: "groupFull")
                == "https://samplicio.us/s/ClientCallBack.aspx?RIS=40&RID=\(rid)")
        var noTerminate = settings
        noTerminate.fieldwork.screenoutURL = nil
        #expect(throws: MienError.self) { try noTerminate.validate() }
    }

    /// Dynata's end link tells the outcome by `rst=` (1, 2, 3, replacing the link's own) and the respondent by
    /// `psid=`, whose IDs carry `*`: such an ID consents, and its folder is read back.
    @Test func dynata_setsTheOutcomeAndPsid_andTakesItsIDs() async throws {
        let parent = try Collection.studies(groups: [])
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = CollectionFolder(parent.appendingPathComponent("ad"))
        var settings = try CollectionSettings.read(folder: folder.url)
        settings.completionURL = "https://api.dynata.com/respondent/exit?rst=1"
        settings.fieldwork.panel = .dynata
        try settings.validate()
        try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
        let study = try CollectedStudy(folder: folder.url)
        let psid = "VgrJ2-9iUQZK3noVDtXobw**"
        _ = try await study.admit(participant: psid, group: nil)
        #expect(folder.sessions().sessions.map(\.participant) == [psid], "the folder of an ID with '*' is read")
        for name in ["first", "second"] {
            try await Collection.watch(study, psid, name, progress: Collection.measured(to: 3, ended: true))
        }
        let (redirect, _) = try await study.complete(psid)
        #expect(redirect == "https://api.dynata.com/respondent/exit?rst=1&psid=\(psid)")
        #expect(
            settings.exitLink(.screenout, participant: psid, reason: "noFace")
                == "https://api.dynata.com/respondent/exit?rst=2&psid=\(psid)", "the end link, rst=2")
        #expect(
            settings.exitLink(.overquota, participant: psid, reason: "full")
                == "https://api.dynata.com/respondent/exit?rst=3&psid=\(psid)")
        for bad in ["../x", "a/b", "a.b", String(repeating: "*", count: 65), ""] {
            #expect(!CollectionSettings.isParticipantID(bad), "\(bad)")
        }
        await Collection.refusal(.badRequest, code: "invalidParticipant") {
            _ = try await study.admit(participant: "../etc", group: nil)
        }
    }

    /// The page's fallback links (the server cannot be asked) are the server's, with the ID and reason to put in.
    @Test func pageConfiguration_exits_areTheServersLinks() throws {
        var fieldwork = CollectionSettings.Fieldwork()
        fieldwork.screenoutURL = "https://panel.example.org/out"
        fieldwork.screenoutCode = "SO1"
        fieldwork.overquotaCode = "OQ1"
        let parent = try Collection.studies(fieldwork: fieldwork)
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        let exits = PageConfiguration(study).exits
        #expect(
            exits["screenout"]
                == "https://panel.example.org/out?participant=MIENPARTICIPANTID&reason=MIENREASON&code=SO1")
        #expect(
            exits["overquota"]
                == "https://panel.example.org/out?participant=MIENPARTICIPANTID&reason=MIENREASON&code=OQ1")
    }

    /// Targets that close: those complete and those still taking part fill a group, a place taken at the framing
    /// check (issue 94: not by a consent).
    ///
    /// A full group's link is refused (403 `groupFull`, counted by group), every group full is the study full (403
    /// `studyFull`); someone screened out frees their place; a consent whose group filled before its framing check is
    /// turned away at the check (`studyFull`, screened out over quota). On both stores.
    @Test(arguments: Collection.Store.allCases)
    func targets_closeGroups_andFreeAPlaceWhenSomeoneLeaves(_ store: Collection.Store) async throws {
        var fieldwork = CollectionSettings.Fieldwork()
        fieldwork.targets = ["A": 2, "B": 1]
        fieldwork.targetsClose = true
        fieldwork.groupsFromLink = true
        let parent = try Collection.studies(fieldwork: fieldwork)
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Collection.open(store, parent)
        defer { stop() }
        #expect(try await study.admit(participant: "p1", group: nil).group == "A")
        #expect(try await study.admit(participant: "p2", group: nil).group == "B")
        #expect(try await study.admit(participant: "p3", group: nil).group == "A")
        // Bare consents take no place: a fourth is still admitted (to B, which has fewer), and frames too late.
        #expect(try await study.admit(participant: "late", group: nil).group == "B")
        for id in ["p1", "p2", "p3"] { try await Collection.framed(study, id) }
        await Collection.refusal(.forbidden, code: "studyFull") {
            _ = try await study.admit(participant: "p4", group: nil)
        }
        await Collection.refusal(.forbidden, code: "groupFull") {
            _ = try await study.admit(participant: "p5", group: "B")
        }
        await Collection.refusal(.forbidden, code: "studyFull") {
            try await study.beginFraming("late", socket: Collection.socket("framing"))
        }
        #expect(study.session("late")?.state == .screenedOut && study.session("late")?.reasonCode == .studyFull)
        var summary = await study.summary()
        #expect(summary.turnedAwayFull == 1 && summary.turnedAwayGroupFull == ["B": 2] && summary.targetsClose)
        _ = try await study.screenOut("p2", reason: .noCamera)
        #expect(try await study.admit(participant: "p6", group: "B").group == "B", "p2's place is free again")
        summary = await study.summary()
        #expect(summary.groups.map(\.agreed) == [2, 3])
    }

    /// Issue 94 item 2: the first through the framing check takes the last place.
    ///
    /// The other, framed second, is turned away at its check and its stimulus socket is told `studyFull`. On both
    /// stores.
    @Test(arguments: Collection.Store.allCases)
    func theLastPlace_goesToTheFirstThroughTheFramingCheck(_ store: Collection.Store) async throws {
        var fieldwork = CollectionSettings.Fieldwork()
        fieldwork.targets = [StudyManifest.wholePanel: 1]
        fieldwork.targetsClose = true
        let parent = try Collection.studies(groups: [], fieldwork: fieldwork)
        defer { try? FileManager.default.removeItem(at: parent) }
        let (study, stop) = try await Collection.open(store, parent)
        defer { stop() }
        for id in ["first", "second"] { _ = try await study.admit(participant: id, group: nil) }
        let sockets = [Collection.socket("framing"), Collection.socket("framing")]
        try await study.beginFraming("first", socket: sockets[0])
        try await study.beginFraming("second", socket: sockets[1])
        await study.framingEnded("first", socket: sockets[0].id, passed: true)
        await study.framingEnded("second", socket: sockets[1].id, passed: true)
        #expect(study.session("first")?.framed != nil && study.session("first")?.state == .started)
        #expect(study.session("second")?.state == .screenedOut && study.session("second")?.framed == nil)
        await Collection.refusal(.forbidden, code: "studyFull") {
            _ = try await study.beginStimulus("second", stimulus: "first", socket: Collection.socket("first"))
        }
        let outcome = try await Collection.watch(
            study, "first", "first", progress: Collection.measured(to: 2.9, ended: true))
        #expect(outcome.enough)
    }

    /// The whole study's target closes a study without groups; targets only shown turn nobody away.
    @Test func targets_wholeStudy_andDisplayOnly() async throws {
        var fieldwork = CollectionSettings.Fieldwork()
        fieldwork.targets = [StudyManifest.wholePanel: 1]
        fieldwork.targetsClose = true
        let parent = try Collection.studies(groups: [], fieldwork: fieldwork)
        defer { try? FileManager.default.removeItem(at: parent) }
        let study = try CollectedStudy(folder: parent.appendingPathComponent("ad"))
        _ = try await study.admit(participant: "p1", group: nil)
        try await Collection.framed(study, "p1")
        await Collection.refusal(.forbidden, code: "studyFull") {
            _ = try await study.admit(participant: "p2", group: nil)
        }
        fieldwork.targetsClose = nil
        let shown = try Collection.studies(groups: [], fieldwork: fieldwork)
        defer { try? FileManager.default.removeItem(at: shown) }
        let display = try CollectedStudy(folder: shown.appendingPathComponent("ad"))
        for id in ["p1", "p2", "p3"] { _ = try await display.admit(participant: id, group: nil) }
        #expect(await display.summary().targetsClose == false)
    }
}
