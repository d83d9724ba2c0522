import Testing
@testable import TokenSigning
