import RegionMonitoring

print("RegionMonitoring")
