import GRDB
import GRDBSQLite

/// A cached statement that returns no rows, its arguments bound through SQLite's C API: for a new link's row and the
/// writes a stats flush makes per link (the click total, the day row, the month rollup, the daily top), where GRDB's
/// `StatementArguments` — an array of boxed values a row — cost more than SQLite's own work. Run on the writer,
/// inside the caller's transaction; GRDB never runs the same statement (its SQL is these writes' own).
struct DirectStatement {
    private let statement: Statement
    private let connection: SQLiteConnection?

    /// The statement for `sql`, from the connection's cache.
    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        connection = db.sqliteConnection
    }

    /// Binds the arguments (`bind`, in order), runs the statement to its end and resets it.
    func run(_ bind: (inout DirectBindings) -> Void) throws {
        let handle = statement.sqliteStatement
        var bindings = DirectBindings(handle: handle)
        bind(&bindings)
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }
}

/// The arguments of a `DirectStatement`, bound one after the other from the first.
struct DirectBindings {
    fileprivate let handle: SQLiteStatement
    private var index: Int32 = 1

    fileprivate init(handle: SQLiteStatement) { self.handle = handle }

    /// Binds an integer.
    mutating func add(_ value: Int) {
        sqlite3_bind_int64(handle, index, Int64(value))
        index += 1
    }

    /// Binds an integer, or NULL for nil.
    mutating func add(_ value: Int?) {
        if let value { add(value) } else {
            sqlite3_bind_null(handle, index)
            index += 1
        }
    }

    /// Binds text (its UTF-8 copied by SQLite), or NULL for nil.
    mutating func add(_ value: String?) {
        if let value {
            _ = value.withCString { sqlite3_bind_text(handle, index, $0, Int32(value.utf8.count), Self.transient) }
        } else {
            sqlite3_bind_null(handle, index)
        }
        index += 1
    }

    /// Binds the counters, in `LinkDayCounts.columns` order.
    mutating func add(_ counts: LinkDayCounts) {
        counts.forEachValue { add($0) }
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bytes before the call returns.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
