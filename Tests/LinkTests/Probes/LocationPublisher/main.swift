import LocationPublisher

print("LocationPublisher")
