import PublisherSimulators

print("PublisherSimulators")
