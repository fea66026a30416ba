// RFC3339 and Geodesy live in GPSCore, the package's bottom module, so that the GPX reader and the
// fakes share them without linking libgps; they were part of LocationFacade, and still read as such.
@_exported import GPSCore
