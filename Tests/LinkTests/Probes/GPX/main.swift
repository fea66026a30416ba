import GPX

print("GPX")
