/// GeoClue's names on the bus: its service, its objects' paths and its interfaces.
public enum GeoClueNames {
    /// The service's well-known name.
    public static let service = "org.freedesktop.GeoClue2"
    /// The manager's object path.
    public static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    /// The manager's interface (`GetClient`, `CreateClient`, `DeleteClient`, `AddAgent`).
    public static let manager = "org.freedesktop.GeoClue2.Manager"
    /// A client's interface (`Start`, `Stop`, `DesktopId`, `LocationUpdated`...).
    public static let client = "org.freedesktop.GeoClue2.Client"
    /// A location's interface (`Latitude`, `Longitude`, `Accuracy`, `Timestamp`...).
    public static let location = "org.freedesktop.GeoClue2.Location"
    /// The interface of an agent, the part of a desktop's or phone's shell that asks the user.
    public static let agent = "org.freedesktop.GeoClue2.Agent"
    /// Where an agent puts its object.
    public static let agentPath = "/org/freedesktop/GeoClue2/Agent"
    /// How errors and logs name the service.
    static let serviceDescription = "GeoClue (org.freedesktop.GeoClue2)"
}
