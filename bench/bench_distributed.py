"""Distributed evaluation: BLEU + ROUGE-L + chrF on 1,000,000 pairs, one in-process pass vs a LocalCluster of 1 and 2 workers.

The pairs are cut from the card packs shipped in the package (bench/_common.make_pairs: 20-40 words, a quarter of the
words replaced), written once as Parquet shards of --shard pairs into --data (kept there for the next run). Three runs
read the same shards:

- in-process: one Python process reads the shards one after another and updates the three metrics (`Metric.update`),
  then computes them: the library without Dask, run in a child process so that its peak memory is its own;
- 1 worker / 2 workers: `cah_metrics.distributed.evaluate` on a fresh `distributed.LocalCluster` (processes, one
  thread each): the workers read the shards, the states merge in a tree, the driver scores.

It checks that the three reports are equal (every number), then prints wall time (cluster start-up not included), the
CPU seconds of each process during the run (the driver's, where the last scoring happens, and each worker's: what the
wall time is made of on a busy machine), peak resident memory of each worker process (VmHWM, and its resident memory before the run: the interpreter and the
imports) and of the in-process run, and the overhead against the in-process pass, side by side. Memory per worker
depends on the shard size, not on --n (a worker holds one partition and small states), so a quick --n 100000 run
measures it too.

    python bench/bench_distributed.py [--n 1000000] [--shard 25000] [--data DIR] [--workers 1 2] [--memory-limit 2GiB]
                                      [--quick] [--json PATH]

The scale run of issue #34 (10,000,000 pairs, about 80 minutes on 2 cores, not in CI):

    python bench/bench_distributed.py --n 10000000 --workers 2 --memory-limit 2GiB

--quick: 100,000 pairs in shards of 25,000 (about a minute on 2 cores).
"""
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import make_pairs, row, emit

METRICS = ['bleu', 'rougeL', 'chrf']

def _status_mib(field):
    "A memory figure of this process from /proc/self/status (VmHWM: peak resident, VmRSS: resident now), in MiB."
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(field + ':'): return int(line.split()[1]) / 1024
    return float('nan')

def cpu_seconds():
    "User and system CPU seconds of this process so far."
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def peak_rss(): return _status_mib('VmHWM')    # the process's own peak; ru_maxrss is carried over from the parent through fork and exec
def rss(): return _status_mib('VmRSS')

def write_shards(n, shard, folder):
    "Parquet shards of `shard` pairs (id, prediction, reference) in `folder`, made once per (n, shard)."
    import pyarrow as pa, pyarrow.parquet as pq
    folder = Path(folder) / f"pairs-{n}-{shard}"
    done = folder / 'DONE'
    if done.exists(): return sorted(folder.glob('*.parquet'))
    folder.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    hyps, refs = make_pairs(n)
    for i, s in enumerate(range(0, n, shard)):
        pq.write_table(pa.table({'id': [f"p{j}" for j in range(s, min(n, s + shard))], 'prediction': hyps[s:s + shard], 'reference': refs[s:s + shard]}),
                       folder / f"part-{i:05d}.parquet")
    done.write_text('')
    print(f"wrote {n:,} pairs in {-(-n // shard)} shards to {folder} ({time.perf_counter() - t:.1f} s)", file=sys.stderr)
    return sorted(folder.glob('*.parquet'))

def in_process(paths):
    "The three metrics updated shard by shard in this process, then computed: (report, seconds, peak RSS MiB, CPU s)."
    import pyarrow.parquet as pq
    from cah_metrics.core import load
    from cah_metrics.evaluate import report_entry
    t, cpu = time.perf_counter(), cpu_seconds()
    ms = {name: load(name) for name in METRICS}
    n = 0
    for p in paths:
        tab = pq.read_table(p, columns=['prediction', 'reference']).to_pydict()
        for m in ms.values(): m.update(tab['prediction'], tab['reference'])
        n += len(tab['prediction'])
    report, sigs, details = {}, {}, {}
    for name, m in ms.items():
        numbers, sigs[name], details[name] = report_entry(name, m.compute())
        report.update(numbers)
    secs = time.perf_counter() - t
    return {**report, 'n_examples': n, 'signatures': sigs, 'details': details}, secs, peak_rss(), cpu_seconds() - cpu

