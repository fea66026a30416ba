import BluetoothGATT

print("BluetoothGATT")
