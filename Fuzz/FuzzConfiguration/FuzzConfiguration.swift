import FuzzSupport
import LinkdServer

/// `ServerConfiguration.fromYAML` (the reading behind `fromFile`: Yams's composer, `YAMLValue`) and `validate()`
/// (which reads a `database` URL too) on any UTF-8 text.
///
/// Invariants: any text gives a configuration or a `ConfigurationError` naming the file, never another error or a
/// trap; a configuration validates or fails with a `ConfigurationError` with a message; one that validates has its
/// port, threads and database URL in range.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let text = Fuzz.text(UnsafeRawBufferPointer(start: data, count: size)) else { return 0 }
    let configuration: ServerConfiguration
    do {
        configuration = try ServerConfiguration.fromYAML(text, source: "fuzz.yaml")
    } catch let error as ConfigurationError {
        Fuzz.require(error.message.hasPrefix("fuzz.yaml") && error.message.count > "fuzz.yaml: ".count,
                     "a message that does not name the file: \(error.message)")
        return 0
    } catch {
        Fuzz.require(false, "reading threw \(type(of: error)), not a ConfigurationError: \(error)")
        return 0
    }
    do {
        try configuration.validate()
    } catch let error as ConfigurationError {
        Fuzz.require(!error.message.isEmpty, "a validation error without a message")
        return 0
    } catch {
        Fuzz.require(false, "validate threw \(type(of: error)), not a ConfigurationError: \(error)")
        return 0
    }
    Fuzz.require((0...65_535).contains(configuration.http.port) && (0...256).contains(configuration.http.eventLoopThreads)
                 && !configuration.http.host.isEmpty, "a configuration that validates is out of range: \(configuration)")
    return 0
}
