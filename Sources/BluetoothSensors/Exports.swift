// The GATT measurements a sensor sends (HeartRateMeasurement, CSCMeasurement, ...) come with
// BluetoothSensors: `import BluetoothSensors` is enough to read and make them.
@_exported import BluetoothGATT
