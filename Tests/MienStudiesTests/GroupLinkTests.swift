import Testing

@testable import Mien
@testable import MienStudies

/// Issue 78: a link's group counts only when the study signed it, so editing the link cannot choose a group.
@Suite("Signed group links")
struct GroupLinkTests {
    @Test func hmac_matchesRFC4231() {
        // RFC 4231, test case 2 (Python's hmac gives the same: study-check signs its links with it).
        let mac = GroupLink.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        let hex = mac.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        #expect(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // A key longer than the block is hashed first (test case 6).
        let long = GroupLink.hmacSHA256(
            key: [UInt8](repeating: 0xaa, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(long.prefix(4) == [0x60, 0xe4, 0x31, 0x59])
    }

    @Test func aLinksGroup_isTakenSigned_orAsGivenWhenTheStudySaysSo() {
        var fieldwork = CollectionSettings.Fieldwork()
        #expect(fieldwork.linkedGroup("A", signature: nil) == "A", "a study made before links were signed")
        fieldwork.groupLinkKey = GroupLink.newKey()
        let key = fieldwork.groupLinkKey ?? ""
        let signature = GroupLink.signature(group: "A", key: key)
        #expect(signature.count == 16)
        #expect(fieldwork.linkedGroup("A", signature: signature) == "A")
        #expect(fieldwork.linkedGroup("A", signature: signature.uppercased()) == "A")
        #expect(fieldwork.linkedGroup("B", signature: signature) == nil, "A's signature is not B's")
        #expect(fieldwork.linkedGroup("A", signature: nil) == nil)
        #expect(fieldwork.linkedGroup("A", signature: String(repeating: "0", count: 16)) == nil)
        #expect(fieldwork.linkedGroup(nil, signature: signature) == nil)
        #expect(GroupLink.signature(group: "A", key: GroupLink.newKey()) != signature, "each study its own key")
        fieldwork.groupsFromLink = true
        #expect(fieldwork.linkedGroup("A", signature: nil) == "A", "--groups-from-link")
    }
}
