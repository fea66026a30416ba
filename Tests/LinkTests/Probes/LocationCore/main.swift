import LocationCore

print("LocationCore")
