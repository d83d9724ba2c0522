internal import CYaml

/// YAML aliases are refused before Yams composes a document. An alias used as a mapping key makes Yams's duplicate-key
/// check hash the aliased tree once per reference, which is exponential in the nesting of aliases: a 300-byte
/// "billion laughs" key held the reader for minutes (found by `Fuzz/FuzzConfiguration`, docs/fuzzing.md). Neither
/// manifests nor the configuration file need anchors or aliases.
enum YAMLAliases {
    /// The 1-based line and column of the first alias (`*name`) in `text`; nil when there is none, or when the text
    /// does not parse before one (Yams then reports the syntax error). One pass of libyaml's event parser.
    static func firstAlias(in text: String) -> (line: Int, column: Int)? {
        var text = text
        return text.withUTF8 { bytes -> (line: Int, column: Int)? in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return nil }
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return nil }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, start, bytes.count)
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                let type = event.type
                let mark = event.start_mark
                yaml_event_delete(&event)
                if type == YAML_ALIAS_EVENT { return (Int(mark.line) + 1, Int(mark.column) + 1) }
                if type == YAML_STREAM_END_EVENT { return nil }
            }
            return nil
        }
    }
}
