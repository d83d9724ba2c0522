import Foundation
import LinkRouter
import UTCTime

/// The origin's preview JSON, decoded strictly:
///
/// ```json
/// {"title": "Morning flow", "creatorName": "Ana", "allowCreatorName": true,
///  "updatedAt": "2026-09-21T10:00:00Z", "imageURL": "https://cdn.example.com/a.jpg", "badges": ["privateUpload"]}
/// ```
/// `title` is required (1–300 characters); `creatorName` at most 100; `updatedAt` RFC 3339 (ISO 8601 with a time zone); `imageURL` https and at
/// most 2048 bytes; `badges` at most `Preview.maxBadges` ids, each 1–64 ASCII letters, digits, `-`
/// or `_` (`AppManifest.ShareConfig.isBadgeID`); unknown keys are refused. Anything else makes the result `unavailable`.
enum PreviewDecoder {
    private struct Body: Decodable {
        let title: String
        let creatorName: String?
        let allowCreatorName: Bool?
        let updatedAt: String?
        let imageURL: String?
        let badges: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable { case title, creatorName, allowCreatorName, updatedAt, imageURL, badges }
    }

    static func decode(_ bytes: [UInt8]) -> PreviewResult {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return .unavailable(reason: "preview is not a JSON object")
        }
        let known = Set(Body.CodingKeys.allCases.map(\.rawValue))
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            return .unavailable(reason: "preview has an unknown key \"\(unknown)\"")
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(bytes)) else {
            return .unavailable(reason: "preview has a wrong type")
        }
        guard !body.title.isEmpty, body.title.count <= 300 else { return .unavailable(reason: "title length") }
        if let creator = body.creatorName, creator.count > 100 { return .unavailable(reason: "creatorName length") }
        var updated: Date?
        if let text = body.updatedAt {
            // RFC 3339, read without ISO8601DateFormatter (ICU's: it maps megabytes of ICU data into the daemon).
            guard let date = UTCDateTime.rfc3339(text) else {
                return .unavailable(reason: "updatedAt is not ISO 8601")
            }
            updated = date
        }
        if let image = body.imageURL, image.utf8.count > 2048 || !PageURL.isHTTPS(image) {
            return .unavailable(reason: "imageURL must be https")
        }
        let badges = body.badges ?? []
        guard badges.count <= Preview.maxBadges else { return .unavailable(reason: "more than \(Preview.maxBadges) badges") }
        guard badges.allSatisfy(AppManifest.ShareConfig.isBadgeID) else { return .unavailable(reason: "a badge is not an id") }
        return .preview(
            Preview(
                title: body.title, creatorName: body.creatorName, allowCreatorName: body.allowCreatorName ?? false,
                updatedAt: updated, imageURL: body.imageURL, badges: badges))
    }
}
