// RFC3339 and Geodesy live in GPSCore, the package's bottom module, so that the GPX reader and the
// fakes share them without linking libgps; Location, LocationManager and LocationSource live in
// LocationCore, so that a program fed by another source (GeoClue) does not link libgps either.
// They were all part of LocationFacade, and still read as such: `import LocationFacade` brings them.
@_exported import GPSCore
@_exported import LocationCore
