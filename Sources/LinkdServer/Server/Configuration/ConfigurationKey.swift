import LinkRouter

/// One key of a configuration section, declared once: its name in the file, its environment variable if it has one,
/// and how a file's YAML value and a variable's text are read into the section. The property it sets holds the
/// default and the doc; the section's `validate()` its range.
struct ConfigurationKey<Section> {
    /// The key in the file (`headTimeoutSeconds`).
    let name: String
    /// The environment variable that sets it too (`LINKD_PORT`); nil for a file-only key.
    let variable: String?
    /// Reads a file's value (`YAMLValue`'s typed reading, shared with manifests); the file's path is for messages.
    let readValue: (inout Section, YAMLValue, _ path: String) throws -> Void
    /// Reads a variable's text.
    let readText: (inout Section, String) throws -> Void

    /// The same key on the value that holds `Section` at `path` (a section of `ServerConfiguration`).
    func lifted<Whole>(_ path: WritableKeyPath<Whole, Section>) -> ConfigurationKey<Whole> {
        ConfigurationKey<Whole>(
            name: name, variable: variable,
            readValue: { whole, value, file in try readValue(&whole[keyPath: path], value, file) },
            readText: { whole, text in try readText(&whole[keyPath: path], text) })
    }
}

extension ConfigurationKey {
    /// A key read by `readValue` from the file and by `parse` from its variable (nil: not a valid value, named
    /// `expected` in the message).
    static func key<Value>(
        _ name: String, _ path: WritableKeyPath<Section, Value>, variable: String?, expected: String,
        readValue: @escaping (YAMLValue) throws -> Value, parse: @escaping (String) -> Value?
    ) -> Self {
        ConfigurationKey(
            name: name, variable: variable,
            readValue: { section, value, _ in section[keyPath: path] = try readValue(value) },
            readText: { section, text in
                guard let value = parse(text) else {
                    throw ConfigurationError(message: "\(variable ?? name): '\(text.prefix(80))' is not \(expected)")
                }
                section[keyPath: path] = value
            })
    }

    /// An integer key.
    static func int(_ name: String, _ path: WritableKeyPath<Section, Int>, variable: String? = nil) -> Self {
        key(name, path, variable: variable, expected: "an integer", readValue: { try $0.int() }, parse: { Int($0) })
    }

    /// An integer key that may be null (unset).
    static func optionalInt(_ name: String, _ path: WritableKeyPath<Section, Int?>, variable: String? = nil) -> Self {
        key(name, path, variable: variable, expected: "an integer", readValue: { $0.isNull ? nil : try $0.int() },
            parse: { Int($0).map(Optional.some) })
    }

    /// A number key (finite).
    static func double(_ name: String, _ path: WritableKeyPath<Section, Double>, variable: String? = nil) -> Self {
        key(name, path, variable: variable, expected: "a number", readValue: { try $0.double() },
            parse: { Double($0).flatMap { $0.isFinite ? $0 : nil } })
    }

    /// A true/false key.
    static func bool(_ name: String, _ path: WritableKeyPath<Section, Bool>, variable: String? = nil) -> Self {
        key(name, path, variable: variable, expected: "true or false", readValue: { try $0.bool() }, parse: { Bool($0) })
    }

    /// A string key.
    static func string(_ name: String, _ path: WritableKeyPath<Section, String>, variable: String? = nil) -> Self {
        key(name, path, variable: variable, expected: "a string", readValue: { try $0.string() }, parse: { $0 })
    }

    /// A string key that may be null (unset).
    static func optionalString(_ name: String, _ path: WritableKeyPath<Section, String?>, variable: String? = nil) -> Self {
        key(name, path, variable: variable, expected: "a string", readValue: { $0.isNull ? nil : try $0.string() },
            parse: { .some($0) })
    }

    /// A list of strings; its variable is comma-separated (`ManifestPaths.split`: trimmed, empty items dropped).
    static func strings(_ name: String, _ path: WritableKeyPath<Section, [String]>, variable: String? = nil) -> Self {
        key(name, path, variable: variable, expected: "a list", readValue: { try $0.strings() },
            parse: { ManifestPaths.split($0) })
    }

    /// A mapping of strings (file only).
    static func stringMapping(_ name: String, _ path: WritableKeyPath<Section, [String: String]>) -> Self {
        key(name, path, variable: nil, expected: "a mapping", readValue: { try $0.stringMapping() }, parse: { _ in nil })
    }
}

/// A part of the configuration that owns its keys, their defaults (the properties' initial values), their
/// validation, and their reading from the file and the environment.
protocol ConfigurationSection: Equatable, Sendable {
    /// The embedded defaults.
    init()
    /// Every key of the section.
    static var keys: [ConfigurationKey<Self>] { get }
    /// Refuses values of this section's keys that cannot work (the configuration checks what spans sections).
    func validate() throws
}

extension ConfigurationSection {
    /// Reads a nested mapping of the file (`tls:`), its keys named `name.key` in messages; `path` names the file.
    static func read(mapping value: YAMLValue, name: String, path: String) throws -> Self {
        guard let entries = value.entries() else {
            throw ConfigurationError(message: "\(path):\(value.line): '\(name)' must be a mapping")
        }
        var section = Self()
        let known = keys
        for (key, line, item) in entries {
            guard let entry = known.first(where: { $0.name == key }) else {
                let names = known.map(\.name).sorted().joined(separator: ", ")
                throw ConfigurationError(message: "\(path):\(line): unknown key '\(name).\(key)' (known: \(names))")
            }
            do { try entry.readValue(&section, item, path) } catch let error as YAMLValue.TypeMismatch {
                throw ConfigurationError(message: "\(path):\(line): '\(name).\(key)' must be \(error.expected)")
            }
        }
        return section
    }
}
