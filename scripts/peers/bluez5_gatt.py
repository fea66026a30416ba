'''python-dbusmock template: BlueZ as python-dbusmock's own `bluez5` template has it, with the GATT
objects of a heart-rate strap that template lacks.

Run: /usr/bin/python3 -m dbusmock --system --template scripts/peers/bluez5_gatt.py
(on the bus DBUS_SYSTEM_BUS_ADDRESS names). Then, on the mock's `/` object, `org.bluez.Mock`:
AddAdapter and AddDevice (the bluez5 template's), and

- AddHeartRateService(device_path, battery): the device gets a Heart Rate service (Heart Rate
  Measurement, notify; Body Sensor Location, read: chest) as `org.bluez.GattService1` and
  `GattCharacteristic1` objects, its UUIDs, and an `org.bluez.Battery1` at `battery` percent. The
  objects are there while it is not connected, as BlueZ shows a known device's cached services; its
  `Connect` sets `Connected` and then `ServicesResolved`.
- Notify(characteristic_path, value): the characteristic's `Value` changes, as a notification.

Written from BlueZ's D-Bus API documentation (doc/org.bluez.GattCharacteristic.rst), not from our
fake: the test reads it with our client.
'''
import dbus

from dbusmock import OBJECT_MANAGER_IFACE, mockobject
from dbusmock.templates import bluez5
from dbusmock.templates.bluez5 import *  # noqa: F401,F403 (the template's methods, picked up by name)

BUS_NAME = bluez5.BUS_NAME
MAIN_OBJ = bluez5.MAIN_OBJ
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

GATT_SERVICE_IFACE = 'org.bluez.GattService1'
GATT_CHARACTERISTIC_IFACE = 'org.bluez.GattCharacteristic1'
BATTERY_IFACE = 'org.bluez.Battery1'


def uuid16(short):
    return f'0000{short:04x}-0000-1000-8000-00805f9b34fb'


HEART_RATE_SERVICE = uuid16(0x180D)
BATTERY_SERVICE = uuid16(0x180F)
HEART_RATE_MEASUREMENT = uuid16(0x2A37)
BODY_SENSOR_LOCATION = uuid16(0x2A38)


def load(mock, parameters):
    bluez5.load(mock, parameters)


def _added(path, interfaces):
    mockobject.objects['/'].EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}', [dbus.ObjectPath(path), interfaces])


def _changed(obj, interface, properties):
    obj.EmitSignal(dbus.PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as', [interface, properties, []])


@dbus.service.method(bluez5.DEVICE_IFACE, in_signature='', out_signature='')
def ConnectWithServices(device):
    '''Device1.Connect of a device with services: Connected, then ServicesResolved.'''
    if device.connected:
        raise dbus.exceptions.DBusException('Already Connected', name='org.bluez.Error.AlreadyConnected')
    device.connected = True
    device.props[bluez5.DEVICE_IFACE]['Connected'] = dbus.Boolean(True, variant_level=1)
    _changed(device, bluez5.DEVICE_IFACE, {'Connected': dbus.Boolean(True, variant_level=1)})
    device.props[bluez5.DEVICE_IFACE]['ServicesResolved'] = dbus.Boolean(True, variant_level=1)
    _changed(device, bluez5.DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(True, variant_level=1)})


@dbus.service.method(bluez5.DEVICE_IFACE, in_signature='', out_signature='')
def DisconnectWithServices(device):
    '''Device1.Disconnect: ServicesResolved, then Connected, false.'''
    if not device.connected:
        raise dbus.exceptions.DBusException('Not Connected', name='org.bluez.Error.NotConnected')
    device.connected = False
    for name in ('ServicesResolved', 'Connected'):
        device.props[bluez5.DEVICE_IFACE][name] = dbus.Boolean(False, variant_level=1)
        _changed(device, bluez5.DEVICE_IFACE, {name: dbus.Boolean(False, variant_level=1)})


@dbus.service.method(GATT_CHARACTERISTIC_IFACE, in_signature='a{sv}', out_signature='ay')
def ReadValue(characteristic, _options):
    return dbus.Array(characteristic.props[GATT_CHARACTERISTIC_IFACE]['Value'], signature='y')


