import WorkoutSimulators

print("WorkoutSimulators")
