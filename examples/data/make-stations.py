"""Writes examples/data/stations.csv, the small weather table examples/csv-stations.json reads.

Run once from the repository root (/usr/bin/python3, standard library only); the CSV is committed,
so neither the example nor its tests need Python. Seeded: the same file every time.
"""
import csv
import random

random.seed(7)
STATIONS = [("oslo", 5.7), ("lisbon", 17.4), ("cairo", 22.3), ("reykjavik", 4.5), ("singapore", 27.6), ("denver", 10.4)]
with open("examples/data/stations.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["day", "station", "temp_c", "rain_mm"])
    for day in range(1, 121):
        for name, mean in STATIONS:
            temp = round(random.gauss(mean, 3.0), 1)
            rain = round(max(0.0, random.gauss(1.5, 2.5)), 1)
            w.writerow([day, name, temp, rain])
