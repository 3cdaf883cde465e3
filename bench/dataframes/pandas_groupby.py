"""pandas baseline for bench/dataframes/groupby.ts: P partitions of R rows like the timeseries
(name: one of 26 strings, x uniform in (-1, 1]); times the generation and groupby('name').x.mean()
per partition, one thread. Prints one JSON line."""
import json
import sys
import time

import numpy as np
import pandas as pd

P, R = int(sys.argv[1]), int(sys.argv[2])
NAMES = np.array(['Alice', 'Bob', 'Charlie', 'Dan', 'Edith', 'Frank', 'George', 'Hannah', 'Ingrid', 'Jerry', 'Kevin',
                  'Laura', 'Michael', 'Norbert', 'Oliver', 'Patricia', 'Quinn', 'Ray', 'Sarah', 'Tim', 'Ursula', 'Victor',
                  'Wendy', 'Xavier', 'Yvonne', 'Zelda'], dtype=object)
gen = grp = grp_cat = 0.0
for p in range(P):
    t0 = time.perf_counter()
    rng = np.random.default_rng(p)
    df = pd.DataFrame({
        'timestamp': pd.date_range('2000-01-01', periods=R, freq='s'),
        'id': rng.poisson(1000, R),
        'name': NAMES[rng.integers(0, 26, R)],
        'x': rng.uniform(-1, 1, R),
        'y': rng.uniform(-1, 1, R),
    })
    t1 = time.perf_counter()
    df.groupby('name').x.mean()
    t2 = time.perf_counter()
    cat = df['name'].astype('category')
    t3 = time.perf_counter()
    df.x.groupby(cat, observed=True).mean()
    t4 = time.perf_counter()
    gen += t1 - t0
    grp += t2 - t1
    grp_cat += t4 - t3
print(json.dumps({'pandas': pd.__version__, 'numpy': np.__version__, 'partitions': P, 'rows': R,
                  'generate_s': gen, 'groupby_string_key_s': grp, 'groupby_category_key_s': grp_cat,
                  'groupby_string_rows_per_s': P * R / grp, 'groupby_category_rows_per_s': P * R / grp_cat}))
