import Simulators

print("Simulators")
