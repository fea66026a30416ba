// The GPX reader and writer moved to their own module, GPX, so the location fakes can replay GPX
// without the store; they were part of Workout, and still read as such to its users.
@_exported import GPX
// The sample types and the sample-source protocol moved to WorkoutCore, so that a sensor reader
// (BluetoothSensors) shares them without linking the store; `import Workout` still brings them.
@_exported import WorkoutCore
