import Navigation

print("Navigation")
