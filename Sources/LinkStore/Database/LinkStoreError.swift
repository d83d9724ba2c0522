/// An error of the store, with a machine code and a message.
public struct LinkStoreError: Error, Sendable, CustomStringConvertible {
    /// The machine code of a store error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case notFound, conflict, storage, configuration, unsupported }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// No such record.
        public static let notFound = Code(.notFound)
        /// The record already exists.
        public static let conflict = Code(.conflict)
        /// The database failed.
        public static let storage = Code(.storage)
        /// The store's configuration is wrong (a bad database URL).
        public static let configuration = Code(.configuration)
        /// This kind of store cannot do it (a backup of PostgreSQL).
        public static let unsupported = Code(.unsupported)
        /// The code's name, e.g. `storage`.
        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A human-readable message.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
