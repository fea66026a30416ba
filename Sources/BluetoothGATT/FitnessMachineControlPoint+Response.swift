extension FitnessMachineControlPoint {
    /// How a request went, as a machine says it.
    public enum ResultCode: Sendable, Hashable, CustomStringConvertible {
        /// It was done (0x01).
        case success
        /// The machine does not know or support the op code (0x02).
        case opCodeNotSupported
        /// Its parameter is out of the machine's range, or malformed (0x03).
        case invalidParameter
        /// The machine tried and could not (0x04).
        case operationFailed
        /// The client has not been given control (0x05).
        case controlNotPermitted
        /// A result code the specification reserves, kept as sent.
        case unknown(UInt8)

        /// The code as sent.
        public var rawValue: UInt8 {
            switch self {
            case .success: 0x01
            case .opCodeNotSupported: 0x02
            case .invalidParameter: 0x03
            case .operationFailed: 0x04
            case .controlNotPermitted: 0x05
            case let .unknown(code): code
            }
        }

        /// The result code `rawValue`.
        public init(rawValue: UInt8) {
            self = switch rawValue {
            case 0x01: .success
            case 0x02: .opCodeNotSupported
            case 0x03: .invalidParameter
            case 0x04: .operationFailed
            case 0x05: .controlNotPermitted
            default: .unknown(rawValue)
            }
        }

        public var description: String {
            switch self {
            case .success: "success"
            case .opCodeNotSupported: "op code not supported"
            case .invalidParameter: "invalid parameter"
            case .operationFailed: "operation failed"
            case .controlNotPermitted: "control not permitted"
            case let .unknown(code): "result code \(code)"
            }
        }
    }

    /// A machine's answer to a request (op code 0x80): the request's op code, the result, and a
    /// parameter when the request has one to give back (a spin down's target speeds).
    ///
    /// ```swift
    /// let answer = try FitnessMachineControlPoint.Response(bytes: [0x80, 0x05, 0x01])
    /// // answer.opCode == .setTargetPower, answer.result == .success
    /// ```
    public struct Response: Sendable, Hashable {
        /// The op code of the request it answers, as sent (one the machine does not know, too).
        public var requestOpCode: UInt8
        /// How the request went.
        public var result: ResultCode
        /// The response parameter, as sent: empty but for a started spin down.
        public var parameter: [UInt8]

        static let spinDownLow = GATTField.uint16("target speed low", scale: 360, unit: "m/s")
        static let spinDownHigh = GATTField.uint16("target speed high", scale: 360, unit: "m/s")

        /// The answer `result` to a request of op code `requestOpCode`, with `parameter`.
        public init(requestOpCode: UInt8, result: ResultCode, parameter: [UInt8] = []) {
            self.requestOpCode = requestOpCode
            self.result = result
            self.parameter = parameter
        }

        /// The answer `result` to `request`.
        public init(to request: Request, result: ResultCode) {
            self.init(requestOpCode: request.opCode.rawValue, result: result)
        }

        /// A successful start of a spin down: the user speeds up past `high` (m/s), then coasts
        /// down to `low`. Each is clamped to what its field carries.
        public static func spinDownStarted(low: Double, high: Double) -> Response {
            var writer = GATTWriter()
            writer.clamped(low, spinDownLow)
            writer.clamped(high, spinDownHigh)
            return Response(requestOpCode: OpCode.spinDownControl.rawValue, result: .success, parameter: writer.bytes)
        }

        /// What a machine answers to the written `bytes` it could not read (`error`, from
        /// ``Request/init(bytes:)``): an op code it does not know is not supported; any other
        /// fault (a parameter too short or too long, a reserved value) is an invalid parameter.
        public static func refusing(_ bytes: [UInt8], because error: MalformedNotification) -> Response {
            let unknownOpCode = error.reason == .outOfRange(field: "op code", value: Int(bytes.first ?? 0))
            return Response(requestOpCode: bytes.first ?? 0, result: unknownOpCode ? .opCodeNotSupported : .invalidParameter)
        }

        /// The op code of the request it answers, if the specification defines it.
        public var opCode: OpCode? {
            OpCode(rawValue: requestOpCode)
        }

        /// The speeds a started spin down asks for, in m/s (from the lower, where it ends, to the
        /// higher, where the user starts coasting); `nil` for any other response.
        public var spinDownTargetSpeeds: ClosedRange<Double>? {
            guard opCode == .spinDownControl, result == .success, parameter.count == 4 else { return nil }
            var reader = GATTBytes(parameter, characteristic: FitnessMachineControlPoint.characteristic)
            // Four bytes were counted above: the two fields are there.
            guard let low = try? reader.value(Self.spinDownLow), let high = try? reader.value(Self.spinDownHigh) else { return nil }
            return Swift.min(low, high)...Swift.max(low, high)
        }

        /// Decodes an indication. Throws ``MalformedNotification`` when it is not a response (its
        /// first byte is not 0x80), or ends before its result code.
        public init(bytes: [UInt8]) throws(MalformedNotification) {
            var reader = GATTBytes(bytes, characteristic: FitnessMachineControlPoint.characteristic)
            guard !bytes.isEmpty else { throw reader.malformed(.empty) }
            let code = try reader.uint8("response code")
            guard code == OpCode.responseCode.rawValue else { throw reader.malformed(.outOfRange(field: "response code", value: Int(code)), at: 0) }
            requestOpCode = try reader.uint8("request op code")
            result = ResultCode(rawValue: try reader.uint8("result code"))
            parameter = reader.rest()
        }

        /// The indication's bytes.
        public var bytes: [UInt8] {
            [OpCode.responseCode.rawValue, requestOpCode, result.rawValue] + parameter
        }
    }
}
