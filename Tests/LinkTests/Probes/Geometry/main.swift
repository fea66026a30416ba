import Geometry

print("Geometry")
