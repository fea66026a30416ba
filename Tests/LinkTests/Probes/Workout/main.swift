import Workout

print("Workout")
