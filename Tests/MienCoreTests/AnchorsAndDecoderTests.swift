import MienCore
import Testing

@Suite("SSD anchors and BlazeFace decoding")
struct AnchorsAndDecoderTests {
    @Test func shortRangeAnchors_matchMediaPipeLayout() {
        let anchors = SSDAnchorOptions.blazeFaceShortRange.anchors()
        #expect(anchors.count == 896)
        // Stride 8: a 16 x 16 grid with 2 anchors per cell, then stride 16: 8 x 8 with 6 per cell.
        #expect(anchors[0] == Anchor(centerX: 0.5 / 16, centerY: 0.5 / 16, width: 1, height: 1))
        #expect(anchors[1] == anchors[0])
        #expect(anchors[2].centerX == 1.5 / 16)
        #expect(anchors[512] == Anchor(centerX: 0.5 / 8, centerY: 0.5 / 8, width: 1, height: 1))
        #expect(anchors[517] == anchors[512])
        #expect(anchors[518].centerX == 1.5 / 8)
        #expect(anchors.last?.centerX == 7.5 / 8 && anchors.last?.centerY == 7.5 / 8)
    }

    @Test func fullRangeAnchors_areOnePerCellOfA48Grid() {
        let anchors = SSDAnchorOptions.blazeFaceFullRange.anchors()
        #expect(anchors.count == 2304)
        #expect(anchors[1].centerX == 1.5 / 48)
        #expect(anchors[48].centerY == 1.5 / 48)
    }

    @Test func decode_placesBoxAndKeypointsRelativeToAnchor() {
        let decoder = BlazeFaceDecoder(options: .blazeFaceShortRange)
        var regressors = [Float](repeating: 0, count: 896 * 16)
        var logits = [Float](repeating: -10, count: 896)
        // Anchor 2 is centred at (1.5/16, 0.5/16) of a 128-pixel input = (12, 4) px.
        let i = 2
        regressors[i * 16 + 0] = 10  // centre moves 10 px right
        regressors[i * 16 + 1] = -2  // and 2 px up
        regressors[i * 16 + 2] = 40  // 40 px wide
        regressors[i * 16 + 3] = 30  // 30 px tall
        regressors[i * 16 + 4] = 5  // right eye 5 px right of the anchor
        regressors[i * 16 + 5] = 6
        logits[i] = 2
        let found = decoder.decode(regressors: regressors, logits: logits, minimumScore: 0.5)
        #expect(found.count == 1)
        let face = found[0]
        #expect(abs(face.bounds.center.x - 22) < 1e-9)
        #expect(abs(face.bounds.center.y - 2) < 1e-9)
        #expect(abs(face.bounds.width - 40) < 1e-9 && abs(face.bounds.height - 30) < 1e-9)
        #expect(abs(face[.rightEye].x - 17) < 1e-9 && abs(face[.rightEye].y - 10) < 1e-9)
        #expect(abs(face.confidence - 1 / (1 + 1 / 7.38905609893065)) < 1e-9)
    }

    @Test func decode_dropsScoresBelowTheThreshold_andClipsHugeLogits() {
        let decoder = BlazeFaceDecoder(options: .blazeFaceFullRange)
        var regressors = [Float](repeating: 0, count: 2304 * 16)
        var logits = [Float](repeating: 0, count: 2304)  // sigmoid(0) = 0.5
        for i in 0..<2304 {
            regressors[i * 16 + 2] = 10
            regressors[i * 16 + 3] = 10
        }
        logits[7] = 1e30
        #expect(decoder.decode(regressors: regressors, logits: logits, minimumScore: 0.6).count == 1)
        #expect(decoder.decode(regressors: regressors, logits: logits, minimumScore: 0.5).count == 2304)
        #expect(decoder.decode(regressors: regressors, logits: logits, minimumScore: 0.6)[0].confidence <= 1)
    }
}
