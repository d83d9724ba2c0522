import Testing
@testable import LinkRouter
