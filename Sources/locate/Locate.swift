import LocationFacade
@main struct Locate { static func main() {} }
