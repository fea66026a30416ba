import CourseFiles

print("CourseFiles")