@dbus.service.method(GATT_CHARACTERISTIC_IFACE, in_signature='', out_signature='')
def StartNotify(characteristic):
    properties = characteristic.props[GATT_CHARACTERISTIC_IFACE]
    if 'notify' not in properties['Flags']:
        raise dbus.exceptions.DBusException('Operation is not supported', name='org.bluez.Error.NotSupported')
    properties['Notifying'] = dbus.Boolean(True, variant_level=1)
    _changed(characteristic, GATT_CHARACTERISTIC_IFACE, {'Notifying': dbus.Boolean(True, variant_level=1)})


@dbus.service.method(GATT_CHARACTERISTIC_IFACE, in_signature='', out_signature='')
def StopNotify(characteristic):
    characteristic.props[GATT_CHARACTERISTIC_IFACE]['Notifying'] = dbus.Boolean(False, variant_level=1)
    _changed(characteristic, GATT_CHARACTERISTIC_IFACE, {'Notifying': dbus.Boolean(False, variant_level=1)})


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature='oy', out_signature='')
def AddHeartRateService(self, device_path, battery):
    device = mockobject.objects[device_path]
    device.AddMethods(bluez5.DEVICE_IFACE, [('Connect', '', '', ConnectWithServices), ('Disconnect', '', '', DisconnectWithServices)])
    uuids = dbus.Array([HEART_RATE_SERVICE, BATTERY_SERVICE], signature='s', variant_level=1)
    device.props[bluez5.DEVICE_IFACE]['UUIDs'] = uuids
    _changed(device, bluez5.DEVICE_IFACE, {'UUIDs': uuids})
    battery_properties = {'Percentage': dbus.Byte(battery, variant_level=1), 'Source': dbus.String('org.bluez.battery', variant_level=1)}
    device.AddProperties(BATTERY_IFACE, battery_properties)
    _added(device_path, {BATTERY_IFACE: battery_properties})

    service_path = device_path + '/service000c'
    service_properties = {
        'UUID': dbus.String(HEART_RATE_SERVICE, variant_level=1),
        'Device': dbus.ObjectPath(device_path, variant_level=1),
        'Primary': dbus.Boolean(True, variant_level=1),
        'Includes': dbus.Array([], signature='o', variant_level=1),
        'Handle': dbus.UInt16(0x000c, variant_level=1),
    }
    self.AddObject(service_path, GATT_SERVICE_IFACE, service_properties, [])
    _added(service_path, {GATT_SERVICE_IFACE: service_properties})
    for handle, uuid, flags, value in [
            (0x000d, HEART_RATE_MEASUREMENT, ['notify'], []),
            (0x0010, BODY_SENSOR_LOCATION, ['read'], [1])]:
        path = f'{service_path}/char{handle:04x}'
        properties = {
            'UUID': dbus.String(uuid, variant_level=1),
            'Service': dbus.ObjectPath(service_path, variant_level=1),
            'Value': dbus.Array([dbus.Byte(byte) for byte in value], signature='y', variant_level=1),
            'Notifying': dbus.Boolean(False, variant_level=1),
            'Flags': dbus.Array(flags, signature='s', variant_level=1),
            'Handle': dbus.UInt16(handle, variant_level=1),
            'MTU': dbus.UInt16(247, variant_level=1),
        }
        self.AddObject(path, GATT_CHARACTERISTIC_IFACE, properties, [
            ('ReadValue', 'a{sv}', 'ay', ReadValue),
            ('StartNotify', '', '', StartNotify),
            ('StopNotify', '', '', StopNotify),
        ])
        _added(path, {GATT_CHARACTERISTIC_IFACE: properties})


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature='oay', out_signature='')
def Notify(_self, characteristic_path, value):
    characteristic = mockobject.objects[characteristic_path]
    if not characteristic.props[GATT_CHARACTERISTIC_IFACE]['Notifying']:
        return
    changed = dbus.Array([dbus.Byte(byte) for byte in value], signature='y', variant_level=1)
    characteristic.props[GATT_CHARACTERISTIC_IFACE]['Value'] = changed
    _changed(characteristic, GATT_CHARACTERISTIC_IFACE, {'Value': changed})
