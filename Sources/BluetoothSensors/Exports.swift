// The GATT measurements a sensor sends (HeartRateMeasurement, CSCMeasurement, ...) come with
// BluetoothSensors: `import BluetoothSensors` is enough to read and make them.
@_exported import BluetoothGATT
// So do the samples a sensor gives (QuantitySample, QuantityType) and the protocol it implements
// (SampleSource): WorkoutCore, without the store, GPX, FIT or TCX that `Workout` links.
@_exported import WorkoutCore
