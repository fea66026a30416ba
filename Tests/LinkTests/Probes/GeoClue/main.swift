import GeoClue

print("GeoClue")
