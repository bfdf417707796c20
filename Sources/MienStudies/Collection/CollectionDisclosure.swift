/// What a collected study stores, in words, made from its settings: the consent template and `STORED.md` say it
/// from here, so they name exactly what the server keeps (every field of a face's row is listed in `fields`,
/// which a test checks against real rows).
import Mien

package enum CollectionDisclosure {
    /// One kind of data kept for each analysed camera picture.
    package struct Field: Sendable, Equatable {
        /// The keys of a face in the JSON Lines that hold it.
        package var keys: [String]
        /// In words, for a participant.
        package var words: String
    }

    /// What a face's row holds, for a study that stores `stored`.
    package static func fields(_ stored: CollectionSettings.Stored) -> [Field] {
        var fields: [Field] = [
            Field(
                keys: ["faceId", "faceBounds", "confidence", "quality", "flags"],
                words:
                    "where your face is in the camera picture (a box, in pixels), how sure the software is that it is a face, and how well lit and sharp it is"
            ),
            Field(
                keys: ["orientation"],
                words:
                    "how your head is turned (up/down, left/right, tilt, in degrees) and the distance between your eyes in pixels"
            ),
            Field(
                keys: ["gaze", "lookingAtCamera", "onScreen"],
                words: "where your eyes look, and whether at the camera and at the screen"),
            Field(
                keys: ["expressions", "lipTighten"],
                words:
                    "scores of 21 facial expressions (smile, brow raise, eye closure and others, with left and right sides), from which blinks are counted"
            ),
            Field(
                keys: ["eyesClosed", "talking"],
                words:
                    "whether your eyes stayed closed longer than a blink, and whether your mouth moved as in talking (no sound is recorded)"
            ),
            Field(keys: ["emoji"], words: "scores of 14 emoji-like expressions"),
            Field(
                keys: ["emotions", "valence", "engagement"],
                words:
                    "scores of 7 emotions and neutral, how positive (valence) and how expressive (engagement) you look"),
        ]
        if stored.landmarks {
            fields.append(
                Field(
                    keys: ["facePoints"],
                    words:
                        "34 points on your face (eyebrows, eyes, nose, mouth, chin), in camera pixels: they describe the shape of your face"
                ))
        }
        if stored.appearance {
            fields.append(
                Field(
                    keys: ["gender", "age", "ageYears", "glasses"],
                    words:
                        "the software's guess of your gender, your age (a range and in years) and whether you wear glasses; estimated from your face, not asked"
                ))
        }
        return fields
    }

    /// The bullet list of what each analysed picture leaves.
    package static func perFrame(_ stored: CollectionSettings.Stored) -> String {
        (["the time of the picture on the video you watched"] + fields(stored).map(\.words))
            .map { "- \($0)" }.joined(separator: "\n")
    }

    /// The consent text a study gets when none is given: what is measured and kept, who to ask, to adapt.
    package static func consent(_ settings: CollectionSettings) -> String {
        let contact =
            settings.researcher.contact ?? "[CONTACT: how participants reach the researchers, e.g. an e-mail address]"
        let who = settings.researcher.name.map { " run by \($0)" } ?? ""
        return """
            # Taking part

            This study\(who) shows you \(settings.stimuli.count == 1 ? "a short video" : "\(settings.stimuli.count) short videos") while your webcam is on. Software on the study's server (Mien) measures your face in the camera's pictures as they arrive, about \(Int(saturating: settings.frameRate, rounding: .towardZero)) times a second.

            \(settings.record ? "Your webcam is also recorded while you watch, and the recording is uploaded to the study's server after the videos, where it is kept for the study." : "No picture or video of you is kept: each picture is measured and then deleted. Only these numbers are kept:")

            For each picture:
            \(perFrame(settings.stored))

            From these, the times your expressions start, peak and end, and a summary per video. With them: the participant ID you came with (not your name), the group you were put in, \(linkAttributes(settings))when you started, were last seen and finished, the step you reached, how much of each video was measured (of an interrupted try of a video too), while each video played when this page was hidden, left full screen or not in front and when the video stood still or was moved (in seconds of the video), the size and frame rate of your camera's pictures and the size of your screen, how often the position check did not pass and when it last passed, where your eyes looked at your own picture during it (to know where your screen is), when you pressed Skip if a video had one, why you stopped if you did not finish, and the completion code you were given.

            \(answersSentence(settings))These numbers are kept \(settings.researcher.retention ?? "[RETENTION: how long the data is kept, e.g. until 31 December 2028]") on the study's server. The researchers read them through a dashboard that needs their password, and whoever runs that server for them can read its files; nobody else can. This page can send your results but cannot read them back.

            You may stop at any time by closing this page; what was measured until then is kept unless you ask for it to be deleted. To ask a question, or to have every file of yours deleted, write to \(contact) with your participant ID. Once your data is deleted, only a one-way code made from your participant ID is kept, so that the ID cannot take part (and be paid) again.

            By choosing "I agree" you consent to taking part on these terms.
            """
    }

    /// What the study folder will hold, for whoever audits it (`STORED.md`).
    package static func storedNote(_ settings: CollectionSettings) -> String {
        let omitted =
            [
                settings.stored.landmarks ? nil : "facial points (--no-landmarks)",
                settings.stored.appearance ? nil : "gender, age and glasses (--no-appearance: not even estimated)",
            ].compactMap { $0 }
        return """
            # What this study stores

            Written by `mien study init` from the study's settings; `mien serve --studies` keeps to it.

            - `settings.json`, `consent.md`, `stimuli/`: the study as it was set up (stimuli checked by SHA-256).
            - `participants/ID/session.json`: per participant, the ID they came with, their number, group\(storedAttributes(settings)) and order of \
            stimuli, when they started, were last seen and finished, the step they reached, per stimulus how many camera \
            frames arrived, were analysed and showed a face and the share of the stimulus measured, what the page \
            recorded of the viewing (when it was hidden, out of full screen or out of focus, stalls, seeks and rate \
            changes, in seconds of the stimulus; the stimulus's frames shown and dropped; the camera's picture size and \
            frame rate, the screen's size and how far the frames' time stamps can be off), earlier interrupted \
            attempts, framing failures and when a framing check last passed, where they looked at their own picture \
            during it, moved by where that picture was on their screen (their screen's centre, degrees), when they skipped a stimulus, whether their viewing leaves them \
            out of the targets, why they are incomplete or screened out, and their completion code\(storedAnswers(settings)). Their \
            session token is kept only as its SHA-256.
            - `participants/ID/STIMULUS.jsonl`, `.csv`, `.events.csv`, `.summary.json` (and `STIMULUS.attemptN.*` for an \
            earlier, interrupted attempt): for each analysed camera picture:
            \(perFrame(settings.stored).split(separator: "\n").map { "  \($0)" }.joined(separator: "\n"))
              then the episodes (when each expression or emotion started, peaked and ended) and a summary per face.
            \(omitted.isEmpty ? "" : "- Not stored: \(omitted.joined(separator: "; ")).\n")\
            - `manifest.csv`: one row per participant and stimulus measured; `fieldwork.json`: counts of people who \
            declined or found the study full (no ID, nothing else), and for each participant deleted a SHA-256 digest \
            of the study's name and their ID, so that ID cannot take part and be paid again (the ID itself is not kept).
            \(settings.record ? "- `participants/ID/recording.webm`: the participant's webcam during the stimuli (--record), and `recorded.csv` listing each with the stimuli's onsets in it." : "- No picture or video of any participant: each camera frame is analysed in memory and dropped.")
            - Not stored: IP addresses (consents are limited per address in memory only), browsers, names.

            Deleting a participant (the dashboard's button, or `DELETE /studies/NAME/participants/ID` with the service \
            token) removes their folder and their manifest rows (with a database, their rows there too); only the digest of \
            their ID stays. Contact for participants: \
            \(settings.researcher.contact ?? "NOT SET (give --contact to mien study init, or edit settings.json and consent.md)"). \
            Kept: \(settings.researcher.retention ?? "NOT SET (give --retention to mien study init, or edit settings.json and consent.md)"); \
            read by the researchers through the dashboard (the service token) and by whoever runs the server.

            """
    }

    /// The consent's words on what the panel's link says of the participant (empty when the study declares nothing),
    /// ending in ", ".
    static func linkAttributes(_ settings: CollectionSettings) -> String {
        guard let attributes = settings.attributes, !attributes.isEmpty else { return "" }
        let names = attributes.map(\.name)
        let listed =
            names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
        return
            "your \(listed) as the panel that sent you here gives \(names.count == 1 ? "it" : "them") in the study's link (only one of the study's own categories for each: \(attributes.map { "\($0.name): \($0.values.joined(separator: ", "))" }.joined(separator: "; "))), "
    }

    /// STORED.md's words on the panel's attributes a session holds (empty when the study declares none).
    static func storedAttributes(_ settings: CollectionSettings) -> String {
        guard let attributes = settings.attributes, !attributes.isEmpty else { return "" }
        return
            ", what the panel's link gave of them (\(attributes.map(\.name).joined(separator: ", ")): only a value the study declared, else nothing)"
    }

    /// The consent's paragraph on the study's questions (empty when it asks none), ending in a blank line.
    static func answersSentence(_ settings: CollectionSettings) -> String {
        guard let questions = settings.questions?.questions, !questions.isEmpty else { return "" }
        let free = questions.contains { $0.kind == .text }
        let count = questions.count == 1 ? "a question" : "\(questions.count) questions"
        return
            "The study also asks you \(count) (after a video or at the end). Your answers are kept with these numbers, each with when you sent it\(free ? "; what you type in a box is kept as you typed it, so please do not type your name or anything else that tells who you are" : ""). Answers are sent only when you choose \(settings.questions?.submit ?? "Continue").\n\n"
    }

    /// STORED.md's words on the answers a session holds (empty when the study asks no questions).
    static func storedAnswers(_ settings: CollectionSettings) -> String {
        guard let questions = settings.questions?.questions, !questions.isEmpty else { return "" }
        let free = questions.contains { $0.kind == .text }
        return
            ", and their answers to the study's \(questions.count) question\(questions.count == 1 ? "" : "s") (the point chosen on each scale, the options chosen\(free ? ", free text as typed" : "")), with when each page of answers was sent (`mien study` writes them to answers.csv)"
    }
}
