import BluetoothSensors

print("BluetoothSensors")