def on_cluster(paths, workers, memory_limit=0):
    "evaluate on a fresh LocalCluster of `workers` processes (each held to `memory_limit` bytes by Dask, 0: unbounded): (report, seconds, [peak RSS MiB of each worker], [RSS MiB of each worker before the run], CPU s: [driver, each worker])."
    import logging
    from distributed import Client, LocalCluster
    from cah_metrics.distributed import evaluate
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, host='127.0.0.1',
                      silence_logs=logging.ERROR, memory_limit=memory_limit) as cluster, Client(cluster) as client:
        client.run(lambda: __import__('cah_metrics.distributed'))          # warm imports, as a long-lived cluster has them
        idle, cpu0 = client.run(rss), client.run(cpu_seconds)
        t, driver = time.perf_counter(), cpu_seconds()
        report = evaluate([str(p) for p in paths], METRICS, client=client)
        secs, driver = time.perf_counter() - t, cpu_seconds() - driver
        peaks, cpu1 = client.run(peak_rss), client.run(cpu_seconds)
    return report, secs, sorted(peaks.values()), sorted(idle.values()), [driver] + [cpu1[k] - cpu0[k] for k in cpu0]

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--n', type=int, default=1_000_000); ap.add_argument('--shard', type=int, default=25_000)
    ap.add_argument('--data', default=str(Path(tempfile.gettempdir()) / 'cah_bench_distributed'))
    ap.add_argument('--workers', type=int, nargs='+', default=[1, 2])
    ap.add_argument('--quick', action='store_true', help='100,000 pairs')
    ap.add_argument('--memory-limit', default='0', help="each worker's memory limit, as Dask reads it ('2GiB'; 0: none): "
                    "Dask spills, pauses and at last restarts a worker that passes it")
    ap.add_argument('--json', help='append the result rows here (JSON Lines, for bench/run_all.py)')
    ap.add_argument('--in-process-only', action='store_true', help=argparse.SUPPRESS)    # the child process of the in-process run
    a = ap.parse_args()
    if a.quick: a.n = min(a.n, 100_000)
    paths = write_shards(a.n, a.shard, a.data)
    if a.in_process_only:
        report, secs, rss, cpu = in_process(paths)
        json.dump({'report': report, 'seconds': secs, 'rss': rss, 'cpu': cpu}, sys.stdout); return 0
    child = subprocess.run([sys.executable, __file__, '--n', str(a.n), '--shard', str(a.shard), '--data', a.data, '--in-process-only'],
                           capture_output=True, text=True, check=True)
    base = json.loads(child.stdout)
    rows = [('in-process (no Dask)', base['seconds'], [base['rss']], [], True, [base['cpu']])]
    ok = True
    for w in a.workers:
        report, secs, peaks, idle, cpu = on_cluster(paths, w, a.memory_limit)
        ok &= report == base['report']
        rows.append((f"{w} worker{'s' * (w > 1)}", secs, peaks, idle, report == base['report'], cpu))
    r = base['report']
    print(f"{a.n:,} pairs of 20-40 words in {len(paths)} Parquet shards; BLEU {r['bleu']:.6f}, ROUGE-L {r['rougeL']:.6f}, chrF {r['chrf']:.6f}; "
          f"reports {'equal' if ok else 'DIFFER'} (every number)")
    print(f"{'run':22s} {'wall s':>8s} {'pairs/s':>9s} {'vs in-process':>14s}  {'CPU s: driver; workers':24s} peak RSS per process, MiB (before the run)")
    for name, secs, peaks, idle, _, cpu in rows:
        cpus = f"{cpu[0]:.1f}" + (f"; {', '.join(f'{c:.1f}' for c in cpu[1:])}" if len(cpu) > 1 else '')
        print(f"{name:22s} {secs:8.1f} {a.n / secs:9,.0f} {secs / base['seconds']:13.2f}x  {cpus:24s} "
              + ', '.join(f'{p:.0f}' + (f' ({i:.0f})' if idle else '') for p, i in zip(peaks, idle or peaks)))
    def aim(name, secs):
        "The issue's aim for a run of this many workers (#34): one worker within 1.15x of the in-process time, two at least 1.6x faster."
        if name == '1 worker': return 'within 1.15x of the in-process time', secs <= 1.15 * base['seconds']
        if name == '2 workers': return '>= 1.6x faster than in-process', base['seconds'] >= 1.6 * secs
        return None, None
    emit([row(f"BLEU + ROUGE-L + chrF, {a.n:,} pairs in {len(paths)} Parquet shards, `distributed.evaluate` on a LocalCluster of {name} "
              f"(memory: the largest worker's peak RSS"
              f"{'' if a.memory_limit in ('0', '') else f', each worker held to {a.memory_limit}'}; peer: one in-process pass without Dask)", secs, 'in-process pass', base['seconds'],
              ours_mib=max(peaks), peer_mib=base['rss'], aim=aim(name, secs)[0], met=aim(name, secs)[1],
              numbers='equal to the in-process report (every number)' if same else 'DIFFER')
          for name, secs, peaks, idle, same, _ in rows[1:]], a.json)
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
