import WorkoutUpload

print("WorkoutUpload")
