/// The JSON form of a face: its fields by name, absent when nil, and each stored metric
/// (`FaceResult.measures`) as a key of its own, named as in the catalog.
///
/// Written out (not synthesized) only so that the stored metrics, which the catalog defines, sit beside the
/// others instead of under a key of their own: a metric's name is its JSON path.
extension FaceResult: Codable {
    private enum CodingKeys: String, CodingKey {
        case faceId, faceBounds, confidence, facePoints, keypoints, mesh, points68, blendshapes, orientation, quality
        case flags, expressions, emoji, emotions, gender, age, ageYears, glasses, gaze
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        faceId = try container.decode(Int.self, forKey: .faceId)
        faceBounds = try container.decode(Rect.self, forKey: .faceBounds)
        confidence = try container.decode(Double.self, forKey: .confidence)
        facePoints = try container.decodeIfPresent([Point].self, forKey: .facePoints)
        keypoints = try container.decodeIfPresent([String: Point].self, forKey: .keypoints)
        mesh = try container.decodeIfPresent([Point3D].self, forKey: .mesh)
        points68 = try container.decodeIfPresent([Point].self, forKey: .points68)
        blendshapes = try container.decodeIfPresent([String: Double].self, forKey: .blendshapes)
        orientation = try container.decodeIfPresent(HeadPose.self, forKey: .orientation)
        quality = try container.decodeIfPresent(FaceQuality.self, forKey: .quality)
        flags = try container.decode([QualityFlag].self, forKey: .flags)
        expressions = try container.decodeIfPresent(Expressions.self, forKey: .expressions)
        emoji = try container.decodeIfPresent(EmojiScores.self, forKey: .emoji)
        emotions = try container.decodeIfPresent(Scores<Emotion>.self, forKey: .emotions)
        gender = try container.decodeIfPresent(Gender.self, forKey: .gender)
        age = try container.decodeIfPresent(AgeBracket.self, forKey: .age)
        ageYears = try container.decodeIfPresent(Double.self, forKey: .ageYears)
        glasses = try container.decodeIfPresent(Bool.self, forKey: .glasses)
        gaze = try container.decodeIfPresent(Gaze.self, forKey: .gaze)
        let stored = try decoder.container(keyedBy: NameCodingKey.self)
        for entry in MetricCatalog.storedEntries {
            let key = NameCodingKey(stringValue: entry.name)
            measures[entry.name] = try stored.decodeIfPresent(Double.self, forKey: key)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(faceId, forKey: .faceId)
        try container.encode(faceBounds, forKey: .faceBounds)
        try container.encode(confidence, forKey: .confidence)
        try container.encodeIfPresent(facePoints, forKey: .facePoints)
        try container.encodeIfPresent(keypoints, forKey: .keypoints)
        try container.encodeIfPresent(mesh, forKey: .mesh)
        try container.encodeIfPresent(points68, forKey: .points68)
        try container.encodeIfPresent(blendshapes, forKey: .blendshapes)
        try container.encodeIfPresent(orientation, forKey: .orientation)
        try container.encodeIfPresent(quality, forKey: .quality)
        try container.encode(flags, forKey: .flags)
        try container.encodeIfPresent(expressions, forKey: .expressions)
        try container.encodeIfPresent(emoji, forKey: .emoji)
        try container.encodeIfPresent(emotions, forKey: .emotions)
        try container.encodeIfPresent(gender, forKey: .gender)
        try container.encodeIfPresent(age, forKey: .age)
        try container.encodeIfPresent(ageYears, forKey: .ageYears)
        try container.encodeIfPresent(glasses, forKey: .glasses)
        try container.encodeIfPresent(gaze, forKey: .gaze)
        var stored = encoder.container(keyedBy: NameCodingKey.self)
        for (name, value) in measures { try stored.encode(value, forKey: NameCodingKey(stringValue: name)) }
    }
}
