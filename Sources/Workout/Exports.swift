// The GPX reader and writer moved to their own module, GPX, so the location fakes can replay GPX
// without the store; they were part of Workout, and still read as such to its users.
@_exported import GPX
