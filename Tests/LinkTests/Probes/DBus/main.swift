import DBus

print("DBus")
