/// The measurements as a sensor sends them: for fakes of sensors (`FakeBlueZ`), and for tests of
/// code that reads them. Each writes the smallest form its values allow (an 8-bit heart rate when
/// it fits), flags first, fields in the specification's order.
extension HeartRateMeasurement {
    /// A measurement of `heartRate` beats per minute (`nil`: a strap without skin contact), with
    /// `rrIntervals` in seconds and `energyExpended` in kilojoules.
    public init(heartRate: Int?, contactSupported: Bool = true, energyExpended: Int? = nil, rrIntervals: [Double] = []) {
        self.heartRate = heartRate
        self.contactSupported = contactSupported
        contactDetected = contactSupported ? heartRate != nil : nil
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// The measurement's bytes.
    public var bytes: [UInt8] {
        let rate = heartRate ?? 0
        var flags: UInt8 = rate > 255 ? 0x01 : 0
        if contactSupported { flags |= 0x04 | (contactDetected == true ? 0x02 : 0) }
        if energyExpended != nil { flags |= 0x08 }
        if !rrIntervals.isEmpty { flags |= 0x10 }
        var bytes = [flags]
        bytes += rate > 255 ? le16(rate) : [UInt8(clamping: rate)]
        if let energyExpended { bytes += le16(energyExpended) }
        for interval in rrIntervals { bytes += le16(Int((interval * 1024).rounded())) }
        return bytes
    }
}

extension CSCMeasurement {
    /// A measurement of `wheel` and `crank` revolutions (times in 1/1024 s).
    public init(wheel: RevolutionData?, crank: RevolutionData?) {
        self.wheel = wheel
        self.crank = crank
    }

    /// The measurement's bytes.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = [(wheel != nil ? 0x01 : 0) | (crank != nil ? 0x02 : 0)]
        if let wheel { bytes += le32(wheel.revolutions) + le16(Int(wheel.eventTime)) }
        if let crank { bytes += le16(Int(crank.revolutions & 0xFFFF)) + le16(Int(crank.eventTime)) }
        return bytes
    }
}

extension CyclingPowerMeasurement {
    /// A measurement of `power` watts, with `crank` revolutions (times in 1/1024 s) and `wheel`
    /// revolutions (times in 1/2048 s) when given.
    public init(power: Int, crank: RevolutionData? = nil, wheel: RevolutionData? = nil) {
        self.power = power
        self.crank = crank
        self.wheel = wheel
        balanceIsLeft = false
        torqueIsCrankBased = false
        offsetCompensation = false
    }

    /// The measurement's bytes (power, then the revolution data it has; the other optional
    /// fields are written when set, in their order).
    public var bytes: [UInt8] {
        var flags = 0
        var fields: [UInt8] = le16(Int(UInt16(bitPattern: Int16(clamping: power))))
        if let pedalPowerBalance { flags |= 0x0001; fields.append(UInt8(clamping: Int(pedalPowerBalance * 2))) }
        if balanceIsLeft { flags |= 0x0002 }
        if let accumulatedTorque { flags |= 0x0004; fields += le16(Int(accumulatedTorque * 32)) }
        if torqueIsCrankBased { flags |= 0x0008 }
        if let wheel { flags |= 0x0010; fields += le32(wheel.revolutions) + le16(Int(wheel.eventTime)) }
        if let crank { flags |= 0x0020; fields += le16(Int(crank.revolutions & 0xFFFF)) + le16(Int(crank.eventTime)) }
        if let extremeForces {
            flags |= 0x0040
            fields += le16(Int(UInt16(bitPattern: Int16(clamping: extremeForces.maximum)))) + le16(Int(UInt16(bitPattern: Int16(clamping: extremeForces.minimum))))
        }
        if let extremeTorques {
            flags |= 0x0080
            fields += le16(Int(UInt16(bitPattern: Int16(clamping: Int(extremeTorques.maximum * 32)))))
                + le16(Int(UInt16(bitPattern: Int16(clamping: Int(extremeTorques.minimum * 32)))))
        }
        if let extremeAngles {
            flags |= 0x0100
            let packed = UInt32(extremeAngles.maximum & 0xFFF) | UInt32(extremeAngles.minimum & 0xFFF) << 12
            fields += [UInt8(packed & 0xFF), UInt8((packed >> 8) & 0xFF), UInt8(packed >> 16)]
        }
        if let topDeadSpotAngle { flags |= 0x0200; fields += le16(topDeadSpotAngle) }
        if let bottomDeadSpotAngle { flags |= 0x0400; fields += le16(bottomDeadSpotAngle) }
        if let accumulatedEnergy { flags |= 0x0800; fields += le16(accumulatedEnergy) }
        if offsetCompensation { flags |= 0x1000 }
        return le16(flags) + fields
    }
}

private func le16(_ value: Int) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
}

private func le32(_ value: UInt32) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
}
