import GeoClueSimulators

print("GeoClueSimulators")
