@_exported import PublisherSimulators
