// The fakes that need no libgps (the replays of GPX and NMEA, the virtual clock, the fake gpsd's
// server, NMEA, the private bus...) live in SimulatorsCore, so that the fake GeoClue and the fake
// BlueZ link no libgps; they were all part of Simulators, and still read as such:
// `import Simulators` brings them, with what reads gpsd's reports through libgps.
@_exported import SimulatorsCore
