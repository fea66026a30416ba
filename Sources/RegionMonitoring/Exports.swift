// GeoCoordinate, GeoBoundingBox and Polyline (Geometry) come with the regions, as they always have:
// a region is made of them.
@_exported import Geometry
