import Foundation
import FuzzSupport
import ICalendar
import LinkRouter

/// Small caps, so that short inputs reach every cap.
private let smallLimits = ICalendarLimits(
    maxBytes: 2048, maxLineLength: 96, maxPropertiesPerComponent: 6, maxParametersPerProperty: 3, maxProperties: 24,
    maxParameters: 24, maxComponents: 8, maxDepth: 3, maxDiagnostics: 4)

/// The calendar resolver over the demo manifests (`examples/*.yaml`), compiled once.
private let resolver: CalendarResolver = {
    let names = ["handz", "coin", "ordentus", "story"]
    do {
        let manifests = try ManifestLoader.load(paths: names.map { "\(Fuzz.repositoryRoot)/examples/\($0).yaml" })
        return CalendarResolver(router: try Router(manifests: manifests))
    } catch {
        fatalError("the demo manifests do not load: \(error)")
    }
}()

/// `ICalendarParser.parse` (default and small caps) and `CalendarResolver.resolve` on any bytes, as an `.ics`
/// attachment arrives.
///
/// Invariants: any input gives a document or an `ICalendarError` with a message and a line inside the input; a
/// document keeps every cap (depth, components, properties, parameters, diagnostics), names components and
/// properties in uppercase name characters, numbers lines inside the input with diagnostics in line order, and
/// unescapes every TEXT value without trapping; the resolver reports one item per VEVENT/VTODO/VJOURNAL.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICalendar(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    for limits in [ICalendarLimits(), smallLimits] {
        do {
            let document = try ICalendarParser(limits: limits).parse(bytes)
            check(document, limits: limits, lines: lines)
        } catch {
            Fuzz.require(!error.message.isEmpty, "an error without a message")
            Fuzz.require(error.line.map { (1...lines).contains($0) } ?? true, "error line \(error.line ?? 0) of \(lines)")
        }
    }
    do {
        let document = try ICalendarParser().parse(bytes)
        let report = try resolver.resolve(bytes, state: nil)
        let expected = document.components.reduce(0) { count, top in
            count + (top.name == "VCALENDAR" ? top.components.filter { CalendarResolver.itemComponents.contains($0.name) }.count
                : CalendarResolver.itemComponents.contains(top.name) ? 1 : 0)
        }
        Fuzz.require(report.items.count == expected, "\(report.items.count) items for \(expected) item components")
        Fuzz.require((try? JSONEncoder().encode(report)) != nil, "the report does not encode")
    } catch {
        // The parser's refusal, checked above.
    }
    return 0
}

/// The document keeps the caps and its lines lie inside the input.
private func check(_ document: ICalendarDocument, limits: ICalendarLimits, lines: Int) {
    var components = 0
    var properties = 0
    var parameters = 0
    func walk(_ component: ICalendarComponent, depth: Int) {
        components += 1
        Fuzz.require(depth <= limits.maxDepth, "nested \(depth) deep, over \(limits.maxDepth)")
        Fuzz.require(isName(component.name) && (1...lines).contains(component.line), "component \(component.name) at \(component.line)")
        Fuzz.require(component.properties.count <= limits.maxPropertiesPerComponent, "too many properties in one component")
        for property in component.properties {
            properties += 1
            parameters += property.parameters.count
            Fuzz.require(isName(property.name) && (1...lines).contains(property.line), "property \(property.name) at \(property.line)")
            Fuzz.require(property.parameters.count <= limits.maxParametersPerProperty, "too many parameters on one property")
            Fuzz.require(property.parameters.allSatisfy { isName($0.name) }, "a parameter name is not a name")
            _ = property.textValues
        }
        for child in component.components { walk(child, depth: depth + 1) }
    }
    for component in document.components { walk(component, depth: 1) }
    Fuzz.require(components <= limits.maxComponents && properties <= limits.maxProperties && parameters <= limits.maxParameters,
                 "over a cap: \(components) components, \(properties) properties, \(parameters) parameters")
    Fuzz.require(document.diagnostics.count <= limits.maxDiagnostics + limits.maxDepth, "\(document.diagnostics.count) diagnostics")
    Fuzz.require(document.diagnostics.allSatisfy { (1...lines).contains($0.line) && !$0.message.isEmpty }, "a diagnostic outside the input")
    Fuzz.require(zip(document.diagnostics, document.diagnostics.dropFirst()).allSatisfy { $0.line <= $1.line }, "diagnostics out of order")
}

/// An RFC 5545 name as the parser keeps it: uppercase letters, digits and `-`, not empty.
private func isName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.allSatisfy { (65...90).contains($0) || (48...57).contains($0) || $0 == 45 }
}
