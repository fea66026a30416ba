// RFC3339 and Geodesy (GPSCore, the package's bottom module) come with the location types, as
// they always have: a fix's time and distances are read with them.
@_exported import GPSCore
