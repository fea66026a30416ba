import TCX

print("TCX")
