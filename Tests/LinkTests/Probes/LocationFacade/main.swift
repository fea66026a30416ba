import LocationFacade

print("LocationFacade")
