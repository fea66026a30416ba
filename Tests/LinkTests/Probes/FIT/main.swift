import FIT

print("FIT")
