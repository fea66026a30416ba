import WorkoutCore

print("WorkoutCore")
