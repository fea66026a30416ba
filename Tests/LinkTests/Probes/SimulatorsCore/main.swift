import SimulatorsCore

print("SimulatorsCore")
